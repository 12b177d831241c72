// The chance to win from here: asked after each battle, shown under the controls with one line of
// what the table shows (the cards each pile holds), unless this browser chose to hide it (then
// nothing is asked). What the piles hold, the reason for the figure, only behind Peek.
import { ApiError, api } from "./api.js";
import { chanceLine, chanceWords } from "./charts.js";
import { $ } from "./dom.js";
import { seatWords } from "./seats.js";
import { gettingReady } from "./simulator.js";
import { acting, state, ui } from "./state.js";

const els = {
  chance: $("chance"),
  value: $("chance-value"),
  fill: $("chance-fill"),
  words: $("chance-words"),
  peek: $("chance-peek"),
  peekWords: $("chance-peek-words"),
  hide: $("chance-hide"),
};

const HIDDEN_KEY = "cardwar.chance-hidden";

/** Hide the chance, and any answer on its way. */
export function hideChance() {
  ui.chance.asked += 1;
  els.chance.hidden = true;
}

export async function showChance() {
  const round = state.round;
  const asked = ++ui.chance.asked;
  // From the first battle on: before a card is turned it would only tell the deal's luck.
  // A live table's round is asked of nobody but the table (its id is the table's secret).
  if (ui.chance.hidden || !round || state.live || round.outcome !== null || round.battles === 0 || round.counts[0] === 0) {
    els.chance.hidden = true;
    return;
  }
  if (!ui.simulator.ready) { // asked once it is (app.js): say why the meter waits
    els.value.textContent = "…";
    els.fill.style.width = "0";
    els.words.textContent = gettingReady("the chance meter");
    els.chance.hidden = false;
    return;
  }
  let chance;
  try {
    chance = await api("GET", `/api/rounds/${encodeURIComponent(round.id)}/chance`, undefined, { background: true });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (asked === ui.chance.asked) els.chance.hidden = true; // no estimate is no harm
    return;
  }
  if (asked !== ui.chance.asked || state.round?.id !== round.id) return; // a later one is on its way
  const { names } = seatWords(round.seats, round.rules.players);
  const words = chanceWords(chance, names);
  els.value.textContent = words.value;
  els.fill.style.width = words.value;
  els.words.textContent = chanceLine(state.round.counts, names);
  els.peekWords.textContent = words.sentence;
  els.chance.hidden = false;
}

function markHidden(hidden) {
  ui.chance.hidden = hidden;
  if (!els.hide) return;
  els.hide.dataset.state = hidden ? "hidden" : "shown";
  els.hide.textContent = hidden ? "Show your chance" : "Hide";
}

/** Peek at the piles: what each holds, and why the figure says what it says; again, no more. */
export function togglePeek() {
  const open = els.peek.getAttribute("aria-expanded") !== "true";
  els.peek.setAttribute("aria-expanded", String(open));
  els.peek.textContent = open ? "Stop peeking" : "Peek at the piles";
  els.peekWords.hidden = !open;
}

/** The meter hidden or shown as this browser last chose. */
export function restoreChanceChoice() {
  let kept = null;
  try {
    kept = window.localStorage.getItem(HIDDEN_KEY);
  } catch {
    // storage turned off: the meter shows, and a choice lasts as long as the page
  }
  markHidden(kept === "true");
}

/** The Hide button (then named Show your chance): the meter goes, and no estimate is asked,
 * until it is pressed again. */
export function toggleChanceHidden() {
  markHidden(!ui.chance.hidden);
  try {
    window.localStorage.setItem(HIDDEN_KEY, String(ui.chance.hidden));
  } catch {
    // storage turned off: nothing to keep it in
  }
  if (ui.chance.hidden) hideChance();
  else if (!acting() && !ui.run) showChance(); // else it is asked when they end
}
