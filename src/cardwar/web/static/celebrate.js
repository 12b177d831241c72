// The celebration: when a person takes every card, cards burst from the winner's pile and rain
// down behind a big banner with the winner's name; a match a person won gets more still (the
// burst, confetti and stars rising); a round or a match a computer won gets no party, only a
// calm banner with a few kind words. Drawn by us (art.js's cards, CSS, the Web Animations API),
// nothing fetched. A press of any key, a tap or a click ends it at once, and still does what it
// pressed: the layer lets every pointer through. Under reduced motion it is a still banner that
// the next press takes away.
import { MOTION } from "./animate.js";
import { backSvg, cardSvg, fromMarkup } from "./art.js";

// Milliseconds (times MOTION): the banner arriving, the cards' flight, the banner leaving.
const ROUND = { arrive: 600, fall: 2600, stagger: 28, leave: 450, cards: 34, confetti: 46 };
const MATCH = { arrive: 600, fall: 3200, rise: 2400, stagger: 70, leave: 450, cards: 52, confetti: 80, stars: 24 };
const LOSS = { arrive: 450, stay: 2600, leave: 450 };
const KINDS = { round: ROUND, match: MATCH, loss: LOSS };
const CONFETTI = ["#f2c14e", "#e04f5f", "#3b7dd8", "#2e9e5b", "#ffffff"];
const RANKS = "A K Q J T 9 8 7 6 5 4 3 2".split(" ");
const SUITS = ["S", "H", "D", "C"];

const CROWN =
  `<svg class="banner-crown" viewBox="0 0 64 48" aria-hidden="true">` +
  `<path d="M6 40 2 10l16 14L32 4l14 20 16-14-4 30z" fill="#fff3c4" stroke="#7a5200" stroke-width="2.5" stroke-linejoin="round"/>` +
  `<rect x="6" y="38" width="52" height="8" rx="2" fill="#fff3c4" stroke="#7a5200" stroke-width="2.5"/>` +
  `<circle cx="32" cy="27" r="4" fill="#e04f5f"/><circle cx="17" cy="30" r="3" fill="#3b7dd8"/>` +
  `<circle cx="47" cy="30" r="3" fill="#2e9e5b"/></svg>`;
const STAR = `<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 1.5l3.1 6.6 7.2.9-5.3 5 1.4 7.1L12 17.6l-6.4 3.5 1.4-7.1-5.3-5 7.2-.9z" fill="#f2c14e" stroke="#7a5200" stroke-width="1"/></svg>`;

let showing = null; // the celebration on screen, if any: { end }
const TOUCH = window.matchMedia("(hover: none) and (pointer: coarse)").matches; // no keys to press

/** A number in [0, 1) fixed by `i` and `k`: the same burst every time, no Math.random. */
function spread(i, k) {
  const x = Math.sin(i * 12.9898 + k * 78.233) * 43758.5453;
  return x - Math.floor(x);
}

/** The middle of the pile of the seat holding the most cards (the winner, once all are taken). */
function winnersPile() {
  let best = null;
  let most = -1;
  for (const seat of document.querySelectorAll(".table .seat:not([hidden])")) {
    const count = Number(seat.querySelector(".count")?.textContent ?? -1);
    if (count > most) {
      most = count;
      best = seat.querySelector(".stack");
    }
  }
  const box = best?.getBoundingClientRect();
  if (!box || box.width === 0) {
    return { x: window.innerWidth / 2, y: window.innerHeight / 2, width: 90 };
  }
  return { x: box.left + box.width / 2, y: box.top + box.height / 2, width: box.width };
}

function banner(kind, title, detail) {
  const box = document.createElement("div");
  box.className = "banner";
  if (kind !== "loss") box.append(fromMarkup(CROWN));
  const heading = document.createElement("p");
  heading.className = "banner-title";
  heading.textContent = title;
  box.append(heading);
  if (detail) {
    const more = document.createElement("p");
    more.className = "banner-detail";
    more.textContent = detail;
    box.append(more);
  }
  const hint = document.createElement("p");
  hint.className = "banner-hint";
  hint.textContent = TOUCH ? "Tap anywhere to go on." : "Click anywhere or press any key to go on.";
  box.append(hint);
  return box;
}

/** A piece thrown up from `from`: it rises to somewhere between a tenth and two thirds of the
 * way to the top of the screen, drifts sideways and falls off the bottom, spinning, in about
 * `fall` milliseconds. */
function burst(piece, from, i, total, fall = ROUND.fall) {
  const bottom = window.innerHeight + 150;
  const top = from.y * (0.1 + spread(i, 1) * 0.55); // the height it turns at
  const drift = (spread(i, 2) - 0.5) * 1.3 * window.innerWidth;
  const spin = (spread(i, 3) - 0.5) * 1080;
  // y(t) = top + k (t - turn)^2 passes through from.y at 0 and `bottom` at 1.
  const turn = 1 / (1 + Math.sqrt((bottom - top) / Math.max(from.y - top, 1)));
  const k = (from.y - top) / (turn * turn);
  const frames = [];
  for (let step = 0; step <= 12; step++) {
    const t = step / 12;
    const x = from.x + drift * t;
    const y = top + k * (t - turn) ** 2;
    const grow = Math.min(1, 0.35 + t * 5);
    frames.push({ transform: `translate(${x}px, ${y}px) translate(-50%, -50%) rotate(${spin * t}deg) scale(${grow})` });
  }
  return piece.animate(frames, {
    duration: fall * (0.85 + spread(i, 4) * 0.3) * MOTION,
    delay: (i % total) * ROUND.stagger * MOTION,
    easing: "linear",
    fill: "both",
  });
}

/** A star that rises gently from behind the banner's lower edge and fades above it. */
function rise(piece, box, i, total) {
  const x = box.left + box.width * (0.05 + 0.9 * (i + 0.5) / total);
  const y = box.bottom - 10 - spread(i, 5) * 30;
  const drift = (spread(i, 6) - 0.5) * 90;
  const height = box.height + 90 + spread(i, 7) * 80;
  return piece.animate([
    { transform: `translate(${x}px, ${y}px) translate(-50%, -50%) scale(.4)`, opacity: 0 },
    { transform: `translate(${x + drift / 2}px, ${y - height / 2}px) translate(-50%, -50%) scale(1.1)`, opacity: 1, offset: 0.4 },
    { transform: `translate(${x + drift}px, ${y - height}px) translate(-50%, -50%) rotate(40deg) scale(.8)`, opacity: 0 },
  ], { duration: MATCH.rise * MOTION, delay: i * MATCH.stagger * MOTION, easing: "ease-out", fill: "both" });
}

function pieces(kind, layer) {
  const made = [];
  if (kind === "loss") return []; // no party for a computer's win
  const timing = KINDS[kind];
  const from = winnersPile();
  const size = Math.max(44, Math.min(110, from.width * 0.6));
  for (let i = 0; i < timing.cards; i++) {
    const code = RANKS[i % RANKS.length] + SUITS[Math.floor(i / RANKS.length) % SUITS.length];
    const card = fromMarkup(i % 5 === 4 ? backSvg() : cardSvg(code));
    card.removeAttribute("role");
    card.removeAttribute("aria-label");
    card.classList.add("piece");
    card.style.width = `${size}px`;
    card.style.height = `${size * 1.4}px`;
    made.push([card, (piece) => burst(piece, from, i, timing.cards, timing.fall)]);
  }
  for (let i = 0; i < timing.confetti; i++) {
    const bit = document.createElement("span");
    bit.className = "piece confetti";
    bit.style.background = CONFETTI[i % CONFETTI.length];
    made.push([bit, (piece) => burst(piece, from, timing.cards + i, timing.cards, timing.fall)]);
  }
  if (kind === "match") {
    const box = layer.querySelector(".banner").getBoundingClientRect();
    for (let i = 0; i < MATCH.stars; i++) {
      const star = fromMarkup(STAR);
      star.classList.add("piece", "star");
      made.push([star, (piece) => rise(piece, box, i, MATCH.stars)]);
    }
  }
  layer.querySelector(".banner").before(...made.map(([piece]) => piece)); // its words stay clear
  return made.map(([piece, start]) => start(piece));
}

/**
 * Mark a round's end: `kind` "round" (a person took every card), "match" (a person won a match,
 * the biggest) or "loss" (a computer won: a calm banner, no party), `title` the banner's big
 * words (the winner's name in them), `detail` a line under it. Resolves when it has finished or
 * was skipped: any key, a tap or a click (Escape too).
 */
export function celebrate({ kind = "round", title = "", detail = "" } = {}) {
  showing?.end();
  const still = MOTION === 0;
  const layer = document.createElement("div");
  layer.className = "celebration";
  layer.dataset.kind = kind in KINDS ? kind : "round";
  layer.classList.toggle("still", still);
  layer.setAttribute("aria-hidden", "true"); // the table's outcome says it in words
  layer.setAttribute("data-testid", "celebration");
  const box = banner(layer.dataset.kind, title, detail);
  if (layer.dataset.kind !== "loss" && !still) {
    const rays = document.createElement("div");
    rays.className = "rays";
    layer.append(rays);
  }
  layer.append(box);
  document.body.append(layer);

  return new Promise((resolve) => {
    const begun = performance.now();
    const animations = [];
    let over = false;

    function end() {
      if (over) return;
      over = true;
      window.removeEventListener("keydown", onPress, true);
      window.removeEventListener("pointerdown", onPress, true);
      for (const animation of animations) animation.cancel();
      layer.remove();
      if (showing?.end === end) showing = null;
      resolve();
    }
    // A press already on its way when the celebration began is not one that skips it.
    function onPress(event) {
      if (event.repeat || event.timeStamp < begun) return;
      end();
    }
    showing = { end };
    window.addEventListener("keydown", onPress, true);
    window.addEventListener("pointerdown", onPress, true);
    if (still) return; // a still banner, until the next press

    const timing = KINDS[layer.dataset.kind];
    const flights = pieces(layer.dataset.kind, layer); // measured while the banner stands still
    const arrive = layer.dataset.kind === "loss"
      ? box.animate([{ transform: "translateY(12px)", opacity: 0 }, { transform: "none", opacity: 1 }],
        { duration: timing.arrive * MOTION, easing: "ease-out", fill: "both" })
      : box.animate([
        { transform: "scale(.2) rotate(-8deg)", opacity: 0 },
        { transform: "scale(1.1) rotate(2deg)", opacity: 1, offset: 0.6 },
        { transform: "none", opacity: 1 },
      ], { duration: timing.arrive * MOTION, easing: "cubic-bezier(.2, .7, .3, 1.2)", fill: "both" });
    animations.push(arrive);
    if (timing.stay) { // nothing flies: the banner stays a while on its own
      const stay = box.animate([{ opacity: 1 }, { opacity: 1 }], { duration: (timing.arrive + timing.stay) * MOTION });
      flights.push(stay);
    }
    const rays = layer.querySelector(".rays");
    if (rays) {
      animations.push(rays.animate([{ transform: "rotate(0deg)" }, { transform: "rotate(40deg)" }],
        { duration: (timing.fall + timing.leave) * MOTION, fill: "both" }));
    }
    animations.push(...flights);
    Promise.all(flights.map((flight) => flight.finished)).then(() => {
      if (over) return;
      const leave = box.animate([{ opacity: 1 }, { opacity: 0, transform: "scale(.96)" }],
        { duration: timing.leave * MOTION, fill: "both" });
      animations.push(leave);
      return leave.finished;
    }).then(end, end); // cancelled by a skip, or done: either way, the celebration is over
  });
}
