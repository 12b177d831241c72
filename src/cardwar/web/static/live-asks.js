// What this device asks of a live table (docs/api.md#live-tables): sitting at it, its turn, the
// host's buttons, a reaction, a seat given to the computer. Each is sent over the table's socket
// (live-socket.js); what the table then says comes back through live.js.
import { skipAnimation } from "./act.js";
import { ApiError, api } from "./api.js";
import { openSocket, send } from "./live-socket.js";
import { hostOnlyWords } from "./live-words.js";
import { learnSeats } from "./seats.js";
import { sound } from "./sound.js";
import { dispatch, moving, state, ui } from "./state.js";
import { announce } from "./table.js";
import { view } from "./update.js";

const REACT_EVERY_MS = 1000; // the table takes one reaction a second from each person

let reactedAt = -Infinity;

/** The socket's address: a person's (or a visitor's, who then watches) by the invite code, or
 * a watcher's by the watch code. */
function socketUrl(live) {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const path = live.code
    ? `/api/tables/${encodeURIComponent(live.code)}/live`
    : `/api/watch/${encodeURIComponent(live.watch)}/live`;
  return `${scheme}://${window.location.host}${path}`;
}

/** Put `words` in the caption as a note, and read them out. */
function note(words) {
  dispatch({ type: "noted", note: words });
  announce(words);
}

/** Your turn at a live table (Turn cards, Space, T, a tap on your pile): the battle plays once
 * everyone still in has turned. */
export async function liveFlip() {
  if (moving()) { // the last battle lands first: this turn is for the next
    skipAnimation();
    await ui.action.done;
  }
  const live = state.live;
  const round = state.round;
  if (!live || live.link !== "open" || !round || round.outcome) return;
  if (live.you === null) {
    note("You are watching: only the people at the table turn its cards.");
    return;
  }
  if (round.counts[0] === 0) {
    note("You are out of cards this round: the others play on.");
    return;
  }
  if (live.flipped.includes(0)) return;
  if (!send({ type: "flip", battle: round.battles + 1 })) return;
  sound("flip");
  dispatch({ type: "live/flip" });
}

/** Play 10 battles: the host's at a live table (Play to end plays battle by battle, auto.js). */
export function livePlay() {
  const live = state.live;
  if (!live || live.link !== "open") return;
  if (!live.host) {
    note(hostOnlyWords(live, view(state).names));
    return;
  }
  if (!state.round || state.round.outcome) return;
  send({ type: "play", count: 10 });
}

/** The host's page waits here for the battles it asked for (`tag`: the number it sent, which
 * the table tells back with them): live.js settles it once they have been shown (true), or the
 * table refused them or cannot be reached (false). */
export const landing = { settle: null, tag: 0 };

/** The host asks the table for battles (`battles`: their `count`, `speed`); true once they have been
 * shown on this device, false if they could not be played (the host-only words said). */
export function livePlayed(battles) {
  const live = state.live;
  if (!live || live.link !== "open" || !state.round || state.round.outcome) return Promise.resolve(false);
  if (!live.host) {
    note(hostOnlyWords(live, view(state).names));
    return Promise.resolve(false);
  }
  landing.settle?.(false);
  landing.tag = (landing.tag + 1) % 2 ** 31;
  return new Promise((resolve) => {
    landing.settle = (shown) => {
      landing.settle = null;
      resolve(shown);
    };
    if (!send({ type: "play", ...battles, tag: landing.tag })) landing.settle(false);
  });
}

/** New round (and the result's Play again or Next round): the host deals the next round once
 * this one is over; a guest asks the host for it. */
export function liveNext() {
  const live = state.live;
  if (!live || live.link !== "open") return;
  if (!live.host) {
    if (live.you !== null && state.round?.outcome && !live.asked.includes(0)) send({ type: "again" });
    else note(hostOnlyWords(live, view(state).names));
    return;
  }
  if (state.round && state.round.outcome === null) {
    note("This round is still being played: Play to end finishes it, then you deal the next.");
    return;
  }
  send({ type: "next" });
}

/** The host deals the table's next round by the house rules `chosen` (their preset, rules and
 * match length), for everyone; at once (`abandon`) while a round is played, left unfinished. */
export function liveDeal(chosen, abandon) {
  const { preset, rules, best_of: bestOf } = chosen;
  send({ type: "next", preset: preset ?? "classic", rules: preset ? null : rules, best_of: bestOf, abandon });
}

/** A reaction, shown on your seat on every device. */
export function react(emoji) {
  const now = performance.now();
  if (state.live?.you === null || now - reactedAt < REACT_EVERY_MS) return; // the table takes one a second
  if (send({ type: "react", emoji })) reactedAt = now;
}

/** The host gives seat `place` (this device's order) to the computer. */
export function giveSeat(place) {
  const live = state.live;
  if (live?.host) send({ type: "give", seat: live.turn.server(place) });
}

// -- sitting down -------------------------------------------------------------------------------

/** At a live table from now: `live` holds its codes, this browser's seat there and how it
 * arrived (`arrival`: live-words.js's arrivalWords). */
export function sitAt(live, table = null) {
  dispatch({ type: "live/sat", live, players: (table?.rules ?? { players: 2 }).players });
  const url = live.code ? `/?table=${encodeURIComponent(live.code)}` : `/?watch=${encodeURIComponent(live.watch)}`;
  window.history.replaceState(null, "", url); // a reload comes back to the table
  openSocket(socketUrl(state.live));
}

/** The page opened at an invite link (`?table=`) or a watch link (`?watch=`): the table behind,
 * and for a browser with no seat there, the question of a seat and a name (invite.js). */
export async function joinLive(me, info, asked) {
  learnSeats(info.seats);
  dispatch({ type: "loaded", round: null, lastBattle: null, scoreboard: me.scoreboard, houseRules: me.house_rules, match: null, info });
  const watch = asked.get("watch");
  if (watch !== null) {
    sitAt({ watch, you: null, arrival: "watching" });
    return null;
  }
  const code = asked.get("table");
  let seen;
  try {
    seen = await api("GET", `/api/tables/${encodeURIComponent(code)}`);
  } catch (error) {
    if (!(error instanceof ApiError) || ![404, 410, 422].includes(error.status)) throw error;
    // No table to show: the page says so in its place (live-draw.js), and offers a table of one's own.
    const closed = error.status === 410;
    dispatch({ type: "live/sat", live: { code, link: closed ? "closed" : "gone", reason: closed ? "before" : null }, players: 2 });
    return null;
  }
  const arrival = seen.you.seat === null ? "watching" : "returning";
  sitAt({ code, watch: seen.table.watch, you: seen.you.seat, host: seen.you.host, invite: seen.invite, arrival }, seen.table);
  if (seen.you.seat === null) joining.ask?.(seen);
  return null;
}

/** Where invite.js asks a visitor for a seat (set there, to keep this module free of dialogs). */
export const joining = { ask: null };

/** A watcher with the invite's code takes a free seat: the join dialog (invite.js). */
export async function takeSeat() {
  const code = state.live?.code;
  if (!code) return;
  const seen = await api("GET", `/api/tables/${encodeURIComponent(code)}`).catch(() => null);
  if (seen) joining.ask?.(seen);
}
