// The page's reducer and its view: `update` gives the state after a message, `view` everything
// the page shows as plain data. Pure functions; state.js holds the state and calls them, and the
// drawers (table.js and the others) put the view on the page.
import { laidBySeat } from "./battle.js";
import { guideText } from "./house.js";
import { liveUpdate } from "./live-update.js";
import { lateWords, linkWords, roundOverWords, waitingWords } from "./live-words.js";
import { peopleAt, seatLabels, seatNames } from "./seats.js";
import {
  battleNumber,
  describeBattle,
  describeOutcome,
  describeRun,
  freshDeal,
  joinRuns,
  matchAfterRound,
  matchLine,
  matchOutcome,
  OTHERS_PLAY_ON,
  tallyRun,
} from "./tell.js";

/** The state after a message; every message has a `type`, and an unknown type is a bug. A live
 * table's messages (`live/…`: what the table says, and what this device does there) are
 * live-update.js's. */
export function update(state, message) {
  if (message.type.startsWith("live/")) return liveUpdate(state, message);
  switch (message.type) {
    case "loaded":
      return {
        ...state,
        round: message.round,
        lastBattle: message.lastBattle,
        scoreboard: message.scoreboard,
        houseRules: message.houseRules,
        info: message.info,
        match: message.match ?? null,
        held: message.held ?? state.held ?? [],
        battles: [],
        run: null,
        running: false,
        stopped: false,
        resumed: message.round !== null && !message.fresh, // fresh: a table this page just joined
        clockRang: false,
        note: null,
        error: null,
        unreachable: false,
      };
    case "dealt":
      return {
        ...state,
        round: message.round,
        match: message.match === undefined ? state.match : message.match,
        origin: message.origin ?? null,
        lastBattle: null,
        battles: [],
        run: null,
        running: false,
        stopped: false,
        resumed: false,
        clockRang: false,
        note: null,
        error: null,
      };
    case "matched":
      return { ...state, match: message.match };
    case "timeUp":
      return { ...state, round: message.round, battles: [], clockRang: true, resumed: false, note: null, error: null };
    case "refreshed":
      return { ...state, round: message.round };
    case "noted":
      return { ...state, note: message.note };
    case "played": {
      // `run`: "new" for Play to end's first request, "more" for each after it; its battles add up.
      const lastBattle = message.battles.length > 0 ? message.battles.at(-1) : state.lastBattle;
      const clockRang = message.battles.length === 0 && message.round.outcome !== null;
      const played = tallyRun(message.battles, message.round.rules.players);
      const run = message.run === "more" ? joinRuns(state.run, played) : played;
      return {
        ...state,
        round: message.round,
        lastBattle,
        battles: message.battles,
        run,
        running: Boolean(message.run),
        stopped: false,
        resumed: false,
        clockRang,
        note: null,
        error: null,
      };
    }
    case "ranOut": // Play to end is over: `stopped` when a press stopped it part-way
      return { ...state, running: false, stopped: message.stopped };
    case "chosen":
      return { ...state, houseRules: message.houseRules };
    case "scored":
      return { ...state, scoreboard: message.scoreboard };
    case "busy":
      return { ...state, busy: message.busy };
    case "failed": // the server answered, refusing: it can be reached
      return { ...state, error: message.error, unreachable: false };
    case "unreachable": // the server cannot be reached: the table stays as it was (offline.js)
      return { ...state, error: message.error, unreachable: true };
    default:
      throw new Error(`unknown message type: ${message.type}`);
  }
}

/** What a fresh deal at a live table asks of this device. */
const livePress = (live) => (live.you === null
  ? "The cards turn once everyone at the table has turned."
  : "Each of you turns on your own screen: press Turn cards, and the cards turn once everyone has.");

/** True when these battles (`run`) put the last person at the table out while the computers
 * play on: runs stop there (play.js), and the table says what can be pressed now. */
function lastPersonOut(round, run, people) {
  const wentOut = run?.out.some((seat) => people.includes(seat)) ?? false;
  return wentOut && round.outcome === null && people.every((seat) => round.counts[seat] === 0);
}

/** Everything the page shows, as plain data, derived from the state alone. */
export function view(state) {
  const round = state.round;
  if (!round) {
    // With no table to show, none is made up: no counts, and no deal while none is on its way.
    const message = state.error ?? "Dealing the cards…";
    return {
      ready: false,
      message,
      error: Boolean(state.error),
      announce: message,
      battleNumber: state.error ? "Waiting for the game" : "Dealing…",
    };
  }
  const rules = round.rules;
  const names = seatNames(rules.players, round.seats);
  const over = round.outcome !== null;
  const battles = state.battles ?? [];
  const last = state.lastBattle ?? null;
  const match = state.match ?? null;
  const inMatch = match !== null && round.match_id === match.id;
  const afterMatch = inMatch && over ? matchAfterRound(match, round, names) : null;
  const run = state.run ?? null;
  const live = state.live ?? null;
  const liveSaid = live && (linkWords(live) ?? (over ? null : waitingWords(live, names)));
  let message;
  if (state.error) message = state.error;
  else if (liveSaid) message = liveSaid;
  else if (state.note) message = state.note;
  else if (battles.length > 0 && state.stopped) {
    message = `${describeRun(run, names, { last: false, outAt: round.out_at })} Stopped at battle ${round.battles}. Press Play to end to go on, or Turn cards for one battle.`;
  } else if (battles.length > 0) {
    // While Play to end turns battle by battle, each is told as it lands; its whole run after.
    message = state.running && battles.length === 1 ? describeBattle(battles[0], names) : describeRun(run, names, { outAt: round.out_at });
    if (lastPersonOut(round, run, peopleAt(rules.players, round.seats))) message += ` ${OTHERS_PLAY_ON}`;
    if (live) message = `${lateWords(live.late, names)}${message}${over ? ` ${roundOverWords(live, names, afterMatch, inMatch ? match : null)}` : ""}`;
  } else if (live && over) message = roundOverWords(live, names, afterMatch, inMatch ? match : null);
  else if (round.battles === 0 && !over) message = freshDeal(round, state.origin, inMatch ? match : null, live && livePress(live));
  else if (over && ["time_up", "most_cards_tie"].includes(round.outcome.reason) && state.clockRang) message = `Time is up, so the cards were counted. ${afterMatch ? afterMatch.message : "Press Play again for a new deal."}`;
  else if (afterMatch) message = afterMatch.message;
  else if (over && match && !match.over) message = "This round is over. Press New round to go back to your match.";
  else if (over) message = "This round is over. Press Play again for a new deal.";
  else if (state.resumed) message = `Welcome back: your round goes on after battle ${round.battles}.`;
  else message = last ? describeBattle(last, names) : `Your round goes on after battle ${round.battles}.`;
  const youOut = !over && round.counts[0] === 0;
  const roundOutcome = over ? describeOutcome(round.outcome, names, round) : null;
  return {
    ready: true,
    youOut,
    players: rules.players,
    names,
    labels: seatLabels(rules.players, round.seats),
    // At a live table only this device's own seat is turned from here (none for a watcher).
    people: live ? (live.you === null ? [] : [0]) : peopleAt(rules.players, round.seats),
    counts: round.counts,
    out: round.counts.map((count) => count === 0),
    battleNumber: battleNumber(round),
    message,
    error: Boolean(state.error),
    announce: battles.length > 0 ? `${battleNumber(round)}. ${message}` : message,
    laid: last ? laidBySeat(last, rules.players) : names.map(() => []),
    winner: last ? last.winner : null,
    roundOutcome,
    // The one result of a round over, and its main button: the match's next round, or again.
    outcome: roundOutcome && {
      ...matchOutcome(roundOutcome, afterMatch),
      again: inMatch && !match.over ? "Next round" : "Play again",
    },
    matchLine: match ? matchLine(match, seatLabels(match.rules.players, match.seats), inMatch) : null,
    guide: guideText(rules),
  };
}
