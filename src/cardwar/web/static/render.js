// Pure functions: the game state in, words and plain data out. No DOM access, no fetch, no timers.
// The server owns the rules and the randomness; this module only tells what happened.
import { cardLabel, rankPhrase } from "./art.js";
import { guideText } from "./house.js";
import { capital, joinAnd, plural } from "./words.js";

/** Seat names in a sentence: "You", then "the computer" (or Computer 1-3 at a bigger table). */
export function seatNames(players) {
  if (players === 2) return ["You", "the computer"];
  return ["You", ...Array.from({ length: players - 1 }, (_, i) => `Computer ${i + 1}`)];
}

/** Seat names on the table itself: "You", "Computer", or "Computer 1" … "Computer 3". */
export function seatLabels(players) {
  return seatNames(players).map((name) => capital(name.replace(/^the /, "")));
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

/** One battle in words, as the message beside the table says it; `tellOut: false` leaves out
 * who was put out (a run of battles says that once for the whole run). */
export function describeBattle(battle, names, { tellOut = true } = {}) {
  const [first, ...wars] = battle.steps;
  const parts = [];
  if (wars.length > 0) {
    // Everyone who went to war turned the same rank, and only they turned it.
    const warSeat = first.up.findIndex(
      (_, seat) => wars[0].up[seat] !== null || wars[0].down[seat] > 0 || wars[0].short.includes(seat),
    );
    const rank = first.up[warSeat][0];
    const tied = first.up.filter((code) => code !== null && code[0] === rank).length;
    const phrase = rankPhrase(first.up[warSeat]);
    parts.push(tied === 2 ? `War! Both turned ${phrase}.` : `War! ${tied} players turned ${phrase}.`);
    for (const [i, step] of wars.entries()) {
      if (i > 0) parts.push("Another tie: war again!");
      if (battle.winner === null && i === wars.length - 1) {
        parts.push(tied === 2 && wars.length === 1
          ? "Neither of you has enough cards left to fight it, so nobody can finish the war."
          : "Everyone left in the war is short of cards, so nobody can finish it.");
        return parts.join(" ");
      }
      for (const seat of step.short) {
        const name = names[seat];
        if (step.up[seat] !== null) {
          parts.push(you(name) ? "You are short of cards and fight on with your last card."
            : `${capital(name)} is short of cards and fights on with its last card.`);
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
  }
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
    for (const seat of knockedOut(battle)) {
      parts.push(seat === 0 ? YOU_OUT : `${capital(names[seat])} is out.`);
    }
  }
  return parts.join(" ");
}

const YOU_OUT = "You are out of cards, so this round is lost for you.";

/** A run of battles (Play 10 battles) in one sentence, then the last one told in full (at a
 * table of two: with more seats the sentence is long enough, and the table shows the rest). */
export function describeRun(battles, names) {
  if (battles.length === 0) return "No battles were played.";
  if (battles.length === 1) return describeBattle(battles[0], names);
  const won = new Map();
  for (const battle of battles) {
    if (battle.winner !== null) won.set(battle.winner, (won.get(battle.winner) ?? 0) + 1);
  }
  const tally = names
    .map((name, seat) => `${you(name) ? "you won" : name} ${won.get(seat) ?? 0}`)
    .join(", ");
  const wars = battles.reduce((sum, battle) => sum + battle.wars, 0);
  const from = battles[0].number;
  const to = battles[battles.length - 1].number;
  const out = battles.flatMap((battle) => (battle.outcome === null ? knockedOut(battle) : []));
  const others = out.filter((seat) => seat !== 0).map((seat) => names[seat]);
  let gone = others.length === 0 ? "" : ` ${joinAnd(others)} ${others.length === 1 ? "is" : "are"} out.`;
  if (out.includes(0)) gone += ` ${YOU_OUT}`;
  const last = names.length === 2 ? ` Last: ${describeBattle(battles.at(-1), names, { tellOut: false })}` : "";
  return `Battles ${from}–${to}: ${tally}${wars > 0 ? `, with ${plural(wars, "war")}` : ""}.${gone}${last}`;
}

/** "8 more than the computer": how far the biggest pile is ahead of the next. */
function lead(counts, winner, names) {
  const others = counts.filter((_, seat) => seat !== winner);
  const next = Math.max(...others);
  const by = counts[winner] - next;
  const behind = names.length === 2 ? names[1 - winner] === "You" ? "you" : names[1 - winner] : "the next pile";
  return `${by} more than ${behind}`;
}

/** The end of a round, for every reason the rules know (docs/rules.md#how-a-round-ends). */
export function describeOutcome(outcome, names, round) {
  const winner = outcome.winner === null ? null : names[outcome.winner];
  const two = names.length === 2;
  const total = round.counts.reduce((a, b) => a + b, 0);
  const held = outcome.winner === null ? 0 : round.counts[outcome.winner];
  const title = winner === null ? "Draw" : you(winner) ? "You win!" : `${capital(winner)} wins`;
  const holds = you(winner) ? "you hold" : `${winner} holds`;
  let why;
  switch (outcome.reason) {
    case "all_cards":
      if (you(winner)) why = `You hold all ${total} cards: ${two ? "the computer" : "everyone else"} ran out.`;
      else why = `${capital(winner)} holds every card: ${two ? "you" : "everyone else"} ran out.`;
      break;
    case "opponent_short":
      if (you(winner)) why = `${two ? "The computer" : "The last of the others"} could not finish a war, so you take every card.`;
      else if (two) why = `You could not finish a war, so ${winner} takes every card.`;
      else why = `${capital(winner)} is the last player left: the others ran out or could not finish a war.`;
      break;
    case "both_short":
      why = "Everyone in the war ran short of cards at the same moment, so nobody can finish it.";
      break;
    case "battle_limit":
      why = `${round.battles === 1 ? "1 battle was" : `${round.battles} battles were`} played without a winner: the round stops there as a draw.`;
      break;
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

function freshDeal(rules, origin, match, counts) {
  const names = seatNames(rules.players);
  let who;
  if (counts.some((count) => count !== counts[0])) { // a deal by hand may give piles of any size
    who = joinAnd(counts.map((count, seat) => (seat === 0 ? `${plural(count, "card")} for you` : `${count} for ${names[seat]}`)));
  } else {
    const hand = `${plural(counts[0], "card")} each`;
    who = rules.players === 2 ? hand : `${hand} for you and ${rules.players - 1} computer players`;
  }
  const press = "Press Turn cards to play the first battle.";
  if (origin === "replay") return `The same deal again: the same ${who}, in the same order. ${press}`;
  if (origin === "shared") return `A shared deal: ${who}, in the order the link holds. ${press}`;
  if (match) return `Round ${match.rounds.length} of the best of ${match.best_of}: ${who}. ${press}`;
  return `A fresh deal: ${who}. ${press}`;
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
      const lastBattle = message.battles.length > 0 ? message.battles.at(-1) : state.lastBattle;
      const clockRang = message.battles.length === 0 && message.round.outcome !== null;
      return { ...state, round: message.round, lastBattle, battles: message.battles, resumed: false, clockRang, note: null, error: null };
    }
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
  const names = seatNames(rules.players);
  const over = round.outcome !== null;
  const battles = state.battles ?? [];
  const last = state.lastBattle ?? null;
  const match = state.match ?? null;
  const inMatch = match !== null && round.match_id === match.id;
  const afterMatch = inMatch && over ? matchAfterRound(match, round, names) : null;
  let message;
  if (state.error) message = state.error;
  else if (state.note) message = state.note;
  else if (battles.length > 0) message = describeRun(battles, names);
  else if (round.battles === 0 && !over) message = freshDeal(rules, state.origin, inMatch ? match : null, round.counts);
  else if (over && ["time_up", "most_cards_tie"].includes(round.outcome.reason) && state.clockRang) message = `Time is up, so the cards were counted. ${afterMatch ? afterMatch.message : "Press New round to deal again."}`;
  else if (afterMatch) message = afterMatch.message;
  else if (over && match && !match.over) message = "This round is over. Press New round to go back to your match.";
  else if (over) message = "This round is over. Press New round to deal again.";
  else if (state.resumed) message = `Welcome back: your round resumes at battle ${round.battles + 1}.`;
  else message = last ? describeBattle(last, names) : `Your round resumes at battle ${round.battles + 1}.`;
  const youOut = !over && round.counts[0] === 0;
  return {
    ready: true,
    youOut,
    players: rules.players,
    labels: seatLabels(rules.players),
    counts: round.counts,
    out: round.counts.map((count) => count === 0),
    battleNumber: battleNumber(round),
    message,
    error: Boolean(state.error),
    announce: battles.length > 0 ? `${battleNumber(round)}. ${message}` : message,
    laid: last ? laidBySeat(last, rules.players) : names.map(() => []),
    winner: last ? last.winner : null,
    outcome: over ? matchOutcome(describeOutcome(round.outcome, names, round), afterMatch) : null,
    matchLine: match ? matchLine(match, seatLabels(match.rules.players), inMatch) : null,
    guide: guideText(rules),
  };
}
