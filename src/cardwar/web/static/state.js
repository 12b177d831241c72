// The page's state in one place: `state`, the game as the server told it (changed only by
// dispatch, through update.js's pure update), and `ui`, what the page itself is doing.
import { update, view } from "./update.js";

export let state = {
  round: null,
  lastBattle: null,
  battles: [],
  scoreboard: { won: 0, lost: 0, drawn: 0, matches_won: 0, matches_lost: 0 },
  houseRules: null,
  match: null,
  origin: null,
  note: null,
  info: null,
  busy: false,
  resumed: false,
  error: null,
  unreachable: false, // the server could not be reached: offline.js tries again until it answers
  live: null, // a live table (live-update.js), in this device's seat order; null at one device
  held: [], // the open live tables where this browser holds a seat (GET /api/me's `tables`)
};

/**
 * The page is in one phase at a time, `ui.phase`; act.js and play.js move it with `enter`:
 *
 *   idle         waiting for a press
 *   asking       a request is on its way: a press does nothing (a request is never doubled)
 *   dealing      the deal's cards fly out over the table, which is drawn; a press skips them
 *   showing      battles play out: the table draws only its controls until they have landed,
 *                and a press skips them, then acts
 *   held         Play to end paused on a war (`ui.war`), shown part-played: the table still
 *                draws only its controls, and a press lands the war or plays it on
 *   celebrating  a celebration has the keys until it is over
 *
 * Play to end is not a phase: it is a run of presses, each going through asking and showing as
 * any press does; `ui.run` is that run while it lasts, null otherwise.
 */
export const PHASES = Object.freeze(["idle", "asking", "dealing", "showing", "held", "celebrating"]);

export function enter(phase) {
  if (!PHASES.includes(phase)) throw new Error(`unknown phase: ${phase}`);
  ui.phase = phase;
}

/** The table draws only its controls: battles are playing out, or a war is held. */
export const frozen = () => ui.phase === "showing" || ui.phase === "held";

/** Cards move over the table: a press skips them to their end. */
export const moving = () => ui.phase === "dealing" || ui.phase === "showing";

/** An action is under way: its request, or the cards it brought. */
export const acting = () => ui.phase === "asking" || moving();

export const ui = {
  phase: "idle",
  // act.js: the action under way ends with `done`; `waiting`, a press waits for its cards to
  // land; `skip`, a press asked for them to land at once.
  action: { done: Promise.resolve(), waiting: false, skip: false },
  run: null, // auto.js: Play to end while it runs, {stop, quiet, wake}
  war: null, // play.js: in phase held, the war (its battle, the counts before it, the step declared)
  flips: { key: null, done: new Set() }, // play.js: who has flipped for the battle at `key`
  endShown: null, // act.js: the round whose end the table has shown (and celebrated)
  clock: { source: null, deadline: 0, asked: false }, // clock.js: the round counted down
  confirm: { settle: null, opener: null }, // confirm.js: answers the question being asked
  chance: { asked: 0, hidden: false }, // chance.js: only the latest ask is shown; hidden by choice
  // simulator.js: ready unless the server says it is not (a first start prepares it for `seconds`)
  simulator: { ready: true, seconds: 20 },
  drawnRules: null, // table.js: the rules the rules line and the guide show
  story: { roundId: null, data: null }, // round-end.js
  // house-panel.js: the limit offered again when "No battle limit" is unticked; the draws check,
  // one estimate at a time (`drawsLine`); the fields a bigger table `set`, and what they were `before`.
  house: { lastLimit: 500, saving: Promise.resolve(true), drawsAsked: 0, drawsTimer: 0, draws: new Map(),
    drawsLine: Promise.resolve(), table: { before: {}, set: {} } },
  replay: { round: null, number: 1, asked: 0, cache: new Map(), opener: null }, // replay.js
};

const drawers = [];

/** Have `drawer(view(state))` called at every draw, in the order added. */
export function onDraw(drawer) {
  drawers.push(drawer);
}

export function draw() {
  const shown = view(state);
  for (const drawer of drawers) drawer(shown);
}

export function dispatch(message) {
  state = update(state, message);
  draw();
  for (const wait of waits.filter(({ holds }) => holds(state))) {
    waits.splice(waits.indexOf(wait), 1);
    wait.resolve();
  }
}

const waits = [];

/** Resolves once `holds(state)` is true: at once if it is now, else after the change that
 * makes it so (a press made while the page still loads waits for what it needs). */
export function until(holds) {
  if (holds(state)) return Promise.resolve();
  return new Promise((resolve) => waits.push({ holds, resolve }));
}
