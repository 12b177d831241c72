// The page's state in one place: `state`, the game as the server told it (changed only by
// dispatch, through render.js's pure update), and `ui`, what the page itself is doing.
import { update, view } from "./render.js";

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
};

export const ui = {
  frozen: false, // act.js, play.js: while battles play out, only the controls follow the state
  // act.js: phase is idle, request or animation; `waiting`, a press waits for the animation.
  action: { running: false, phase: "idle", done: Promise.resolve(), waiting: false, skip: false },
  auto: { on: false, stop: false, quiet: false, wake: null }, // auto.js: Play to end
  // play.js: a war Play to end paused on (its battle, the counts before it, the step declared);
  // the table shows it part-played while `frozen` stays set.
  held: null,
  flips: { key: null, done: new Set() }, // play.js: who has flipped for the battle at `key`
  endShown: null, // act.js: the round whose end the table has shown (and celebrated)
  celebrating: false, // act.js: a celebration has the keys until it is over
  clock: { source: null, deadline: 0, asked: false }, // clock.js: the round counted down
  confirm: { settle: null, opener: null }, // confirm.js: answers the question being asked
  chance: { asked: 0, hidden: false }, // chance.js: only the latest ask is shown; hidden by choice
  drawnRules: null, // table.js: the rules the rules line and the guide show
  story: { roundId: null, data: null }, // round-end.js
  // house-panel.js: the limit offered again when "No battle limit" is unticked; the draws check,
  // one estimate at a time (`drawsLine`); what "At the battle limit" was before 3 players set it.
  house: { lastLimit: 500, saving: Promise.resolve(true), drawsAsked: 0, drawsTimer: 0, draws: new Map(),
    drawsLine: Promise.resolve(), outcomeBefore: null },
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
}
