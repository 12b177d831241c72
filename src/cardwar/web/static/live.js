// A live table (docs/api.md#live-tables): people each on their own device at one table. This
// device's socket to it, what the table says over it, and what this device asks of it. The
// table's messages are turned to this device's seat order (live-seats.js) and put in the state
// as the table at one device puts its own: the same drawing, words, sounds and moments.
import { act, skipAnimation } from "./act.js";
import { ApiError, api } from "./api.js";
import { askConfirm } from "./confirm.js";
import { $ } from "./dom.js";
import { namedSeats, turnBattle, turnFor, turnList, turnMatch, turnRound } from "./live-seats.js";
import { arrivalWords, hostOnlyWords, seatStates } from "./live-words.js";
import { RUN_TEMPO, landPlayed } from "./play.js";
import { dealing, load } from "./rounds.js";
import { defaultSeatName, learnSeats } from "./seats.js";
import { sound } from "./sound.js";
import { dispatch, enter, moving, state, ui } from "./state.js";
import { announce, controls, flipsKey } from "./table.js";
import { view } from "./update.js";

const els = {
  bar: $("live-bar"),
  held: $("held-bar"),
  heldTitle: $("held-title"),
  sit: $("live-sit"),
  matches: $("matches-tally"),
  board: $("won").closest(".scoreboard"),
  title: $("live-title"),
  link: $("live-link"),
  invite: $("live-invite"),
  leave: $("live-leave"),
  hostOnly: $("host-only"),
  reactions: $("reactions"),
  together: $("together-row"),
  table: $("table"),
};

// Tries again after 1 s, then 2, 4 and 8, then every 15 s (a test may shorten them).
export const retry = { firstMs: 1000, mostMs: 15000 };
// A word now and then, so that nothing between closes a quiet socket; a socket that has said
// nothing for `answerMs` after one is given up on: a phone that lost its network may keep a
// socket that is open but silent for minutes, its flips going nowhere (a test may shorten them).
export const ping = { everyMs: 25000, answerMs: 15000 };
const REACTION_MS = 2500; // how long a reaction shows on its seat
const REACT_EVERY_MS = 1000; // the table takes one reaction a second from each person
const NO_TABLE = "No table has this link: it may be cut short, or its table was closed long ago. Press Leave to go back to your own table.";

let socket = null; // the socket this device has open to the table, or null
let tries = 0;
let retryTimer = 0;
let pingTimer = 0;
let answerTimer = 0; // running from a ping until the socket next says anything
let inbox = Promise.resolve(); // the table's messages, handled one after another, in order
const reactionTimers = new Map();
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

function setLive(part) {
  dispatch({ type: "live", live: part });
}

/** Send `message` to the table; false when this device is not in touch with it. */
function send(message) {
  if (socket?.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(message));
  return true;
}

function connect() {
  clearTimeout(retryTimer);
  retryTimer = 0;
  const live = state.live;
  if (!live || ["closed", "gone"].includes(live.link)) return;
  const ws = new WebSocket(socketUrl(live));
  socket = ws;
  // Not a word from it within `ping.answerMs` (not even its welcome): given up on, and tried again.
  clearTimeout(answerTimer);
  answerTimer = setTimeout(() => ws === socket && dropSocket(), ping.answerMs);
  ws.addEventListener("message", (event) => {
    if (ws === socket) {
      clearTimeout(answerTimer);
      answerTimer = 0;
    }
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return; // not the table's: nothing it says is anything but JSON
    }
    inbox = inbox.then(() => (ws === socket ? receive(message) : null)).catch(report);
  });
  ws.addEventListener("close", (event) => {
    if (ws === socket) dropSocket(event.code);
  });
}

/** This device is out of touch with the table (its socket closed, silent, or the browser
 * offline): it shows so, and tries again by itself. */
function dropSocket(code = 1006) {
  const ws = socket;
  if (ws === null) return;
  socket = null;
  clearInterval(pingTimer);
  clearTimeout(answerTimer);
  answerTimer = 0;
  ws.close(); // a silent socket's own close may take minutes: it is not waited for
  inbox = inbox.then(() => lostSocket(code)).catch(report);
}

/** The browser says it is offline: the socket is given up on now, not after its silence. */
export function offlineNow() {
  if (state.live?.link === "open") dropSocket();
}

function pingNow() {
  if (!send({ type: "ping" }) || answerTimer) return;
  const ws = socket;
  answerTimer = setTimeout(() => ws === socket && dropSocket(), ping.answerMs);
}

function report(error) {
  if (!(error instanceof ApiError)) throw error;
  dispatch({ type: "failed", error: error.message });
}

/** The socket closed: the table is gone (closed, or no table has the code), or this device
 * lost touch with it and tries again by itself. */
function lostSocket(code) {
  const live = state.live;
  if (!live || ["closed", "gone"].includes(live.link)) return;
  if (code === 4410) {
    setLive({ link: "closed", reason: live.reason ?? "host" });
    announce("This table has closed.");
    return;
  }
  if (code === 4404) {
    setLive({ link: "gone", reason: NO_TABLE });
    if (!state.round) dispatch({ type: "failed", error: NO_TABLE }); // no table to show: the caption says why
    return;
  }
  setLive({ link: "lost" });
  if (tries === 0) announce("Reconnecting…");
  retryTimer = setTimeout(connect, Math.min(retry.firstMs * 2 ** tries, retry.mostMs));
  tries += 1;
}

/** Try again at once while out of touch (the browser back online, the page shown again). */
export function reconnectNow() {
  if (state.live?.link === "lost" && socket === null) connect();
}

/** What the table says, turned to this device's order and put on the page. */
async function receive(message) {
  const live = state.live;
  if (!live) return;
  switch (message.type) {
    case "welcome":
      setLive({ you: message.you.seat, host: message.you.host });
      return;
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
      seatChanged(message);
      return;
    case "away":
    case "back":
      awayOrBack(message);
      return;
    case "reaction":
      reacted(message);
      return;
    case "closed":
      setLive({ link: "closed", reason: message.reason });
      announce("This table has closed.");
      return;
    case "error":
      dispatch({ type: "failed", error: message.message });
      announce(message.message);
      return;
    default: // pong, and anything a newer server says that this page does not know
  }
}

/** The seats as the table names them, in this device's order, from the server's. */
function seatsOf(live, serverSeats) {
  const players = serverSeats.length;
  const named = namedSeats(live.turn, serverSeats, live.you, (kind, seat) => defaultSeatName(kind, seat, players));
  const seats = turnList(live.turn, serverSeats).map((seat, place) => ({ ...seat, name: named[place].name }));
  return { named, seats };
}

/** The whole table: on joining, on coming back, and when the host deals the next round. */
async function tableArrived(message) {
  const was = state.live;
  const players = message.rules.players;
  const turn = turnFor(was.you, players);
  const base = { ...was, turn, serverSeats: message.seats, watch: message.watch, clockS: message.clock_s,
    giveAfterMs: message.give_after_s * 1000 };
  const { named, seats } = seatsOf(base, message.seats);
  const matchId = message.match ? `live-match-${message.match.seed}` : null;
  const round = turnRound(turn, message.round, named, matchId);
  const match = turnMatch(turn, message.match, named, round.id);
  const now = performance.now();
  const back = was.link === "lost";
  const first = !was.shown; // the first table this page is shown of it
  tries = 0;
  clearInterval(pingTimer);
  pingTimer = setInterval(pingNow, ping.everyMs);
  setLive({
    ...base,
    link: "open",
    seats,
    flipped: message.flipped.map(turn.local),
    waiting: message.waiting.map(turn.local),
    deadline: message.clock_left_s === null ? null : now + message.clock_left_s * 1000,
    awaySince: Object.fromEntries(seats.flatMap((seat, place) => (seat.away ? [[place, now]] : []))),
    late: null,
    shown: true,
  });
  keepFlips();
  showTally(message.tally);
  if (message.event === "dealt") {
    await act(async () => {
      enter("dealing");
      dispatch({ type: "dealt", round, match });
      return dealing;
    });
    return;
  }
  if (moving()) skipAnimation();
  await ui.action.done;
  dispatch({
    type: "loaded",
    round,
    lastBattle: turnBattle(turn, message.last_battle),
    scoreboard: state.scoreboard,
    houseRules: state.houseRules,
    match,
    info: state.info,
    fresh: first,
  });
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

/** The seats that have turned, as play.js's flips: Turn cards waits once yours is in. */
function keepFlips() {
  const round = state.round;
  if (round) ui.flips = { key: flipsKey(round), done: new Set(state.live.flipped) };
}

function flipped(message) {
  const live = state.live;
  const place = live.turn.local(message.seat);
  const deadline = live.deadline ?? (live.clockS === null ? null : performance.now() + live.clockS * 1000);
  if (place !== 0 || live.you === null) sound("flip"); // your own sounded as you pressed
  setLive({ flipped: [...new Set([...live.flipped, place])], waiting: message.waiting.map(live.turn.local), deadline });
  keepFlips();
  announce(view(state).message);
}

/** Battles played at the table: the same battle on every device, told and sounded the same. */
async function played(message) {
  const live = state.live;
  const turn = live.turn;
  // A press while the last battle lands skips it: this one is shown whole.
  if (moving()) skipAnimation();
  await ui.action.done;
  const before = state.round.counts;
  const round = turnRound(turn, message.round, state.round.seats, state.round.match_id);
  const battles = message.battles.map((battle) => turnBattle(turn, battle));
  setLive({ flipped: [], waiting: [], deadline: null, late: message.late.length > 0 ? message.late.map(turn.local) : null });
  keepFlips();
  if (message.tally) setLive({ tally: message.tally });
  const match = message.match ? turnMatch(turn, message.match, state.round.seats, round.id) : null;
  const tempo = message.played > 1 ? RUN_TEMPO : 1;
  await act(async () => {
    if (match) dispatch({ type: "matched", match });
    return landPlayed({ round, battles }, before, tempo, { ended: scoreAgain });
  });
}

/** Once a round ends: the scoreboard, from the table's tally the round's message brought. */
const scoreAgain = async () => showTally(state.live?.tally);

/**
 * At a live table the scoreboard is the table's (docs/api.md#the-table-a-device-is-shown):
 * your own rounds at it, by the name you sat down with, and each person's tally by name; a
 * watcher sees the tally alone. Back at one device, the browser's own comes back (GET /api/me).
 */
function showTally(tally) {
  if (!tally) return;
  const live = state.live;
  setLive({ tally });
  const name = live.you === null ? null : live.serverSeats[live.you]?.name?.toLowerCase();
  const mine = tally.find((person) => person.name.toLowerCase() === name) ?? { won: 0, lost: 0, drawn: 0 };
  dispatch({
    type: "scored",
    scoreboard: { won: mine.won, lost: mine.lost, drawn: mine.drawn, matches_won: 0, matches_lost: 0, people: tally },
  });
}

function seatChanged(message) {
  const live = state.live;
  const place = live.turn.local(message.seat);
  const left = message.type === "left";
  const serverSeats = live.serverSeats.map((seat, index) => (index === message.seat
    ? { ...seat, kind: message.type === "given" ? "computer" : "person", name: left ? "" : message.name, taken: ["seated", "reclaimed"].includes(message.type), away: false }
    : seat));
  const awaySince = { ...live.awaySince };
  delete awaySince[place];
  const { named, seats } = seatsOf(live, serverSeats);
  setLive({ serverSeats, seats, awaySince, waiting: live.waiting.filter((seat) => seat !== place || !left) });
  if (state.round) dispatch({ type: "refreshed", round: { ...state.round, seats: named } });
  if (state.match) dispatch({ type: "matched", match: { ...state.match, seats: named } });
  const name = named[place].name;
  let words;
  if (message.type === "given") words = `${name} plays that seat now.`;
  else if (message.type === "reclaimed") words = `${name} took their seat back from the computer.`;
  else if (left) words = `${message.name} left the table: the seat is free.`;
  else words = place === 0 && live.you !== null ? `You sat down as ${message.name}.` : `${name} sat down.`;
  dispatch({ type: "noted", note: words });
  announce(words);
}

function awayOrBack(message) {
  const live = state.live;
  const place = live.turn.local(message.seat);
  const away = message.type === "away";
  const serverSeats = live.serverSeats.map((seat, index) => (index === message.seat ? { ...seat, away } : seat));
  const awaySince = { ...live.awaySince };
  if (away) awaySince[place] = performance.now();
  else delete awaySince[place];
  setLive({ serverSeats, seats: seatsOf(live, serverSeats).seats, awaySince });
  if (place === 0 && live.you !== null) return; // your own: the table you came back to says so
  const name = state.live.seats[place].name;
  const words = away ? `${name} lost touch: the seat waits for them.` : `${name} is back.`;
  dispatch({ type: "noted", note: words });
  announce(words);
}

function reacted(message) {
  const place = state.live.turn.local(message.seat);
  const shown = els.table.querySelector(`.reaction[data-seat="${place}"]`);
  if (!shown) return;
  shown.textContent = message.emoji;
  shown.hidden = false;
  shown.classList.remove("pop");
  void shown.offsetWidth; // the pop plays again for a second reaction
  shown.classList.add("pop");
  clearTimeout(reactionTimers.get(place));
  reactionTimers.set(place, setTimeout(() => { shown.hidden = true; }, REACTION_MS));
}

// -- what this device asks of the table ---------------------------------------------------------

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
  const waiting = live.waiting.length > 0 ? live.waiting.filter((place) => place !== 0) : [];
  setLive({ flipped: [...live.flipped, 0], waiting });
  keepFlips();
}

/** Put `words` in the caption as a note, and read them out. */
function note(words) {
  dispatch({ type: "noted", note: words });
  announce(words);
}

/** Play 10 battles, or to the end (`toEnd`): the host's at a live table. */
export function livePlay(toEnd) {
  const live = state.live;
  if (!live || live.link !== "open") return;
  if (!live.host) {
    note(hostOnlyWords(live, view(state).names));
    return;
  }
  if (!state.round || state.round.outcome) return;
  send({ type: "play", to_end: toEnd });
}

/** New round (and the result's Play again or Next round): the host deals the next round once
 * this one is over. */
export function liveNext() {
  const live = state.live;
  if (!live || live.link !== "open") return;
  if (!live.host) {
    note(hostOnlyWords(live, view(state).names));
    return;
  }
  if (state.round && state.round.outcome === null) {
    note("This round is still being played: Play to end finishes it, then you deal the next.");
    return;
  }
  send({ type: "next" });
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

// -- joining and leaving ------------------------------------------------------------------------

/** At a live table from now: `live` holds its codes, this browser's seat there and how it
 * arrived (`arrival`: live-words.js's arrivalWords). */
export function sitAt(live, table = null) {
  socket?.close(1000);
  socket = null;
  tries = 0;
  const players = (table?.rules ?? { players: 2 }).players;
  dispatch({ type: "live", live: null });
  setLive({
    code: null, watch: null, you: null, host: false, link: "connecting", reason: null,
    turn: turnFor(live.you ?? null, players), serverSeats: [], seats: [], flipped: [], waiting: [],
    clockS: null, deadline: null, awaySince: {}, late: null, giveAfterMs: Infinity, shown: false,
    arrival: "opened", ...live,
  });
  const url = live.code ? `/?table=${encodeURIComponent(live.code)}` : `/?watch=${encodeURIComponent(live.watch)}`;
  window.history.replaceState(null, "", url); // a reload comes back to the table
  connect();
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
    const closed = error.status === 410;
    const words = closed ? "This table has closed. Press Leave to go back to your own table." : NO_TABLE;
    dispatch({ type: "live", live: { code, link: closed ? "closed" : "gone", reason: words, seats: [], flipped: [], waiting: [], you: null, host: false, turn: turnFor(null, 2) } });
    dispatch({ type: "failed", error: words }); // no table to show: the caption says why
    return null;
  }
  const arrival = seen.you.seat === null ? "watching" : "returning";
  sitAt({ code, watch: seen.table.watch, you: seen.you.seat, host: seen.you.host, invite: seen.invite, arrival }, seen.table);
  if (seen.you.seat === null) joining.ask?.(seen);
  return null;
}

/** Where invite.js asks a visitor for a seat (set there, to keep this module free of dialogs). */
export const joining = { ask: null };

/** Leave the table for this device's own: the host is asked first, and closes it for everyone. */
export async function leaveTable() {
  const live = state.live;
  if (!live) return;
  const question = leaveQuestion(live);
  if (question && !(await askConfirm({ opener: els.leave, no: "Keep playing", ...question }))) return;
  if (live.link === "open" && live.you !== null) send({ type: live.host ? "close" : "leave" });
  const closing = socket;
  socket = null;
  closing?.close(1000);
  clearTimeout(retryTimer);
  clearInterval(pingTimer);
  clearTimeout(answerTimer);
  answerTimer = 0;
  dispatch({ type: "live", live: null });
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

/** A watcher with the invite's code takes a free seat: the join dialog (invite.js). */
export async function takeSeat() {
  const code = state.live?.code;
  if (!code) return;
  const seen = await api("GET", `/api/tables/${encodeURIComponent(code)}`).catch(() => null);
  if (seen) joining.ask?.(seen);
}

// -- drawing ------------------------------------------------------------------------------------

const LINK_WORDS = { connecting: "Connecting…", open: "", lost: "Reconnecting…", closed: "Closed", gone: "Not found" };

/** The live bar, each seat's state and the buttons only the host has; after table.js's drawer. */
export function drawLive(shown) {
  const live = state.live;
  const held = !live && state.held?.length > 0 ? state.held : [];
  els.bar.hidden = !live;
  els.held.hidden = held.length === 0;
  els.together.hidden = Boolean(live);
  els.hostOnly.hidden = !live || (live.host && live.you !== null);
  els.reactions.hidden = !live || live.you === null || live.link !== "open";
  document.body.classList.toggle("at-live-table", Boolean(live) || held.length > 0);
  const guest = Boolean(live) && !live.host;
  for (const button of [controls.ten, controls.auto, controls.deal]) button.hidden = guest;
  els.board.setAttribute("aria-label", live ? "Your rounds at this table" : "Your rounds");
  if (!live) {
    for (const status of els.table.querySelectorAll(".seat-status")) status.hidden = true;
    controls.deal.disabled = false;
    controls.again.hidden = false;
    if (held.length > 0) els.heldTitle.textContent = heldWords(held);
    return;
  }
  const names = shown.ready ? shown.names : [];
  const host = live.turn && names.length > 0 ? names[live.turn.local(0)] : "";
  if (!shown.ready) els.title.textContent = "Live table"; // not reached, or no such table
  else if (live.you === null) els.title.textContent = `Watching ${host}'s table`;
  else els.title.textContent = live.host ? "Your live table" : `${host}'s table`;
  els.link.textContent = LINK_WORDS[live.link] ?? "";
  els.bar.dataset.link = live.link;
  els.invite.hidden = !live.code || !["open", "lost"].includes(live.link);
  const free = live.seats?.some((seat) => seat.kind === "person" && !seat.taken) ?? false;
  els.sit.hidden = !(live.code && live.you === null && live.link === "open" && free);
  els.leave.textContent = live.host && live.link === "open" ? "Close table" : "Leave";
  els.leave.classList.toggle("primary", ["closed", "gone"].includes(live.link));
  els.matches.hidden = true; // the table's scoreboard counts rounds by name (showTally)
  if (shown.ready && !els.hostOnly.hidden) els.hostOnly.textContent = hostOnlyWords(live, names);
  const open = live.link === "open";
  const going = shown.ready && shown.outcome === null;
  controls.deal.disabled = guest || !open || going; // the next round, once this one is over
  controls.turn.disabled ||= live.you === null;
  controls.again.hidden = guest;
  if (!open) for (const button of Object.values(controls)) button.setAttribute("aria-disabled", "true");
  // Turned already, or a watcher's: no pile here to turn.
  if (live.you === null || live.flipped?.includes(0)) els.table.querySelector(".pile-hint").hidden = true;
  drawSeatStates();
}

/** Each seat's state on the table ("Ready", "Reconnecting…"), with the host's button to give a
 * free or long-away seat to the computer; called by the page's clock too. */
export function drawSeatStates() {
  const live = state.live;
  if (!live?.seats) return;
  const states = seatStates(live, performance.now());
  els.table.querySelectorAll(".seat-status").forEach((box) => {
    const place = Number(box.dataset.seat);
    const seatState = states[place] ?? null;
    box.hidden = seatState === null;
    if (seatState === null) return;
    box.dataset.state = seatState.text.split(" ")[0].replace("…", "").toLowerCase();
    const text = box.querySelector("span") ?? document.createElement("span");
    text.textContent = seatState.text;
    if (!text.isConnected) box.prepend(text);
    let give = box.querySelector("button");
    if (seatState.give && !give) {
      give = document.createElement("button");
      give.type = "button";
      give.className = "quiet small give";
      give.dataset.give = String(place);
      give.textContent = "Let the computer play";
      box.append(give);
    } else if (!seatState.give && give) {
      give.remove();
    }
  });
}

/** The held bar's words: "Your live table with Mia is still open." */
function heldWords(held) {
  const [latest] = held;
  const others = latest.names.filter((name, seat) => name && seat !== 0);
  const withWhom = others.length > 0 ? ` with ${others.join(", ")}` : "";
  const which = latest.host ? "Your live table" : `${latest.names[0]}'s table`;
  const more = held.length > 1 ? ` (and ${held.length - 1} more)` : "";
  return `${which}${withWhom} is still open${more}.`;
}
