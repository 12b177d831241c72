// Turn cards, Play 10 battles and each person's flip: battles asked of the server, then shown one
// by one, the words and sounds following the cards as they move.
import { act, press, skipAnimation } from "./act.js";
import { api } from "./api.js";
import { laidBySeat } from "./battle.js";
import { liveFlip, livePlay } from "./live-asks.js";
import { afterRoundEnds, load } from "./rounds.js";
import { buzz, sound } from "./sound.js";
import { acting, dispatch, enter, moving, state, ui } from "./state.js";
import { announce, controls, drawField, flipButton, flipsKey, say, showBattleNumber, stage } from "./table.js";
import { battleNumber, describeBattle, flipWords, tellTurn, tellWar } from "./tell.js";
import { view } from "./update.js";

export const RUN_TEMPO = 0.35; // a run of battles shows each at about a third of the time
// Play to end's speeds as the time each battle takes (null: landed at once, no animation); at a
// live table every device shows the host's.
export const SPEED_TEMPO = { slow: 2.2, normal: 1, fast: RUN_TEMPO, instant: null };

/** The seats a person plays who still hold cards, at the table in play. */
export function peopleIn() {
  const round = state.round;
  if (!round || round.outcome) return [];
  return view(state).people.filter((seat) => round.counts[seat] > 0);
}

/**
 * Play `count` battles and show them at `tempo` (null: land them at once, no animation).
 * `name` is the control a failure asks to press again; `run` is Play to end's ("new", then
 * "more"); `holdAtWar` stops the animation where a war is declared (Pause on wars). A run of
 * battles begun while a person is still in stops at the battle that puts the last of them out
 * (`stop_when_out`, docs/api.md#play-battles): at a bigger table the others would play on.
 */
export function play(count, button, tempo = count > 1 ? RUN_TEMPO : 1, { name, run, holdAtWar = false } = {}) {
  if (state.live) return livePlay(); // the host's, at a live table
  return act(async () => {
    if (!state.info) return load();
    if (!state.round || state.round.outcome) return null;
    const before = state.round.counts;
    const body = count > 1 && state.round.rules.players > 2 && peopleIn().length > 0 ? { count, stop_when_out: true } : { count };
    const result = await api("POST", `/api/rounds/${encodeURIComponent(state.round.id)}/battles`, body);
    return landPlayed(result, before, tempo, { run, holdAtWar: holdAtWar && count === 1 });
  }, button, { name });
}

/**
 * Battles played (`result`: the round after them and their records), put in the state from
 * `before` (the counts before them); returns their animation at `tempo`, or null. `ended` is
 * asked once the round ends, or as you run out of cards (lost then and there at a bigger
 * table): the scoreboard and the match. A live table's battles come this way too (live.js).
 */
export async function landPlayed(result, before, tempo, { run, holdAtWar = false, ended = afterRoundEnds } = {}) {
  // The table stays as it was, and the words too, until the battles are shown.
  const shows = result.battles.length > 0 && tempo !== null;
  if (shows) enter("showing");
  dispatch({ type: "played", round: result.round, battles: result.battles, run });
  if (result.round.outcome || (result.round.counts[0] === 0 && before[0] > 0)) await ended();
  if (!shows) return null;
  return () => showBattles(result.battles, before, tempo, holdAtWar);
}

/** What the table says and sounds as `battle` plays: each step as it turns, "War!" as a war is
 * declared, the result as it lands. */
function telling(battle, names) {
  return {
    onTurn: (step) => {
      say(tellTurn(battle, step, names));
      sound("flip");
    },
    onWar: (step) => {
      say(tellWar(battle, step, names));
      sound("war");
      buzz();
    },
    onLand: () => say(describeBattle(battle, names)),
    onSweep: () => sound("sweep"),
  };
}

/** Show `battles` one after another from the pile `counts` before them; the final table is drawn
 * when they are done. A battle held at its war (Pause on wars) stays part-played: phase held. */
async function showBattles(battles, counts, tempo, holdAtWar) {
  const { players } = state.round.rules;
  const { names } = view(state);
  let before = counts;
  for (const battle of battles) {
    if (ui.action.skip) break;
    drawField(laidBySeat(battle, players), battle.winner);
    showBattleNumber(battleNumber({ ...state.round, battles: battle.number, outcome: null }));
    const hooks = telling(battle, names);
    const ended = await stage.battle(battle, before, tempo, hooks, { holdAt: holdAtWar ? 1 : null });
    if (ended === "held") {
      ui.war = { battle, before, step: 1 };
      enter("held");
      say(`${tellWar(battle, 1, names)} Paused on this war: press Play to end to go on. Turn cards shows who wins it.`);
      return;
    }
    before = battle.counts;
  }
}

/** Play on the war Play to end paused on, at `tempo`: its deciding cards turn, its result lands. */
export function finishWar(button, tempo = 1, { name } = {}) {
  return act(async () => {
    const held = ui.war;
    if (ui.phase !== "held") return null;
    ui.war = null;
    enter("showing"); // the table stays frozen until the war has landed
    const { names } = view(state);
    return () => stage.battle(held.battle, held.before, tempo, telling(held.battle, names), { resumeAt: held.step });
  }, button, { name, resume: true });
}

/** Turn cards: your own flip when people share the table, else one battle. */
export function turnCards(button) {
  if (state.live) return liveFlip();
  if (ui.phase === "held") return finishWar(button);
  const round = state.round;
  if (round && !round.outcome && round.counts[0] > 0 && view(state).people.length > 1) return flip(0, button);
  return play(1, button);
}

/**
 * Seat `seat`'s person flips. The battle is played once every person still in has flipped (the
 * computers flip at once); until then the table says who it waits for.
 */
export async function flip(seat, button) {
  if (ui.phase === "held") return finishWar(button);
  if (moving()) { // the last battle lands first: this flip is for the next
    skipAnimation();
    await ui.action.done;
  }
  if (acting()) return; // a request is on its way: a press never doubles it
  const round = state.round;
  if (!round || round.outcome || round.counts[seat] === 0) return;
  const shown = view(state);
  const waitingFor = shown.people.filter((person) => round.counts[person] > 0);
  const key = flipsKey(round);
  if (ui.flips.key !== key) ui.flips = { key, done: new Set() };
  ui.flips.done.add(seat);
  const waiting = waitingFor.filter((person) => !ui.flips.done.has(person));
  if (waiting.length === 0) return play(1, button);
  sound("flip");
  const flipped = waitingFor.filter((person) => ui.flips.done.has(person));
  const words = flipWords(flipped, waiting, shown.names);
  dispatch({ type: "noted", note: words });
  announce(words);
}

/** A tap or a click on seat `seat`'s pile: that person's flip, as their Flip button (Turn cards
 * when you are the only person at the table). Another seat's pile, or one out, does nothing. */
export function tapPile(seat) {
  const shown = view(state);
  if (!shown.ready || shown.outcome || !shown.people.includes(seat) || shown.out[seat]) return;
  if (shown.people.length === 1) {
    press(controls.turn, () => turnCards(controls.turn))();
    return;
  }
  const button = flipButton(seat);
  if (button) press(button, () => flip(seat, button))();
}
