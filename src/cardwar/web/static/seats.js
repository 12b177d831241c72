// Who sits at the table, and what the page calls each seat. The seat model is the server's
// (GET /api/rules, `seats`: how many seats the house rules keep, the longest name, the default
// seats and each seat's default name; docs/api.md#people-at-the-table); `learnSeats` is told it
// once at load, and from then on these are pure functions.

let model = null;

/** Keep the server's seat model (`seats` of GET /api/rules). */
export function learnSeats(seats) {
  model = seats;
}

function known() {
  if (model === null) throw new Error("the seat model is not loaded: learnSeats(info.seats) comes first");
  return model;
}

/** Seats the house rules keep, whatever the players: switching 2 to 3 players keeps a name. */
export const seatCount = () => known().count;

/** The longest name a seat may have, in letters. */
export const nameMax = () => known().name_max;

/** The house rules' seats as they are until chosen: you, then the computers. */
export const defaultSeats = () => known().default;

/** What a seat is called when its name is left empty ("You", "Computer 2", "Player 3"). */
export function defaultSeatName(kind, seat, players) {
  const names = known().default_names[players]?.[kind];
  if (!names || seat >= names.length) throw new Error(`no seat ${seat} of kind ${kind} at a table of ${players}`);
  return names[seat];
}

/** The seats of a round, `{kind, name}` each with its name filled in, as docs/api.md#the-round
 * gives them (`defaultSeatName` says what an unnamed seat is called). Without `seats` (a round from
 * before seats were kept), you against computers. */
export function tableSeats(players, seats = null) {
  return Array.from({ length: players }, (_, seat) => {
    const given = seats?.[seat];
    const kind = seat === 0 || given?.kind === "person" ? "person" : "computer";
    return { kind, name: given?.name?.trim() || defaultSeatName(kind, seat, players) };
  });
}

/** Seat names in a sentence: "You", "the computer" (Computer 1-3 at a bigger table), or the name
 * a person gave. */
export function seatNames(players, seats = null) {
  return seatWords(tableSeats(players, seats), players).names;
}

/** Seat names on the table itself: "You", "Computer", "Computer 1" … "Computer 3", or a name. */
export function seatLabels(players, seats = null) {
  return seatWords(tableSeats(players, seats), players).labels;
}

/** The seats a person plays (seat 0 always), in seat order. */
export function peopleAt(players, seats = null) {
  return tableSeats(players, seats).flatMap(({ kind }, seat) => (kind === "person" ? [seat] : []));
}

/** The seats in play at a table of `players`, each name filled in (trimmed, or the default). */
export function seatsInPlay(seats, players) {
  return seats.slice(0, players).map(({ kind, name }, seat) => (
    { kind, name: name.trim() || defaultSeatName(kind, seat, players) }));
}

/** What the page calls each seat of a round (its `seats`, or the defaults for `players`):
 * `labels` on the table ("You", "Computer", "Mia") and `names` in its sentences ("You",
 * "the computer", "Mia"). */
export function seatWords(seats, players) {
  const labels = (seats ?? seatsInPlay(defaultSeats(), players)).map((seat) => seat.name);
  const names = labels.map((label, seat) => (
    players === 2 && seat > 0 && seats?.[seat]?.kind !== "person" && label === "Computer" ? "the computer" : label));
  return { labels, names };
}

// Tabs, line breaks and the other invisible control characters: no name may hold one.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** The seats' names checked as the server checks them: a Map from seat to what is wrong with
 * its name, said to a person. Of two seats with the same name (case aside), the one `changed`
 * last is told, else the later one. */
export function checkSeats(seats, players, changed = null) {
  const problems = new Map();
  const filled = seatsInPlay(seats, players);
  const bySame = new Map();
  filled.forEach(({ name }, seat) => {
    if (CONTROL.test(name)) {
      problems.set(seat, "A name can hold letters, digits, spaces and marks, but no tabs or line breaks.");
    } else if ([...name].length > nameMax()) { // letters as the server counts them, not UTF-16 halves
      problems.set(seat, `A name can be at most ${nameMax()} letters long.`);
    }
    const key = name.toLowerCase();
    bySame.set(key, [...(bySame.get(key) ?? []), seat]);
  });
  for (const group of bySame.values()) {
    if (group.length < 2) continue;
    const keeper = group.find((seat) => seat !== changed);
    for (const seat of group) {
      if (seat === keeper || problems.has(seat)) continue;
      problems.set(seat, keeper === 0
        ? "That is your name already: give this seat another name."
        : `Seat ${keeper + 1} is called \u201c${filled[keeper].name}\u201d already: give this seat another name.`);
    }
  }
  return problems;
}

/** True when two lists of seats say the same: the same kinds and names, in the same order. */
export function sameSeats(a, b) {
  return a.length === b.length && a.every((seat, i) => seat.kind === b[i].kind && seat.name === b[i].name);
}
