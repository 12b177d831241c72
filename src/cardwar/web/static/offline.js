// The game out of reach: the last table this browser saw, kept in its storage and shown as it
// stood when the server cannot be reached (after a reload too), and the page trying again by
// itself until the server answers (docs/api.md#installing).
import { act, outOfReach } from "./act.js";
import { load, sitDown } from "./rounds.js";
import { acting, dispatch, state, ui } from "./state.js";
import { announce } from "./table.js";
import { view } from "./update.js";

export const UNREACHABLE = "Can't reach the game, trying again…";

const KEY = "cardwar.last-table";
const SHAPE = 1; // what a kept table holds: a page that keeps another shape ignores this one

// Tries again after 1 s, then 2, 4 and 8, then every 15 s; at once when the browser is back
// online, the page is shown again, or a press asks for the game. (A test may lengthen the waits,
// to see the page try again at once.)
export const waits = { firstMs: 1000, mostMs: 15000 };
let tries = 0; // tries since the game was last reached
let timer = 0;

let kept = []; // the state's parts last written: only a change is written again

/** Keep the table the page shows (what GET /api/me and GET /api/rules said, as the page last
 * had them) in this browser, one table overwriting the last. Called at every draw. */
export function keepTable() {
  const { round, lastBattle, scoreboard, houseRules, match, info } = state;
  const parts = [round, lastBattle, scoreboard, houseRules, match, info];
  // A live table is the table's to tell (live.js rejoins it): only a table of this device is kept.
  if (!info || state.live || state.unreachable || parts.every((part, i) => part === kept[i])) return;
  kept = parts;
  const me = { round, last_battle: lastBattle, scoreboard, house_rules: houseRules, match };
  try {
    window.localStorage.setItem(KEY, JSON.stringify({ shape: SHAPE, at: Date.now(), me, info }));
  } catch {
    // storage turned off or full: a reload offline then has no table to show
  }
}

/** The table kept by keepTable, its clock run on by the time since; null for none, or one this
 * page cannot read. */
function lastTable() {
  let table = null;
  try {
    table = JSON.parse(window.localStorage.getItem(KEY));
  } catch {
    return null; // storage turned off, or what it holds is not ours
  }
  const round = table?.me?.round;
  if (table?.shape !== SHAPE || !round || !table.info) return null;
  if (typeof round.time_left_s === "number") {
    round.time_left_s = Math.max(0, round.time_left_s - (Date.now() - table.at) / 1000);
  }
  return table;
}

/** The game cannot be reached (act.js, for any action): the table stays as it stands, or a page
 * with none yet shows the last one kept; the page says so and tries again by itself. */
export function lostTouch() {
  if (!state.info) {
    const table = lastTable();
    if (table) sitDown(table.me, table.info);
  }
  dispatch({ type: "unreachable", error: UNREACHABLE });
  if (timer) return; // a try is due already
  timer = setTimeout(tryAgain, Math.min(waits.firstMs * 2 ** tries, waits.mostMs));
  tries += 1;
}

/** Ask the server for the table as it has it; once it answers, the page carries on from there. */
async function tryAgain() {
  clearTimeout(timer);
  timer = 0;
  while (acting()) await ui.action.done; // an action on its way ends first (it may fail again)
  if (!state.unreachable) return;
  await act(load); // failing, it calls lostTouch, which sets the next try
  if (state.unreachable) return;
  clearTimeout(timer);
  timer = 0;
  tries = 0;
  backInTouch();
}

/** Say the game is reached again, with where the table stands. */
function backInTouch() {
  const round = state.round;
  if (state.error || !round) return; // the server's own words stand
  const words = round.outcome === null && round.battles > 0
    ? `Back in touch with the game: your round goes on after battle ${round.battles}.`
    : `Back in touch with the game. ${view(state).message}`;
  dispatch({ type: "noted", note: words });
  announce(words);
}

Object.assign(outOfReach, { lost: lostTouch, refused: refusedOffline }); // act.js calls on them

/** Try again at once while the game is out of reach (the browser back online, the page shown). */
export function tryNow() {
  if (state.unreachable) tryAgain();
}

/** True when a press that needs the game is refused, since it is out of reach: the words are
 * said again, and the page tries again at once. */
export function refusedOffline() {
  if (!state.unreachable) return false;
  announce(UNREACHABLE);
  tryNow();
  return true;
}
