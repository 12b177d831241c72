// What a live table says that a table at one device never does (docs/api.md#live-tables): who
// it waits for, the connection, the host's buttons, each seat's state. Pure functions of the
// state's `live` part (live-update.js keeps it, in the device's own seat order) and the seats' names.
import { capital, joinAnd, them, you } from "./words.js";

/** The host's name as the others call it ("Ann"), or "the host" when it is this device's. */
export const hostName = (live, names) => {
  const place = live.turn.local(0);
  return you(names[place]) ? "you" : names[place];
};

/** The caption while someone has turned for the next battle and others have not. */
export function waitingWords(live, names) {
  const { flipped, waiting } = live;
  if (flipped.length === 0 || waiting.length === 0) return null;
  const waited = joinAnd(waiting.map((place) => them(names[place])));
  const away = waiting.filter((place) => live.seats[place]?.away).map((place) => names[place]);
  const until = live.clockS === null
    ? `the table waits for ${away.length === 1 ? "them" : "them all"} to come back`
    : "the clock turns for them until they are back";
  const gone = away.length === 0 ? "" : ` ${joinAnd(away)} lost touch: ${until}.`;
  if (flipped.includes(0) && live.you !== null) return `Waiting for ${waited}…${gone}`;
  const ready = flipped.map((place) => names[place]);
  const are = ready.length === 1 ? "is" : "are";
  if (waiting.includes(0) && live.you !== null) return `${capital(joinAnd(ready))} ${are} ready: your turn. Press Turn cards.`;
  return `${capital(joinAnd(ready))} ${are} ready. Waiting for ${waited}.${gone}`;
}

/** What the page says once the table has ended for this device, in place of the table: it
 * closed (`reason`: "host", "idle", or "before": closed when this device came), or no table has
 * the link (`gone`). `host`: the host's name, when known. */
export function endedWords(live, host) {
  if (live.link === "gone") {
    return { title: "No table at this link", text: "The link may be cut short, or its table closed long ago. Ask for a new invite, or play on your own." };
  }
  const who = host ? `${host}'s table` : "This table";
  if (live.reason === "idle") return { title: `${who} has closed`, text: "Nobody played at it for an hour. The rounds played at it still count." };
  if (live.reason === "host") return { title: `${who} has closed`, text: `${host || "Its host"} closed it. The rounds played at it still count.` };
  return { title: "This table has closed", text: "Ask for a new invite, or play on your own." };
}

/** The caption while this device is out of touch with the table, or after it has closed; null
 * while it is in touch. */
export function linkWords(live) {
  switch (live.link) {
    case "lost":
      return "Reconnecting… Your seat is kept, and the table goes on from where it is once this device is back.";
    case "closed":
      if (live.reason === "idle") return "This table has closed: nobody played at it for an hour.";
      if (live.reason === "host") return "This table has closed: its host closed it.";
      return "This table has closed.";
    case "gone":
      return "No table has this link.";
    default:
      return null;
  }
}

/** What the caption says once a round at a live table is over: the match's standing, and who
 * deals next (the host; this device when it is the host's). */
export function roundOverWords(live, names, afterMatch, match) {
  const host = hostName(live, names);
  const ends = afterMatch?.ends ? `${afterMatch.ends} ` : "";
  if (!live.host) return `${ends}${capital(host)} deals the next round.`;
  if (match && !match.over) return `${ends}Press Next round for round ${match.rounds.length + 1} of the best of ${match.best_of}.`;
  return `${ends}Press Play again to deal again at this table.`;
}

/** Why the clock turned cards: "Time ran out for Mia, so the table turned her card." */
export function lateWords(late, names) {
  if (!late || late.length === 0) return "";
  const who = joinAnd(late.map((place) => them(names[place])));
  return late.length === 1 && late[0] === 0
    ? "Time ran out, so the table turned your card. "
    : `Time ran out for ${who}, so the table turned ${late.length === 1 ? "that card" : "their cards"}. `;
}

/** What is read out as someone at the table loses touch or is back: their seat says so, and
 * the caption keeps the last battle's words. */
export const awayWords = (name, away) => (away ? `${name} lost touch: the seat waits for them.` : `${name} is back.`);

/** What the host's buttons say to everyone else at the table. */
export function hostOnlyWords(live, names) {
  const host = capital(hostName(live, names));
  if (live.you === null) return `You are watching: the people at the table turn the cards. ${host} opened it.`;
  return `${host} opened this table: Play 10 battles, Play to end and the next round are ${host}'s.`;
}

/** What the page says as it first shows a table it joined part-way through a round (null for
 * none: a fresh deal's words say enough). `arrival`: "returning" (this browser's seat, after a
 * reload), "joined" (just sat down), "reclaimed" (its seat taken back from the computer),
 * "watching", or "opened". */
export function arrivalWords(arrival, round) {
  if (round.outcome !== null || round.battles === 0) return null;
  switch (arrival) {
    case "returning":
      return `Welcome back: the round goes on after battle ${round.battles}.`;
    case "joined":
      return `You sat down as the round stood at battle ${round.battles}: press Turn cards for the next.`;
    case "reclaimed":
      return `Your seat is yours again at battle ${round.battles}: press Turn cards for the next.`;
    case "watching":
      return `You are watching from battle ${round.battles}.`;
    default:
      return null;
  }
}

/**
 * Each seat's state, in the device's order: null for a computer's seat or this device's own,
 * else `{text, give}`: "Free seat", "Reconnecting…", "Ready", "To turn" (with the seconds the
 * clock leaves), and `give` true when the host may hand the seat to the computer now.
 */
export function seatStates(live, now) {
  return live.seats.map((seat, place) => {
    if (seat.kind !== "person") return null;
    const left = live.deadline === null ? null : Math.max(0, Math.ceil((live.deadline - now) / 1000));
    if (!seat.taken) return { text: "Free seat", give: live.host };
    if (seat.away) {
      const since = live.awaySince[place] ?? now;
      // While the table waits for them, when the clock will turn their card.
      const timed = left !== null && live.waiting.includes(place) && live.flipped.length > 0;
      return { text: timed ? `Reconnecting… · turns in ${left} s` : "Reconnecting…", give: live.host && now - since >= live.giveAfterMs };
    }
    if (place === 0 && live.you !== null) { // your own: the clock, while it runs for you
      const timed = left !== null && live.waiting.includes(0) && live.flipped.length > 0;
      return timed ? { text: `Your turn · ${left} s`, give: false } : null;
    }
    if (live.flipped.includes(place)) return { text: "Ready", give: false };
    if (live.waiting.includes(place) && live.flipped.length > 0) {
      return { text: left === null ? "To turn" : `To turn · ${left} s`, give: false };
    }
    return null;
  });
}
