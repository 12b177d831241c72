// A live table (docs/api.md#live-tables): people each on their own device at one table. What the
// table says over this device's socket (live-socket.js) becomes messages of the one reducer
// (live-update.js, through update.js), and their effects follow here: sounds, words read out,
// battles and deals shown as the table at one device shows its own. Leaving, and coming back.
import { act, skipAnimation } from "./act.js";
import { ApiError } from "./api.js";
import { askConfirm } from "./confirm.js";
import { $ } from "./dom.js";
import { landing, takeSeat } from "./live-asks.js";
import { closeSocket, firstTry, listen, send, tryAgainLater } from "./live-socket.js";
import { playedRound, tableRound } from "./live-update.js";
import { arrivalWords, awayWords } from "./live-words.js";
import { RUN_TEMPO, SPEED_TEMPO, landPlayed } from "./play.js";
import { openTogether } from "./invite.js";
import { dealing, load, newRound } from "./rounds.js";
import { sound } from "./sound.js";
import { dispatch, enter, moving, state, ui } from "./state.js";
import { announce } from "./table.js";
import { view } from "./update.js";

const REACTION_MS = 2500; // how long a reaction shows on its seat
// The table's messages, handled one after another, in order: a battle's animation ends before
// the next message is put on the page. A reaction alone is never kept waiting behind it.
let inbox = Promise.resolve();

listen(hear, (code) => queue(() => lostSocket(code)));

function queue(handle) {
  inbox = inbox.then(handle).catch(report);
}

function report(error) {
  if (!(error instanceof ApiError)) throw error;
  dispatch({ type: "failed", error: error.message });
}

/** A message of the table's: a reaction shown at once (once the table's seats are known),
 * anything else in its turn. */
function hear(message) {
  if (!state.live) return;
  if (message.type === "reaction" && state.live.shown) {
    reacted(message);
    return;
  }
  queue(() => receive(message));
}

/** What the table says, put on the page. */
async function receive(message) {
  if (!state.live) return;
  switch (message.type) {
    case "welcome": {
      const seated = state.live.you !== null;
      dispatch({ type: "live/welcome", you: message.you.seat, host: message.you.host });
      // Back after the host let the computer play this seat: the seat is offered back (invite.js).
      if (seated && message.you.seat === null) takeSeat();
      return;
    }
    case "table":
      await tableArrived(message);
      return;
    case "flipped":
      flipped(message);
      return;
    case "played":
      await played(message);
      return;
    case "seated":
    case "given":
    case "reclaimed":
    case "left":
      dispatch({ type: `live/${message.type}`, seat: message.seat, name: message.name });
      announce(state.note);
      return;
    case "away":
    case "back":
      awayOrBack(message);
      return;
    case "asked":
      dispatch({ type: "live/asked", seat: message.seat });
      announce(state.note);
      return;
    case "reaction":
      reacted(message);
      return;
    case "closed":
      closed(message.reason);
      return;
    case "error":
      landing.settle?.(false); // a run of the host's stops at a refusal
      dispatch({ type: "failed", error: message.message });
      announce(message.message);
      return;
    default: // pong, and anything a newer server says that this page does not know
  }
}

/** The socket closed: the table is gone (closed, or no table has the code), or this device
 * lost touch with it and tries again by itself. */
function lostSocket(code) {
  const live = state.live;
  if (!live || ["closed", "gone"].includes(live.link)) return;
  if (code === 4410) {
    closed(live.reason ?? "host");
    return;
  }
  if (code === 4404) {
    closeSocket();
    dispatch({ type: "live/gone" });
    announce("No table has this link.");
    return;
  }
  landing.settle?.(false);
  dispatch({ type: "live/lost" });
  if (firstTry()) announce("Reconnecting…");
  tryAgainLater();
}

function closed(reason) {
  closeSocket();
  dispatch({ type: "live/closed", reason });
  announce("This table has closed.");
}

/** The whole table: on joining, on coming back, and when the host deals the next round. */
async function tableArrived(message) {
  const was = state.live;
  const back = was.link === "lost";
  const first = !was.shown; // the first table this page is shown of it
  dispatch({ type: "live/table", table: message, now: performance.now() });
  dispatch({ type: "live/scored" });
  if (message.event === "dealt") {
    await act(async () => {
      enter("dealing");
      const { round, match } = tableRound(state.live, message);
      dispatch({ type: "dealt", round, match });
      return dealing;
    });
    return;
  }
  if (moving()) skipAnimation();
  await ui.action.done;
  const { round, match, lastBattle } = tableRound(state.live, message);
  dispatch({ type: "loaded", round, lastBattle, scoreboard: state.scoreboard, houseRules: state.houseRules, match, info: state.info, fresh: first });
  if (round.outcome) ui.endShown = round.id; // told before: no fanfare for it again
  const arrived = first ? arrivalWords(state.live.arrival, round) : null;
  if (arrived) dispatch({ type: "noted", note: arrived });
  if (back) {
    const words = round.outcome === null && round.battles > 0
      ? `Back at the table: the round goes on after battle ${round.battles}.`
      : "Back at the table.";
    dispatch({ type: "noted", note: words });
    announce(words);
  }
}

function flipped(message) {
  const live = state.live;
  if (live.turn.local(message.seat) !== 0 || live.you === null) sound("flip"); // your own sounded as you pressed
  dispatch({ type: "live/flipped", seat: message.seat, waiting: message.waiting, now: performance.now() });
  announce(view(state).message);
}

/** Battles played at the table: the same battle on every device, told and sounded the same. */
async function played(message) {
  // A press while the last battle lands skips it: this one is shown whole.
  if (moving()) skipAnimation();
  await ui.action.done;
  const before = state.round.counts;
  const { round, battles, match } = playedRound(state, message);
  dispatch({ type: "live/played", late: message.late, tally: message.tally ?? null });
  // The host's run at the host's speed; else each flip's battle as it comes, many faster.
  const tempo = message.speed ? SPEED_TEMPO[message.speed] : message.played > 1 ? RUN_TEMPO : 1;
  await act(async () => {
    if (match) dispatch({ type: "matched", match });
    return landPlayed({ round, battles }, before, tempo, { ended: scoreAgain });
  });
  if (message.tag === landing.tag) landing.settle?.(true); // the host's own, asked for by its run
}

/** Once a round ends: the scoreboard, from the table's tally the round's message brought. */
const scoreAgain = async () => dispatch({ type: "live/scored" });

/** Someone lost touch, or is back: their seat says so, and the words are read out; the caption
 * keeps the last battle's words (or whom the table waits for). */
function awayOrBack(message) {
  dispatch({ type: `live/${message.type}`, seat: message.seat, now: performance.now() });
  const live = state.live;
  const place = live.turn.local(message.seat);
  if (place === 0 && live.you !== null) return; // your own: the table you came back to says so
  announce(awayWords(live.seats[place].name, message.type === "away"));
}

/** A reaction, on its seat at once (cards moving or not), for a moment. */
function reacted(message) {
  const now = performance.now();
  dispatch({ type: "live/reaction", seat: message.seat, emoji: message.emoji, now });
  setTimeout(() => state.live && dispatch({ type: "live/reactionOver", seat: message.seat, at: now }), REACTION_MS);
}

// -- leaving, and coming back -------------------------------------------------------------------

const leaveButton = $("live-leave");

/** Leave the table for this device's own: the host is asked first, and closes it for everyone. */
export async function leaveTable() {
  const live = state.live;
  if (!live) return;
  const question = leaveQuestion(live);
  if (question && !(await askConfirm({ opener: leaveButton, no: "Keep playing", ...question }))) return;
  await quit(live);
}

/** Once the table has ended for this device: back to a table of one's own, to play the
 * computer (`open`: and open a live table of one's own from there). */
export async function afterTheTable({ open = false } = {}) {
  if (!state.live) return;
  await quit(state.live);
  if (open) await openTogether();
}

/** A guest leaves the table (asked already) for a table of their own, dealt there with their
 * house rules. */
export async function leaveForOwnTable() {
  if (!state.live) return;
  await quit(state.live);
  await newRound({ fresh: true });
}

async function quit(live) {
  if (live.link === "open" && live.you !== null) send({ type: live.host ? "close" : "leave" });
  closeSocket();
  dispatch({ type: "live/quit" });
  window.history.replaceState(null, "", window.location.pathname);
  ui.endShown = null;
  await act(load);
}

/** What Leave asks first (null: nothing to ask, the table is gone or this device only watches). */
function leaveQuestion(live) {
  if (["closed", "gone"].includes(live.link) || live.you === null) return null;
  if (live.host && live.link !== "open") {
    return {
      title: "Leave your table for now?",
      text: "This device cannot reach the table, so it cannot close it: the table stays open, " +
        "and you can come back to it from the page. A table nobody plays at closes after an hour.",
      yes: "Leave for now",
    };
  }
  if (live.host) {
    return {
      title: "Close this table?",
      text: "Everyone at it is told the table has closed. The rounds played at it still count.",
      yes: "Close the table",
    };
  }
  return {
    title: "Leave this table?",
    text: "Your seat is freed: someone else may take it, or the host give it to the computer.",
    yes: "Leave the table",
  };
}

/** Back to a live table this browser holds a seat at (the page's own table meanwhile). */
export async function backToTable() {
  const held = state.held?.[0];
  if (!held) return;
  window.history.replaceState(null, "", `/?table=${encodeURIComponent(held.code)}`);
  await act(load);
}
