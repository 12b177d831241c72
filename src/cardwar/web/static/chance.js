// The chance to win from here: asked after each battle, shown under the controls with the reason
// for it, unless this browser chose to hide it (then nothing is asked).
import { ApiError, api } from "./api.js";
import { chanceWords } from "./charts.js";
import { $ } from "./dom.js";
import { seatWords } from "./seats.js";
import { acting, state, ui } from "./state.js";

const els = {
  chance: $("chance"),
  value: $("chance-value"),
  fill: $("chance-fill"),
  words: $("chance-words"),
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
  if (ui.chance.hidden || !round || round.outcome !== null || round.battles === 0 || round.counts[0] === 0) {
    els.chance.hidden = true;
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
  const words = chanceWords(chance, seatWords(round.seats, round.rules.players).names);
  els.value.textContent = words.value;
  els.fill.style.width = words.value;
  els.words.textContent = words.sentence;
  els.chance.hidden = false;
}

function markHidden(hidden) {
  ui.chance.hidden = hidden;
  els.hide?.setAttribute("aria-pressed", String(hidden));
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

/** The Hide button: the meter goes, and no estimate is asked, until it is pressed again. */
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
