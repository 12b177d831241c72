// A live table seen from one seat (docs/api.md#live-tables). The server numbers seats from the
// host's, 0; each device draws its own seat where seat 0 sits at one device, at the bottom, named
// "You", and the others in turn after it. Everything the server sends is turned to the device's
// order here, and a seat the device names is turned back: pure functions, nothing else in the
// page knows a live table's seats are turned.

/** The turn of a table of `players` seen from server seat `you` (null: a watcher sees the
 * server's own order). `local(seat)` and `server(place)` are each other's inverse. */
export function turnFor(you, players) {
  const by = you ?? 0;
  return {
    by,
    local: (seat) => (seat === null ? null : (seat - by + players) % players),
    server: (place) => (place === null ? null : (place + by) % players),
  };
}

/** A list by server seat, as the device orders it. */
export function turnList(turn, list) {
  if (!list) return list;
  return list.map((_, place) => list[turn.server(place)]);
}

const turnSeats = (turn, seats) => (seats ?? []).map((seat) => turn.local(seat));

/** A battle record, turned: its steps' cards, the short seats, the winner and the counts. */
export function turnBattle(turn, battle) {
  if (!battle) return battle;
  return {
    ...battle,
    steps: battle.steps.map((step) => ({
      ...step,
      up: turnList(turn, step.up),
      down: turnList(turn, step.down),
      short: turnSeats(turn, step.short),
    })),
    winner: turn.local(battle.winner),
    counts: turnList(turn, battle.counts),
    outcome: battle.outcome && { ...battle.outcome, winner: turn.local(battle.outcome.winner) },
  };
}

/**
 * The seats as the table names them, in the device's order: each `{kind, name}`, the name the
 * person sat down with (or the default for a seat not yet taken), "You" for the device's own.
 * `defaultName(kind, seat)` gives a seat's default by its server number.
 */
export function namedSeats(turn, tableSeats, you, defaultName) {
  const named = tableSeats.map((seat, index) => ({
    kind: seat.kind,
    name: index === you ? "You" : seat.name || defaultName(seat.kind, index),
  }));
  return turnList(turn, named);
}

/** The round, turned, with the table's own seats and an id the page can key its moments by
 * (a live table's round has none: no message carries it). */
export function turnRound(turn, round, seats, matchId) {
  return {
    ...round,
    id: `live-${round.seed}`,
    match_id: matchId,
    counts: turnList(turn, round.counts),
    out_at: turnList(turn, round.out_at),
    seats,
    outcome: round.outcome && { ...round.outcome, winner: turn.local(round.outcome.winner) },
  };
}

/** The match, turned, with an id the round points at; its last round is the round in play. */
export function turnMatch(turn, match, seats, roundId) {
  if (!match) return null;
  const rounds = match.rounds.map((entry, i) => ({
    ...entry,
    winner: turn.local(entry.winner),
    ...(i === match.rounds.length - 1 ? { id: roundId } : {}),
  }));
  return {
    ...match,
    id: `live-match-${match.seed}`,
    rounds,
    score: turnList(turn, match.score),
    leader: turn.local(match.leader),
    winner: turn.local(match.winner),
    seats,
  };
}
