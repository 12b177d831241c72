// Pure functions: the game state in, words and plain data out. No DOM access, no fetch, no timers.
// The server owns the rules and the randomness; this module only tells what happened.
import { cardLabel, rankPhrase } from "./art.js";
import { defaultSeatName, guideText, seatWords } from "./house.js";
import { capital, joinAnd, plural } from "./words.js";

/** The seats of a round, `{kind, name}` each with its name filled in, as docs/api.md#the-round
 * gives them (house.js says what an unnamed seat is called). Without `seats` (a round from
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

const you = (name) => name === "You";

/**
 * What each seat laid in a battle, card by card in the order laid: `{kind: "down", letter}` or
 * `{kind: "up", code}`. A war of three face-down cards spells W-A-R on them. Once the battle is
 * won, every card but the winning one is `spent`: it has gone to the winner's pile.
 */
export function laidBySeat(battle, players) {
  const seats = Array.from({ length: players }, () => []);
  for (const step of battle.steps) {
    step.up.forEach((code, seat) => {
      const down = step.down[seat];
      const spells = down === 3 && code !== null;
      for (let i = 0; i < down; i++) seats[seat].push({ kind: "down", letter: spells ? "WAR"[i] : "", spent: false });
      if (code !== null) seats[seat].push({ kind: "up", code, spent: false });
    });
  }
  if (battle.winner !== null) {
    const mine = seats[battle.winner];
    const winning = mine.map((item) => item.kind).lastIndexOf("up");
    for (const items of seats) for (const item of items) item.spent = true;
    if (winning >= 0) mine[winning].spent = false;
  }
  return seats;
}

// How far along a seat's row each laid card sits, in card widths: a face-up card leaves room to
// read it, face-down cards overlap more. The page squeezes the row when the slot is narrower.
const AFTER_UP = 0.5;
const AFTER_DOWN = 0.34;

/** Each item's place along its row, `t` from 0 (first) to 1 (last), and the row's `span`. */
export function spread(items) {
  const offsets = [];
  let at = 0;
  items.forEach((item, i) => {
    if (i > 0) at += items[i - 1].kind === "up" ? AFTER_UP : AFTER_DOWN;
    offsets.push(at);
  });
  return { span: at, places: offsets.map((offset) => (at === 0 ? 0 : offset / at)) };
}

function beaten(step, winner) {
  const others = [];
  step.up.forEach((code, seat) => {
    if (code !== null && seat !== winner) others.push(cardLabel(code));
  });
  return joinAnd(others);
}

function takes(name, count) {
  return you(name) ? `you take ${plural(count, "card")}` : `${name} takes ${plural(count, "card")}`;
}

/** Seats this battle put out of the round: they laid cards and hold none after it. */
export function knockedOut(battle) {
  return battle.counts.flatMap((count, seat) => {
    const laid = battle.steps.some((step) => step.up[seat] !== null || step.down[seat] > 0);
    return count === 0 && laid ? [seat] : [];
  });
}

/** "You turn 9♠ and the computer turns 9♥.": the cards turned up at one step, as they turn. */
export function turnWords(step, names) {
  const turned = step.up.flatMap((code, seat) => {
    if (code === null) return [];
    const name = names[seat];
    return [you(name) ? `you turn ${cardLabel(code)}` : `${name} turns ${cardLabel(code)}`];
  });
  return turned.length === 0 ? "" : `${capital(joinAnd(turned))}.`;
}

/** "War! Both turned a 9.", or at a bigger table who did: "War! You and Computer 2 both turned a
 * jack." Everyone who went to war turned the same rank, and only they turned it. */
function warDeclared(battle, names) {
  const [first, second] = battle.steps;
  const warSeat = first.up.findIndex(
    (_, seat) => second.up[seat] !== null || second.down[seat] > 0 || second.short.includes(seat),
  );
  const rank = first.up[warSeat][0];
  const tied = first.up.flatMap((code, seat) => (code !== null && code[0] === rank ? [seat] : []));
  const phrase = rankPhrase(first.up[warSeat]);
  if (names.length === 2) return { tied: tied.length, text: `War! Both turned ${phrase}.` };
  const who = capital(joinAnd(tied.map((seat) => names[seat])));
  return { tied: tied.length, text: `War! ${who} ${tied.length === 2 ? "both" : "all"} turned ${phrase}.` };
}

/** The wars of a battle in words, up to and including war step `upTo` (the first war is step 1):
 * each declared, who ran short, and how the cards go down. */
function warParts(battle, names, upTo) {
  const wars = battle.steps.slice(1, upTo + 1);
  if (wars.length === 0) return [];
  const { tied, text } = warDeclared(battle, names);
  const parts = [text];
  for (const [i, step] of wars.entries()) {
    if (i > 0) parts.push("Another tie: war again!");
    if (battle.winner === null && i === battle.steps.length - 2) {
      parts.push(tied === 2 && battle.steps.length === 2
        ? "Neither of you has enough cards left to fight it, so nobody can finish the war."
        : "Everyone left in the war is short of cards, so nobody can finish it.");
      break;
    }
    for (const seat of step.short) {
      const name = names[seat];
      if (step.up[seat] !== null) {
        parts.push(you(name) ? "You are short of cards and fight on with your last card."
          : `${capital(name)} is short of cards and fights on with the last card.`);
      } else if (step.down[seat] > 0) {
        parts.push(you(name) ? `You cannot finish the war and give up ${plural(step.down[seat], "card")}.`
          : `${capital(name)} cannot finish the war and gives up ${plural(step.down[seat], "card")}.`);
      } else {
        parts.push(you(name) ? "You have no cards left for the war." : `${capital(name)} has no cards left for the war.`);
      }
    }
    const fighters = step.up.filter((code) => code !== null).length;
    const downs = [...new Set(step.up.flatMap((code, seat) => (code !== null ? [step.down[seat]] : [])))];
    if (i === 0 && fighters > 1 && downs.length === 1) {
      parts.push(downs[0] > 0 ? `Each lays ${plural(downs[0], "card")} face down and turns one up.`
        : "Each turns the next card straight up.");
    }
  }
  return parts;
}

/** A battle as the table shows it at step `index` (0 the first turn, then each war step): the
 * cards turning, after what came before. */
export function tellTurn(battle, index, names) {
  const turned = turnWords(battle.steps[index], names);
  if (index === 0) return turned;
  return [...warParts(battle, names, index), turned].filter(Boolean).join(" ");
}

/** A battle as the table shows it when war step `index` is declared, before its cards go down. */
export function tellWar(battle, index, names) {
  return warParts(battle, names, index).join(" ");
}

/** One battle in words, as the message beside the table says it once it has landed;
 * `tellOut: false` leaves out who was put out (a run of battles says that once for the run). */
export function describeBattle(battle, names, { tellOut = true } = {}) {
  const parts = warParts(battle, names, battle.steps.length - 1);
  if (battle.winner === null) return parts.join(" ");
  const last = battle.steps[battle.steps.length - 1];
  const name = names[battle.winner];
  const mine = last.up[battle.winner];
  if (mine === null) {
    parts.push(`${capital(takes(name, battle.taken))}.`);
  } else {
    const owner = you(name) ? "Your" : `${capital(name)}'s`;
    parts.push(`${owner} ${cardLabel(mine)} beats ${beaten(last, battle.winner)} — ${takes(name, battle.taken)}.`);
  }
  if (tellOut && battle.outcome === null) {
    for (const seat of knockedOut(battle)) parts.push(outWords(names[seat]));
  }
  return parts.join(" ");
}

const outWords = (name) => (you(name) ? "You are out of cards, so this round is lost for you." : `${capital(name)} is out.`);

/** A run of battles in a few numbers: the first and last, battles won per seat, wars, the seats
 * put out along the way and the last battle. Runs add up (`joinRuns`), so Play to end tells its
 * whole run however many requests it took; null for no battles. */
export function tallyRun(battles, players) {
  if (battles.length === 0) return null;
  const won = Array.from({ length: players }, () => 0);
  for (const battle of battles) if (battle.winner !== null) won[battle.winner] += 1;
  return {
    from: battles[0].number,
    to: battles.at(-1).number,
    count: battles.length,
    won,
    wars: battles.reduce((sum, battle) => sum + battle.wars, 0),
    out: battles.flatMap((battle) => (battle.outcome === null ? knockedOut(battle) : [])),
    last: battles.at(-1),
  };
}

/** Run `b` after run `a`, as one run. */
export function joinRuns(a, b) {
  if (!a) return b;
  if (!b) return a;
  return {
    from: a.from,
    to: b.to,
    count: a.count + b.count,
    won: a.won.map((n, seat) => n + b.won[seat]),
    wars: a.wars + b.wars,
    out: [...a.out, ...b.out],
    last: b.last,
  };
}

/** A run of battles (Play 10 battles, Play to end) in one sentence, then, at a table of two,
 * the last one told in full (with more seats the sentence is long enough, and the table shows
 * the rest); `last: false` leaves that out. A run of one is that battle told. */
export function describeRun(run, names, { last = true } = {}) {
  if (!run) return "No battles were played.";
  if (run.count === 1) return describeBattle(run.last, names);
  const tally = names.map((name, seat) => `${you(name) ? "you won" : name} ${run.won[seat]}`).join(", ");
  const others = run.out.filter((seat) => !you(names[seat])).map((seat) => names[seat]);
  let gone = others.length === 0 ? "" : ` ${capital(joinAnd(others))} ${others.length === 1 ? "is" : "are"} out.`;
  if (run.out.some((seat) => you(names[seat]))) gone += ` ${outWords("You")}`;
  const told = last && names.length === 2 ? ` Last: ${describeBattle(run.last, names, { tellOut: false })}` : "";
  return `Battles ${run.from}–${run.to}: ${tally}${run.wars > 0 ? `, with ${plural(run.wars, "war")}` : ""}.${gone}${told}`;
}

/** A name as the object of a sentence: "you", "the computer", "Mia". */
const them = (name) => (you(name) ? "you" : name);

/** "8 more than the computer": how far the biggest pile is ahead of the next. */
function lead(counts, winner, names) {
  const others = counts.filter((_, seat) => seat !== winner);
  const next = Math.max(...others);
  const by = counts[winner] - next;
  const behind = names.length === 2 ? them(names[1 - winner]) : "the next pile";
  return `${by} more than ${behind}`;
}

/** Who held the most cards when the round stopped, as a clause: "you were ahead, 30 cards to
 * 22", "Computer 2 was ahead with 20 cards to the next pile's 16". */
export function whoWasAhead(counts, names) {
  const most = Math.max(...counts);
  const leaders = counts.flatMap((count, seat) => (count === most ? [seat] : []));
  if (leaders.length > 1) {
    const who = joinAnd(leaders.map((seat) => them(names[seat])));
    return `${who} were level${leaders.length === counts.length ? "" : " on top"}, ${most} cards each`;
  }
  const [leader] = leaders;
  const next = Math.max(...counts.filter((_, seat) => seat !== leader));
  const was = you(names[leader]) ? "you were" : `${names[leader]} was`;
  return names.length === 2 ? `${was} ahead, ${most} cards to ${next}` : `${was} ahead with ${most} cards to the next pile's ${next}`;
}

/** The end of a round, for every reason the rules know (docs/rules.md#how-a-round-ends). */
export function describeOutcome(outcome, names, round) {
  const winner = outcome.winner === null ? null : names[outcome.winner];
  const two = names.length === 2;
  const other = two && outcome.winner !== null ? names[1 - outcome.winner] : null;
  const total = round.counts.reduce((a, b) => a + b, 0);
  const held = outcome.winner === null ? 0 : round.counts[outcome.winner];
  const title = winner === null ? "Draw" : you(winner) ? "You win!" : `${capital(winner)} wins`;
  const holds = you(winner) ? "you hold" : `${winner} holds`;
  let why;
  switch (outcome.reason) {
    case "all_cards":
      if (you(winner)) why = `You hold all ${total} cards: ${two ? other : "everyone else"} ran out.`;
      else why = `${capital(winner)} holds every card: ${two ? them(other) : "everyone else"} ran out.`;
      break;
    case "opponent_short":
      if (you(winner)) why = `${two ? capital(other) : "The last of the others"} could not finish a war, so you take every card.`;
      else if (two) why = `${capital(them(other))} could not finish a war, so ${winner} takes every card.`;
      else why = `${capital(winner)} is the last player left: the others ran out or could not finish a war.`;
      break;
    case "both_short":
      why = "Everyone in the war ran short of cards at the same moment, so nobody can finish it.";
      break;
    case "battle_limit": {
      const played = round.battles === 1 ? "1 battle" : `${round.battles} battles`;
      why = `${played} with no winner: ${whoWasAhead(round.counts, names)}, but at this table the round stops there as a draw.`;
      break;
    }
    case "most_cards":
      why = `The battle limit was reached and ${holds} the most cards: ${held} of ${total}, ${lead(round.counts, outcome.winner, names)}.`;
      break;
    case "time_up":
      why = `Time ran out and ${holds} the most cards: ${held} of ${total}, ${lead(round.counts, outcome.winner, names)}.`;
      break;
    case "most_cards_tie":
      why = `The cards were counted and the leaders hold the same number: ${Math.max(...round.counts)} each.`;
      break;
    case "cycle":
      why = `After ${round.battles} battles the piles came back to an order they had before, so the round would repeat for ever.`;
      break;
    default:
      throw new Error(`unknown outcome reason: ${outcome.reason}`);
  }
  const out = round.out_at?.[0] ?? null;
  if (outcome.winner === null && out !== null && out < round.battles) {
    // Out before the end: lost for you then and there, whatever the others did after.
    why += ` You ran out of cards at battle ${out}, so for you the round was lost, and the scoreboard counts it so.`;
  }
  return { title, why };
}

/** A match's score as the table shows it: "You 1 – 0 Computer", or each seat's at a bigger table. */
export function matchScore(match, labels) {
  if (labels.length === 2) return `${labels[0]} ${match.score[0]} – ${match.score[1]} ${labels[1]}`;
  return labels.map((label, seat) => `${label}: ${match.score[seat]}`).join(" · ");
}

/** The match line above the message: its length, where it stands, and the score. */
export function matchLine(match, labels, roundInMatch = true) {
  const where = match.over
    ? `${labels[match.winner]} won the match`
    : roundInMatch ? `round ${match.rounds.length}` : "waiting for New round";
  const drawn = match.draws > 0 ? ` · ${plural(match.draws, "draw")} replayed` : "";
  return `Best of ${match.best_of} · ${where} · ${matchScore(match, labels)}${drawn}`;
}

/** Who leads a match, in a sentence: "You lead 1–0.", "It is 1–1." */
function standing(match, names) {
  const two = names.length === 2;
  if (match.leader === null) return two ? `It is ${match.score.join("–")}.` : "Nobody leads yet.";
  const who = names[match.leader];
  const lead = you(who) ? "You lead" : `${capital(who)} leads`;
  if (!two) return `${lead}, with ${plural(match.score[match.leader], "round")} won.`;
  return `${lead} ${match.score[match.leader]}–${match.score[1 - match.leader]}.`;
}

/** What a finished round means for its match: the outcome's words once the match is decided,
 * and the message after any round. */
export function matchAfterRound(match, round, names) {
  const last = match.rounds.at(-1);
  const decidedNow = match.over && last.id === round.id;
  if (decidedNow) {
    const winner = names[match.winner];
    const title = you(winner) ? "You win the match!" : `${capital(winner)} wins the match`;
    const ends = names.length === 2
      ? `The match ends ${match.score[match.winner]}–${match.score[1 - match.winner]}.`
      : `${capital(you(winner) ? "you" : winner)} won ${plural(match.needed, "round")} first.`;
    return { title, ends, message: `${ends} Press New round to start another match.` };
  }
  if (match.over) return { ends: "", message: "This match is over. Press New round to start another." };
  const drawn = round.outcome.winner === null;
  const ends = `${drawn ? "A drawn round does not count in the match. " : ""}${standing(match, names)}`;
  return { ends, message: `${ends} Press New round for round ${match.rounds.length + 1} of the best of ${match.best_of}.` };
}

/** "Battle 37 of 500", "Battle 37" when there is no limit, and "Ready to turn" before the first. */
export function battleNumber(round) {
  if (round.battles === 0 && round.outcome === null) return "Ready to turn";
  const limit = round.rules.battle_limit;
  return limit === null ? `Battle ${round.battles}` : `Battle ${round.battles} of ${limit}`;
}

function freshDeal(round, origin, match) {
  const { rules, counts } = round;
  const names = seatNames(rules.players, round.seats);
  const people = peopleAt(rules.players, round.seats);
  let who;
  if (counts.some((count) => count !== counts[0])) { // a deal by hand may give piles of any size
    who = joinAnd(counts.map((count, seat) => (seat === 0 ? `${plural(count, "card")} for ${them(names[0])}` : `${count} for ${names[seat]}`)));
  } else {
    const hand = `${plural(counts[0], "card")} each`;
    const computers = rules.players - people.length;
    if (rules.players === 2 && computers === 1) who = hand;
    else if (people.length === 1) who = `${hand} for ${them(names[0])} and ${computers} computer players`;
    else who = `${hand} for ${joinAnd([...people.map((seat) => them(names[seat])), ...(computers > 0 ? [plural(computers, "computer")] : [])])}`;
  }
  const press = people.length > 1
    ? "Everyone flips with their own Flip button; the cards turn once all of you have."
    : "Press Turn cards to play the first battle.";
  if (origin === "replay") return `The same deal again: the same ${who}, in the same order. ${press}`;
  if (origin === "shared") return `A shared deal: ${who}, in the order the link holds. ${press}`;
  if (match) return `Round ${match.rounds.length} of the best of ${match.best_of}: ${who}. ${press}`;
  return `A fresh deal: ${who}. ${press}`;
}

/** Who has flipped for the coming battle and who has yet to, when people share the table:
 * "Mia is ready. Waiting for Sam to flip." `flipped` and `waiting` are seats. */
export function flipWords(flipped, waiting, names) {
  const ready = flipped.map((seat) => names[seat]);
  const are = ready.length === 1 && !you(ready[0]) ? "is" : "are";
  return `${capital(joinAnd(ready.map(them)))} ${are} ready. Waiting for ${joinAnd(waiting.map((seat) => them(names[seat])))} to flip.`;
}

/** A round's outcome words, with the match's when this round decided it. */
function matchOutcome(outcome, afterMatch) {
  if (!afterMatch?.ends) return outcome;
  return { title: afterMatch.title ?? outcome.title, why: `${outcome.why} ${afterMatch.ends}` };
}

/** The state after a message; every message has a `type`, and an unknown type is a bug. */
export function update(state, message) {
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
        battles: [],
        run: null,
        running: false,
        stopped: false,
        resumed: message.round !== null,
        clockRang: false,
        note: null,
        error: null,
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
    case "failed":
      return { ...state, error: message.error };
    default:
      throw new Error(`unknown message type: ${message.type}`);
  }
}

/** Everything the page shows, as plain data, derived from the state alone. */
export function view(state) {
  const round = state.round;
  if (!round) {
    return {
      ready: false,
      message: state.error ?? "Dealing the cards…",
      error: Boolean(state.error),
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
  let message;
  if (state.error) message = state.error;
  else if (state.note) message = state.note;
  else if (battles.length > 0 && state.stopped) {
    message = `${describeRun(run, names, { last: false })} Stopped at battle ${round.battles}. Press Play to end to go on, or Turn cards for one battle.`;
  } else if (battles.length > 0) {
    // While Play to end turns battle by battle, each is told as it lands; its whole run after.
    message = state.running && battles.length === 1 ? describeBattle(battles[0], names) : describeRun(run, names);
  } else if (round.battles === 0 && !over) message = freshDeal(round, state.origin, inMatch ? match : null);
  else if (over && ["time_up", "most_cards_tie"].includes(round.outcome.reason) && state.clockRang) message = `Time is up, so the cards were counted. ${afterMatch ? afterMatch.message : "Press New round to deal again."}`;
  else if (afterMatch) message = afterMatch.message;
  else if (over && match && !match.over) message = "This round is over. Press New round to go back to your match.";
  else if (over) message = "This round is over. Press New round to deal again.";
  else if (state.resumed) message = `Welcome back: your round resumes at battle ${round.battles + 1}.`;
  else message = last ? describeBattle(last, names) : `Your round resumes at battle ${round.battles + 1}.`;
  const youOut = !over && round.counts[0] === 0;
  const roundOutcome = over ? describeOutcome(round.outcome, names, round) : null;
  return {
    ready: true,
    youOut,
    players: rules.players,
    names,
    labels: seatLabels(rules.players, round.seats),
    people: peopleAt(rules.players, round.seats),
    counts: round.counts,
    out: round.counts.map((count) => count === 0),
    battleNumber: battleNumber(round),
    message,
    error: Boolean(state.error),
    announce: battles.length > 0 ? `${battleNumber(round)}. ${message}` : message,
    laid: last ? laidBySeat(last, rules.players) : names.map(() => []),
    winner: last ? last.winner : null,
    roundOutcome,
    outcome: roundOutcome && matchOutcome(roundOutcome, afterMatch),
    matchLine: match ? matchLine(match, seatLabels(match.rules.players, match.seats), inMatch) : null,
    guide: guideText(rules),
  };
}
