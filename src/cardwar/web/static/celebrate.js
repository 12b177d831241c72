// The celebration of a person's win: when a person takes every card, cards burst from their pile
// and rain down with confetti around the round's result (the table's one box of words, table.js);
// a match a person won gets more still, and stars rising from the result. A computer's win gets
// no party: the result says a few kind words instead (round-end.js). Drawn by us (art.js's cards,
// CSS, the Web Animations API), nothing fetched. A press of any key, a tap or a click ends it at
// once, and still does what it pressed: the layer lets every pointer through. Under reduced
// motion there is no party: the result is the moment.
import { MOTION } from "./animate.js";
import { backSvg, cardSvg, fromMarkup } from "./art.js";

// Milliseconds (times MOTION): the pieces' flight, and how many fly.
const ROUND = { fall: 2600, stagger: 28, cards: 34, confetti: 46 };
const MATCH = { fall: 3200, rise: 2400, stagger: 70, cards: 52, confetti: 80, stars: 24 };
const KINDS = { round: ROUND, match: MATCH };
const CONFETTI = ["#f2c14e", "#e04f5f", "#3b7dd8", "#2e9e5b", "#ffffff"];
const RANKS = "A K Q J T 9 8 7 6 5 4 3 2".split(" ");
const SUITS = ["S", "H", "D", "C"];

const STAR = `<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 1.5l3.1 6.6 7.2.9-5.3 5 1.4 7.1L12 17.6l-6.4 3.5 1.4-7.1-5.3-5 7.2-.9z" fill="#f2c14e" stroke="#7a5200" stroke-width="1"/></svg>`;

let showing = null; // the celebration on screen, if any: { end }

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

/** A star that rises gently from the result's lower edge and fades above it. */
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

/** Where the round's result stands on the screen (the middle of it, if it is not shown). */
function resultBox() {
  const box = document.getElementById("outcome")?.getBoundingClientRect();
  if (box && box.width > 0) return box;
  const x = window.innerWidth / 2;
  const y = window.innerHeight / 2;
  return { left: x - 150, right: x + 150, top: y - 60, bottom: y + 60, width: 300, height: 120 };
}

function pieces(kind, layer) {
  const made = [];
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
    const box = resultBox();
    for (let i = 0; i < MATCH.stars; i++) {
      const star = fromMarkup(STAR);
      star.classList.add("piece", "star");
      made.push([star, (piece) => rise(piece, box, i, MATCH.stars)]);
    }
  }
  layer.append(...made.map(([piece]) => piece));
  return made.map(([piece, start]) => start(piece));
}

/**
 * Celebrate a person's win: `kind` "round" (they took every card) or "match" (they won a match,
 * the bigger party). Resolves when it has finished or was skipped: any key, a tap or a click
 * (Escape too); at once under reduced motion.
 */
export function celebrate({ kind = "round" } = {}) {
  showing?.end();
  if (MOTION === 0) return Promise.resolve();
  const layer = document.createElement("div");
  layer.className = "celebration";
  layer.dataset.kind = kind in KINDS ? kind : "round";
  layer.setAttribute("aria-hidden", "true"); // the table's result says it in words
  layer.setAttribute("data-testid", "celebration");
  document.body.append(layer);

  return new Promise((resolve) => {
    const begun = performance.now();
    let flights = [];
    let over = false;

    function end() {
      if (over) return;
      over = true;
      window.removeEventListener("keydown", onPress, true);
      window.removeEventListener("pointerdown", onPress, true);
      for (const flight of flights) flight.cancel();
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
    flights = pieces(layer.dataset.kind, layer);
    Promise.all(flights.map((flight) => flight.finished)).then(end, end); // done, or cancelled
  });
}
