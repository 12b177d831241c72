// Drawing the table (seats, cards laid, controls and each person's flip button, words) as
// update.js's view says.
import { Stage } from "./animate.js";
import { backSvg, fromMarkup, laidCard } from "./art.js";
import { spread } from "./battle.js";
import { $ } from "./dom.js";
import { matchPreset, plainRules, presetName, rulesLine } from "./house.js";
import { drawScoreboard } from "./scoreboard.js";
import { frozen, state, ui } from "./state.js";
import { noun } from "./words.js";

const els = {
  table: $("table"),
  field: $("field"),
  autoHint: $("auto-hint"),
  matchLine: $("match-line"),
  rulesLine: $("rules-line"),
  guideRules: $("guide-rules-line"),
  battleNumber: $("battle-number"),
  message: $("message"),
  announce: $("announce"),
  outcome: $("outcome"),
};

export const controls = { turn: $("turn"), ten: $("ten"), auto: $("auto"), deal: $("new"), again: $("play-again") };

// Each person's own flip key, by seat: seat 0 keeps T (and Space) of Turn cards, which is its
// flip too. Two people at one keyboard each have a side of it: T on the left, L on the right.
export const FLIP_KEYS = ["T", "L", "A", "M"];
const TOUCH = window.matchMedia("(hover: none) and (pointer: coarse)").matches; // no keys to show

/** The seats that have flipped for the battle the round is at (ui.flips is keyed by it; at a
 * live table, the table's own flips, in the state). */
export function flippedSeats(round = state.round) {
  if (state.live) return round ? state.live.flipped : [];
  return round && ui.flips.key === flipsKey(round) ? [...ui.flips.done] : [];
}

export const flipsKey = (round) => `${round.id}:${round.battles}`;

/** Seat `seat`'s flip button, if the table shows one. */
export const flipButton = (seat) => els.table.querySelector(`.flips[data-seat="${seat}"] button`);

export const stage = new Stage(els.table, {
  setCounts,
  flight: $("flight"),
  burst: $("burst"),
  ghost: () => fromMarkup(backSvg("ghost")),
});

export function setCounts(counts) {
  counts.forEach((count, seat) => {
    const seatEl = els.table.querySelector(`.seat[data-seat="${seat}"]`);
    seatEl.querySelector(".count").textContent = String(count);
    seatEl.querySelector(".unit").textContent = noun(count, "card");
    // A pile looks thicker the more it holds; an empty pile shows only its outline.
    seatEl.querySelector(".stack").style.setProperty("--depth", `${Math.ceil((count / 52) * 12)}px`);
    seatEl.classList.toggle("empty", count === 0);
  });
}

/** Lay out what each seat laid (battle.js's laidBySeat), `winner`'s marked. */
export function drawField(laid, winner) {
  els.field.querySelectorAll(".slot").forEach((slot, seat) => {
    const items = laid[seat];
    slot.hidden = items === undefined;
    slot.classList.toggle("winner", winner === seat);
    if (!items || items.length === 0) {
      slot.replaceChildren();
      return;
    }
    const { span, places } = spread(items);
    const row = document.createElement("div");
    row.className = "spread";
    row.style.setProperty("--span", String(span));
    items.forEach((item, i) => {
      const card = laidCard(item);
      card.style.setProperty("--t", String(places[i]));
      row.append(card);
    });
    const down = items.filter((item) => item.kind === "down").length;
    if (down > 0) row.setAttribute("aria-label", `${down} face down`);
    slot.replaceChildren(row);
  });
}

function drawSeats(shown) {
  els.table.dataset.players = String(shown.players);
  els.table.querySelectorAll(".seat").forEach((seatEl, seat) => {
    seatEl.hidden = seat >= shown.players;
    if (seat >= shown.players) return;
    seatEl.querySelector(".name").textContent = shown.labels[seat];
    seatEl.classList.toggle("out", shown.out[seat]);
    const slot = $(`laid-${seat}`);
    const yours = seat === 0 && shown.labels[0] === "You";
    slot.setAttribute("aria-label", yours ? "Your cards this battle" : `${shown.labels[seat]}'s cards this battle`);
  });
  setCounts(shown.counts);
}

/** Busy is aria-disabled (the button keeps its focus); a disabled button says nothing more. */
function markBusy(button, busy) {
  if (busy && !button.disabled) button.setAttribute("aria-disabled", "true");
  else button.removeAttribute("aria-disabled");
}

function drawControls(shown) {
  const over = shown.ready && shown.outcome !== null;
  const auto = ui.run !== null;
  controls.turn.disabled = over;
  controls.ten.disabled = over;
  controls.auto.disabled = over && !auto;
  controls.auto.textContent = auto ? "Stop" : "Play to end";
  els.autoHint.hidden = !auto;
  const flipped = flippedSeats();
  // Out of reach of the game, what needs it waits too (a press says so: act.js).
  const waits = state.busy || state.unreachable;
  for (const button of Object.values(controls)) markBusy(button, waits);
  if (flipped.includes(0)) markBusy(controls.turn, true); // your flip is in: Turn cards waits too
  // Once the round is over its result leads, with Play again; out of a round the others play
  // on, New round does.
  controls.turn.classList.toggle("primary", !over && !shown.youOut);
  controls.deal.classList.toggle("primary", !over && Boolean(shown.youOut));
  drawFlips(shown, flipped);
  drawPiles(shown);
}

const PILE_HINT = "cardwar.pile-hint"; // "seen" once this browser's player has flipped a pile

// Read once: the hint is for a first visit, and every draw asks.
let pileHintSeen = (() => {
  try {
    return window.localStorage.getItem(PILE_HINT) === "seen";
  } catch {
    return true; // storage turned off: no hint rather than one on every visit
  }
})();

/** The piles a tap flips: each person's still in, while the round goes on. On a first visit
 * your pile says so, until the first battle is played. */
function drawPiles(shown) {
  const going = shown.ready && shown.outcome === null;
  els.table.querySelectorAll(".seat").forEach((seatEl, seat) => {
    seatEl.classList.toggle("tappable", going && shown.people.includes(seat) && !shown.out[seat]);
  });
  const first = going && state.round.battles === 0;
  if (!pileHintSeen && shown.ready && state.round.battles > 0) {
    pileHintSeen = true;
    try {
      window.localStorage.setItem(PILE_HINT, "seen");
    } catch {
      // storage turned off: nothing to remember it in
    }
  }
  const hint = els.table.querySelector('.seat[data-seat="0"] .pile-hint');
  hint.hidden = !(first && !pileHintSeen);
  hint.textContent = TOUCH ? "Tap your pile to turn" : "Click your pile to turn";
}

/** With two or more people at the table, each person still in has a flip button on their own
 * side, named with their name and showing their key. */
function drawFlips(shown, flipped) {
  const people = shown.ready && shown.outcome === null && shown.people.length > 1 ? shown.people : [];
  for (const slot of els.table.querySelectorAll(".flips")) {
    const seat = Number(slot.dataset.seat);
    if (!people.includes(seat) || shown.out[seat]) {
      slot.replaceChildren();
      continue;
    }
    const name = `Flip — ${shown.labels[seat]}`;
    let button = slot.querySelector("button");
    if (!button || button.dataset.name !== name) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "flip";
      button.dataset.seat = String(seat);
      button.dataset.name = name;
      button.setAttribute("aria-keyshortcuts", FLIP_KEYS[seat]);
      const words = document.createElement("span");
      words.textContent = name;
      button.append(words);
      if (!TOUCH) {
        const key = document.createElement("kbd");
        key.setAttribute("aria-hidden", "true"); // the name stays "Flip — Mia"; the key is in aria-keyshortcuts
        key.textContent = FLIP_KEYS[seat];
        button.append(" ", key);
      }
      slot.replaceChildren(button);
    }
    button.classList.toggle("flipped", flipped.includes(seat));
    // Someone has flipped: the table waits for those who have not, and their buttons say so.
    button.classList.toggle("waiting", flipped.length > 0 && !flipped.includes(seat));
    markBusy(button, state.busy || state.unreachable || flipped.includes(seat));
  }
}

function drawWords(shown) {
  // While a deal's cards fly out, the deal is not told yet: the piles are still filling.
  say(ui.phase === "dealing" && !shown.error ? "Dealing the cards…" : shown.message, shown.error);
  if (shown.ready && shown.outcome) {
    $("outcome-title").textContent = shown.outcome.title;
    $("outcome-why").textContent = shown.outcome.why;
    controls.again.textContent = shown.outcome.again;
    els.outcome.hidden = false;
  } else {
    els.outcome.hidden = true;
  }
}

/** What the round's result says beneath its words, once its story is known: a few kind words
 * when a computer won (`note`), and the details (battles, wars, the biggest war); null for
 * none. */
export function showDetails(roundId, details, note = null) {
  if (state.round?.id !== roundId) return;
  for (const [id, text] of [["outcome-details", details], ["outcome-note", note]]) {
    const box = $(id);
    box.hidden = !text;
    box.textContent = text ?? "";
  }
}

function drawRules(rules) {
  const name = state.info ? matchPreset(rules, state.info.presets) : null;
  els.rulesLine.textContent = plainRules(rules);
  els.guideRules.textContent = name ? `${presetName(name)} · ${rulesLine(rules)}` : rulesLine(rules);
}

function drawGuide(guide) {
  for (const element of document.querySelectorAll("[data-guide]")) {
    const text = guide[element.dataset.guide];
    element.textContent = text ?? "";
    element.hidden = !text;
  }
}

/** Draw the table as `shown` (view(state)) says; only the controls while it is frozen (state.js). */
export function drawTable(shown) {
  drawControls(shown);
  if (frozen()) return;
  drawWords(shown);
  drawScoreboard();
  // No table known (the game not reached): no counts, never a made-up deal's 26 and 26.
  for (const tally of els.table.querySelectorAll(".tally")) tally.hidden = !shown.ready && shown.error;
  if (!shown.ready) {
    els.battleNumber.textContent = shown.battleNumber;
    return;
  }
  els.matchLine.hidden = shown.matchLine === null;
  els.matchLine.textContent = shown.matchLine ?? "";
  els.battleNumber.textContent = shown.battleNumber;
  drawSeats(shown);
  drawField(shown.laid, shown.winner);
  const rules = JSON.stringify(state.round.rules);
  if (rules !== ui.drawnRules) {
    ui.drawnRules = rules;
    drawRules(state.round.rules);
    drawGuide(shown.guide);
  }
}

export const showBattleNumber = (text) => { els.battleNumber.textContent = text; };

/** Put `text` in the table's caption (an error in a warning's box). */
export function say(text, error = false) {
  const box = els.message;
  if (box.textContent === text && box.classList.contains("error") === error) return;
  box.textContent = text;
  box.classList.toggle("error", error);
}

export function announce(text) {
  // Re-set the live region so the same words are still read out twice in a row.
  els.announce.textContent = "";
  requestAnimationFrame(() => {
    els.announce.textContent = text;
  });
}

export const markTableBusy = (busy) => els.table.setAttribute("aria-busy", String(busy));
