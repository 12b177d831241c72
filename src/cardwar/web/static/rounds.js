// Rounds and matches: loading, dealing (the piles dealt out on the table), New round, a shared
// link, and what a round's end changes.
import { act, landHeld, skipAnimation, stopAuto } from "./act.js";
import { ApiError, api } from "./api.js";
import { askConfirm } from "./confirm.js";
import { checkChoices } from "./house.js";
import { joinLive, liveNext } from "./live-asks.js";
import { learnSeats, seatLabels } from "./seats.js";
import { readShared } from "./share.js";
import { sound } from "./sound.js";
import { dispatch, enter, moving, state, ui } from "./state.js";
import { controls, stage } from "./table.js";
import { matchScore } from "./tell.js";

/** Load this browser's round; deal a shared link's, or a fresh one if none (then returns the
 * deal to animate). */
export async function load() {
  const [me, info] = await Promise.all([api("GET", "/api/me"), api("GET", "/api/rules")]);
  const asked = new URL(window.location.href).searchParams;
  if (asked.has("table") || asked.has("watch")) return joinLive(me, info, asked); // live-asks.js
  sitDown(me, info);
  const shared = asked.get("deal");
  if (shared !== null) {
    window.history.replaceState(null, "", window.location.pathname); // a reload resumes, not re-deals
    if (await openShared(shared)) return null;
  }
  if (me.round) return null;
  const problem = state.error;
  await dealFresh();
  // A link that could not be dealt says so beside the fresh deal that stands in for it.
  if (problem) dispatch({ type: "failed", error: `${problem} Here is a fresh deal of your own instead: press Turn cards to play.` });
  return dealing;
}

/** Put the table `me` (GET /api/me's answer) and `info` (GET /api/rules's) describe on the page
 * as it stands: the server's answers, or the last ones this browser kept (offline.js). */
export function sitDown(me, info) {
  learnSeats(info.seats); // before any seat is named
  dispatch({
    type: "loaded",
    round: me.round,
    lastBattle: me.last_battle,
    scoreboard: me.scoreboard,
    houseRules: me.house_rules,
    match: me.match,
    held: me.tables ?? [],
    info,
  });
  if (me.round?.outcome) ui.endShown = me.round.id; // told before: no fanfare for it again
}

/** The round just dealt, dealt out onto the table. */
export const dealing = () => stage.deal(state.round.counts, { onCard: () => sound("flip") });

/** The people at the table as the house rules seat them, for a new round or match's body; none
 * from a server that keeps no seats (it would refuse the field). */
const seated = () => (state.houseRules?.seats ? { seats: state.houseRules.seats } : {});

/** Deal a round as the house rules say: a plain round, or the first of a new match. Its cards
 * are then dealt out on the table (`dealing`), so the words wait for them. */
async function dealFresh() {
  const { rules, best_of: bestOf } = state.houseRules;
  if (bestOf === 1) {
    const round = await api("POST", "/api/rounds", { rules, ...seated() });
    dealtOut({ type: "dealt", round, match: null });
    return;
  }
  const { round, ...match } = await api("POST", "/api/matches", { best_of: bestOf, rules, ...seated() });
  dealtOut({ type: "dealt", round, match });
}

/** Deal the next round of the match in play, to be dealt out on the table like a fresh one. */
async function dealNextInMatch() {
  const { round, ...match } = await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/rounds`);
  dealtOut({ type: "dealt", round, match });
}

/** A round dealt whose cards are about to fly out: the table says it is dealing until they
 * have landed ("A fresh deal: 26 cards each" once they have). */
function dealtOut(message) {
  enter("dealing");
  dispatch(message);
}

/** The match in play, if any: started and not yet decided. */
const matchInPlay = () => (state.match && !state.match.over ? state.match : null);

/** Deal `again` ({rules, seed, deal?}) as a fresh round of this browser's own. */
export async function dealAgain(again, origin) {
  const round = await api("POST", "/api/rounds", { ...again, ...seated() });
  dispatch({ type: "dealt", round, origin });
  focusTurn();
}

/** After a deal the player asked for, the focus is on Turn cards (the first seat's flip, which
 * Space presses too), wherever the press that dealt came from: New round, a dialog's button. */
const focusTurn = () => controls.turn.focus({ preventScroll: true });

/** Once a round has ended (or the person is out of it): the scoreboard, and its match. */
export async function afterRoundEnds() {
  const me = await api("GET", "/api/me");
  dispatch({ type: "scored", scoreboard: me.scoreboard });
  const matchId = state.round?.match_id;
  if (!matchId) return;
  // GET /api/me carries the match of the latest round: this one's, unless another tab dealt since.
  const match = me.match?.id === matchId ? me.match : await api("GET", `/api/matches/${encodeURIComponent(matchId)}`);
  dispatch({ type: "matched", match });
}

/** New round: the match's next round while a match is in play, else a fresh deal. `fresh`
 * (from House rules) always starts afresh with the rules just chosen. */
export async function newRound({ fresh = false } = {}) {
  if (state.live && !fresh) return liveNext(); // the host deals at a live table
  stopAuto({ quiet: true });
  landHeld();
  if (moving()) { // the question tells the battle the table shows
    skipAnimation();
    await ui.action.done;
  }
  const round = state.round;
  const match = matchInPlay();
  const inMatch = Boolean(match && round?.match_id === match.id);
  const going = round && round.outcome === null;
  // Out of a match's round while the computers play on: New round plays the rest at once.
  const finishFirst = inMatch && going && round.counts[0] === 0 && !fresh;
  const leavesMatch = Boolean(match && (fresh || (inMatch && going && !finishFirst)));
  const throwsAway = going && round.battles > 0 && round.counts[0] > 0;
  const asks = leavesMatch || throwsAway;
  if (asks && !(await confirmThrowAway(round, leavesMatch ? match : null))) return;
  // A request begun behind a dialog (this one, House rules) ends first: the yes is not lost to it.
  if ((asks || fresh) && ui.phase === "asking") await ui.action.done;
  await act(async () => {
    if (!state.info) return load();
    if (finishFirst) {
      const path = `/api/rounds/${encodeURIComponent(round.id)}/battles`;
      let result;
      do result = await api("POST", path, { count: 2000 });
      while (result.round.outcome === null);
      dispatch({ type: "played", round: result.round, battles: result.battles.slice(-1) });
      await afterRoundEnds();
      return null; // the round's result first; the next press deals the next round
    }
    if (match && !leavesMatch) await dealNextInMatch();
    else await dealFresh();
    focusTurn();
    return dealing;
  }, controls.deal);
}

function confirmThrowAway(round, match) {
  const labels = match ? seatLabels(match.rules.players, match.seats) : seatLabels(round.rules.players, round.seats);
  const where = round.outcome === null && round.battles > 0 ? `Your round is at battle ${round.battles}. ` : "";
  return askConfirm(match
    ? {
      opener: controls.deal,
      title: "Leave this match?",
      text: `${where}Your best of ${match.best_of} stands at ${matchScore(match, labels)}. A new deal ` +
        "ends the match, and a match left undecided does not count on the scoreboard.",
      yes: "Start a new match",
      no: "Keep the match",
    }
    : {
      opener: controls.deal,
      title: "Start a new round?",
      text: `${where}A new deal ends it, and a round left unfinished does not count on the scoreboard.`,
      yes: "Deal again",
      no: "Keep playing",
    });
}

/** Deal the deal a shared link carries, after asking when a round is under way; false when the
 * link cannot be dealt (the message says why, and the table stays as it was). */
async function openShared(token) {
  let again;
  try {
    again = readShared(token);
  } catch (error) {
    dispatch({ type: "failed", error: `That shared link cannot be dealt: ${error.message}. Your table is as it was.` });
    return false;
  }
  const { problems } = checkChoices({ ...state.info.presets.classic, ...again.rules }, state.info.fields);
  if (problems.length > 0) {
    dispatch({ type: "failed", error: `That shared link cannot be dealt: ${problems.join(" ")} Your table is as it was.` });
    return false;
  }
  const round = state.round;
  if (round && round.outcome === null && round.battles > 0 && round.counts[0] > 0) {
    const asked = {
      title: "Deal the shared deal?",
      text: `Your round is at battle ${round.battles}. The shared deal ends it, and a round left unfinished does not count on the scoreboard.`,
      yes: "Deal it",
      no: "Keep playing",
    };
    if (!(await askConfirm(asked))) return true;
  }
  try {
    await dealAgain(again, "shared");
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    dispatch({ type: "failed", error: `That shared link cannot be dealt. ${error.message}` });
    return Boolean(state.round);
  }
  return true;
}
