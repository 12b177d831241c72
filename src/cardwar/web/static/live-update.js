// A live table's part of the reducer (docs/api.md#live-tables): what the table says, and what
// this device does there, as messages of the one reducer. update.js hands every `live/…` message
// here. Pure functions: each message carries all it needs (the time it came, `now`, too), and the
// state's `live` part is in this device's seat order (live-seats.js).
import { namedSeats, turnBattle, turnFor, turnList, turnMatch, turnRound } from "./live-seats.js";
import { defaultSeatName } from "./seats.js";

/** A live table as this device has it before the table has said a word. */
const FRESH = Object.freeze({
  code: null, watch: null, you: null, host: false, link: "connecting", reason: null, serverSeats: [], seats: [],
  flipped: [], waiting: [], clockS: null, deadline: null, awaySince: {}, late: null, giveAfterMs: Infinity,
  shown: false, arrival: "opened", tally: null, reactions: {}, asked: [],
});

/** The state after a `live/…` message; an unknown one is a bug. */
export function liveUpdate(state, message) {
  if (message.type === "live/sat") return { ...state, live: sat(message) };
  if (message.type === "live/quit") return { ...state, live: null };
  const live = state.live;
  if (!live) throw new Error(`${message.type} with no live table`);
  const place = live.turn.local(message.seat ?? null); // the seat a message names, in this device's order
  const at = (part) => ({ ...state, live: { ...live, ...part } });
  switch (message.type) {
    case "live/welcome": // who this device is at the table
      return at({ you: message.you, host: message.host });
    case "live/table": // the whole table: on joining, on coming back, and at each deal
      return at(tableArrived(live, message.table, message.now));
    case "live/flipped": {
      const deadline = live.deadline ?? (live.clockS === null ? null : message.now + live.clockS * 1000);
      return at({ flipped: [...new Set([...live.flipped, place])], waiting: message.waiting.map(live.turn.local), deadline });
    }
    case "live/flip": // this device's own turn, sent
      return at({ flipped: [...live.flipped, 0], waiting: live.waiting.filter((seat) => seat !== 0) });
    case "live/played": // the battles themselves come as the reducer's "played" (play.js's landPlayed)
      return at({ flipped: [], waiting: [], deadline: null, late: message.late.length > 0 ? message.late.map(live.turn.local) : null,
        tally: message.tally ?? live.tally });
    case "live/scored": // the table's tally on the scoreboard: once a round has ended, or on arrival
      return live.tally ? { ...state, scoreboard: scoreboardOf(live, live.tally) } : state;
    case "live/seated":
    case "live/given":
    case "live/reclaimed":
    case "live/left":
      return seatChanged(state, message, place);
    case "live/away":
    case "live/back":
      return at(awayOrBack(live, message, place));
    case "live/asked": { // someone asked for another round
      const name = live.seats[place]?.name ?? "";
      const host = live.seats[live.turn.local(0)]?.name ?? "";
      let note = `${name} asks ${host} for another round.`;
      if (place === 0 && live.you !== null) note = `You asked ${host} for another round: it is theirs to deal.`;
      else if (live.host) note = `${name} asks for another round: press Play again to deal it.`;
      return { ...at({ asked: [...new Set([...live.asked, place])] }), note };
    }
    case "live/reaction":
      return at({ reactions: { ...live.reactions, [place]: { emoji: message.emoji, at: message.now } } });
    case "live/reactionOver": { // a reaction's moment is over, unless another came since
      if (live.reactions[place]?.at !== message.at) return state;
      const { [place]: _, ...reactions } = live.reactions;
      return at({ reactions });
    }
    case "live/lost": // this device out of touch; the socket tries again
      return at({ link: "lost" });
    case "live/closed":
      return at({ link: "closed", reason: message.reason });
    case "live/gone": // no table has the code
      return at({ link: "gone", reason: null });
    default:
      throw new Error(`unknown message type: ${message.type}`);
  }
}

/** At a live table from now: `message.live` holds its codes, this browser's seat there and how
 * it arrived (`arrival`: live-words.js's arrivalWords); `players`, its seats as far as known. */
function sat(message) {
  return { ...FRESH, turn: turnFor(message.live.you ?? null, message.players), ...message.live };
}

/** The seats as the table names them, in this device's order, from the server's. */
function seatsOf(live, serverSeats) {
  const players = serverSeats.length;
  const named = namedSeats(live.turn, serverSeats, live.you, (kind, seat) => defaultSeatName(kind, seat, players));
  const seats = turnList(live.turn, serverSeats).map((seat, place) => ({ ...seat, name: named[place].name }));
  return { named, seats };
}

function tableArrived(live, table, now) {
  const turn = turnFor(live.you, table.rules.players);
  const base = { ...live, turn, serverSeats: table.seats, watch: table.watch, clockS: table.clock_s,
    giveAfterMs: table.give_after_s * 1000 };
  const { seats } = seatsOf(base, table.seats);
  return {
    ...base,
    link: "open",
    seats,
    flipped: table.flipped.map(turn.local),
    waiting: table.waiting.map(turn.local),
    deadline: table.clock_left_s === null ? null : now + table.clock_left_s * 1000,
    awaySince: Object.fromEntries(seats.flatMap((seat, place) => (seat.away ? [[place, now]] : []))),
    late: null,
    shown: true,
    tally: table.tally ?? live.tally,
    asked: (table.asked ?? []).map(turn.local),
  };
}

/** The round, its match and its last battle that the table's whole message (`table`) shows,
 * turned to this device's order: for the reducer's "loaded" or "dealt", once `live/table` is in. */
export function tableRound(live, table) {
  const { named } = seatsOf(live, table.seats);
  const matchId = table.match ? `live-match-${table.match.seed}` : null;
  const round = turnRound(live.turn, table.round, named, matchId);
  return { round, match: turnMatch(live.turn, table.match, named, round.id), lastBattle: turnBattle(live.turn, table.last_battle) };
}

/** The battles of the table's "played" message, turned to this device's order: the round after
 * them, their records and the match, for play.js's landPlayed and the reducer's "matched". */
export function playedRound(state, played) {
  const turn = state.live.turn;
  const round = turnRound(turn, played.round, state.round.seats, state.round.match_id);
  const match = played.match ? turnMatch(turn, played.match, state.round.seats, round.id) : null;
  return { round, battles: played.battles.map((battle) => turnBattle(turn, battle)), match };
}

/**
 * At a live table the scoreboard is the table's (docs/api.md#the-table-a-device-is-shown): your
 * own rounds at it, by the name you sat down with, and each person's tally by name; a watcher
 * sees the tally alone. Back at one device, the browser's own comes back (GET /api/me).
 */
function scoreboardOf(live, tally) {
  const name = live.you === null ? null : live.serverSeats[live.you]?.name?.toLowerCase();
  const mine = tally.find((person) => person.name.toLowerCase() === name) ?? { won: 0, lost: 0, drawn: 0 };
  return { won: mine.won, lost: mine.lost, drawn: mine.drawn, matches_won: 0, matches_lost: 0, people: tally };
}

/** A seat taken, given to the computer, taken back or left: the seats, the round's and the
 * match's names, and the caption saying so. */
function seatChanged(state, message, place) {
  const live = state.live;
  const left = message.type === "live/left";
  const kind = message.type === "live/given" ? "computer" : "person";
  const taken = ["live/seated", "live/reclaimed"].includes(message.type);
  const serverSeats = live.serverSeats.map((seat, index) => (index === message.seat
    ? { ...seat, kind, name: left ? "" : message.name, taken, away: false }
    : seat));
  const { [place]: _, ...awaySince } = live.awaySince;
  const { named, seats } = seatsOf(live, serverSeats);
  const name = named[place].name;
  let note;
  if (message.type === "live/given") note = `${name} plays that seat now.`;
  else if (message.type === "live/reclaimed") note = `${name} took their seat back from the computer.`;
  else if (left) note = `${message.name} left the table: the seat is free.`;
  else note = place === 0 && live.you !== null ? `You sat down as ${message.name}.` : `${name} sat down.`;
  return {
    ...state,
    live: { ...live, serverSeats, seats, awaySince, waiting: live.waiting.filter((seat) => seat !== place || !left) },
    round: state.round && { ...state.round, seats: named },
    match: state.match && { ...state.match, seats: named },
    note,
  };
}

/** Someone lost touch with the table, or is back: their seat says so (and the caption while the
 * table waits for them), never the caption in place of the last battle's words. */
function awayOrBack(live, message, place) {
  const away = message.type === "live/away";
  const serverSeats = live.serverSeats.map((seat, index) => (index === message.seat ? { ...seat, away } : seat));
  const { [place]: _, ...awaySince } = live.awaySince;
  if (away) awaySince[place] = message.now;
  return { serverSeats, seats: seatsOf(live, serverSeats).seats, awaySince };
}
