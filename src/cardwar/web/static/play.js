// Turn cards and Play 10 battles: battles asked of the server, then shown one by one.
import { act } from "./act.js";
import { api } from "./api.js";
import { battleNumber, laidBySeat } from "./render.js";
import { afterRoundEnds, load } from "./rounds.js";
import { dispatch, state, ui } from "./state.js";
import { drawField, say, showBattleNumber, stage } from "./table.js";

export const RUN_TEMPO = 0.35; // a run of battles shows each at about a third of the time

/** Play `count` battles and show them at `tempo` (null: land them at once, no animation). */
export function play(count, button, tempo = count > 1 ? RUN_TEMPO : 1) {
  return act(async () => {
    if (!state.info) return load();
    if (!state.round || state.round.outcome) return null;
    const before = state.round.counts;
    const result = await api("POST", `/api/rounds/${encodeURIComponent(state.round.id)}/battles`, { count });
    // The table stays as it was, and the words too, until the battles have been shown.
    ui.frozen = result.battles.length > 0 && tempo !== null;
    dispatch({ type: "played", round: result.round, battles: result.battles });
    // Once a round ends, or as you run out of cards (lost then and there at a bigger table).
    if (result.round.outcome || (result.round.counts[0] === 0 && before[0] > 0)) await afterRoundEnds();
    if (!ui.frozen) return null;
    return () => showBattles(result.battles, before, tempo);
  }, button);
}

/** Show `battles` one after another from the pile `counts` before them; the words and the
 * final table are drawn when they are done. */
async function showBattles(battles, counts, tempo) {
  const { players } = state.round.rules;
  if (battles.length > 1) say(`Playing battles ${battles[0].number}–${battles.at(-1).number}…`);
  let before = counts;
  for (const battle of battles) {
    if (ui.action.skip) break;
    drawField(laidBySeat(battle, players), battle.winner);
    showBattleNumber(battleNumber({ ...state.round, battles: battle.number, outcome: null }));
    await stage.battle(battle, before, tempo);
    before = battle.counts;
  }
}
