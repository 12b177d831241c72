// The chance to win from here: asked after each action, shown under the controls.
import { ApiError, api } from "./api.js";
import { chanceWords } from "./charts.js";
import { $ } from "./dom.js";
import { seatNames } from "./render.js";
import { state, ui } from "./state.js";

const els = {
  chance: $("chance"),
  value: $("chance-value"),
  fill: $("chance-fill"),
  words: $("chance-words"),
};

/** Hide the chance, and any answer on its way. */
export function hideChance() {
  ui.chance.asked += 1;
  els.chance.hidden = true;
}

export async function showChance() {
  const round = state.round;
  const asked = ++ui.chance.asked;
  if (!round || round.outcome !== null || round.counts[0] === 0) {
    els.chance.hidden = true;
    return;
  }
  let chance;
  try {
    chance = await api("GET", `/api/rounds/${encodeURIComponent(round.id)}/chance`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (asked === ui.chance.asked) els.chance.hidden = true; // no estimate is no harm
    return;
  }
  if (asked !== ui.chance.asked || state.round?.id !== round.id) return; // a later one is on its way
  const words = chanceWords(chance, seatNames(round.rules.players));
  els.value.textContent = words.value;
  els.fill.style.width = words.value;
  els.words.textContent = words.sentence;
  els.chance.hidden = false;
}
