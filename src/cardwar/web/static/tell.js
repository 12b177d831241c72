// The game told in words: a battle as it turns and once it lands, a run of battles, a round's
// end for every reason the rules know, a match's standing, a fresh deal. Pure functions of the
// server's round, battle and match (docs/api.md); no DOM access, no fetch, no timers.
import { cardLabel, rankPhrase } from "./art.js";
import { knockedOut } from "./battle.js";
import { cardsElsewhere } from "./house.js";
import { peopleAt, seatNames } from "./seats.js";
import { capital, joinAnd, plural, them, you } from "./words.js";

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

/** Said once the last person at a bigger table is out and the computers play on. */
export const OTHERS_PLAY_ON = "The others play on: press Turn cards to watch them, Play to end to see who wins, or New round to move on.";

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
 * the rest); `last: false` leaves that out. A run of one is that battle told. With the round's
 * `outAt` (its `out_at`), a seat out while the others played on is told by the battle it went
 * out at, not by the battles it won: "Battles 1–9: Computer 1 won 5, Computer 2 4; you went out
 * at battle 9." */
export function describeRun(run, names, { last = true, outAt = null } = {}) {
  if (!run) return "No battles were played.";
  if (run.count === 1) return describeBattle(run.last, names);
  const ended = run.last.outcome !== null; // a seat out at the very end lost as the round ended
  const at = (seat) => outAt?.[seat] ?? null;
  // Another seat out before this run is not in it at all (it was said when it happened); you
  // are reminded when you went out. Those out during it are told by when, earliest first.
  const before = names.flatMap((_, seat) => (at(seat) !== null && at(seat) < run.from && !you(names[seat]) ? [seat] : []));
  const out = names.flatMap((_, seat) => {
    const when = at(seat);
    return when !== null && !before.includes(seat) && when <= run.to && !(ended && when === run.to) ? [seat] : [];
  }).sort((a, b) => at(a) - at(b));
  const playing = names.flatMap((_, seat) => (out.includes(seat) || before.includes(seat) ? [] : [seat]));
  const tally = playing.map((seat, i) => `${i === 0 ? `${them(names[seat])} won` : names[seat]} ${run.won[seat]}`).join(", ");
  const wentOut = out.length === 0 ? "" : `; ${joinAnd(out.map((seat) => `${them(names[seat])} went out at battle ${outAt[seat]}`))}`;
  const others = run.out.filter((seat) => !you(names[seat]) && !out.includes(seat)).map((seat) => names[seat]);
  let gone = others.length === 0 ? "" : ` ${capital(joinAnd(others))} ${others.length === 1 ? "is" : "are"} out.`;
  if (run.out.some((seat) => you(names[seat]))) gone += ` ${outWords("You")}`;
  const told = last && names.length === 2 ? ` Last: ${describeBattle(run.last, names, { tellOut: false })}` : "";
  return `Battles ${run.from}–${run.to}: ${tally}${run.wars > 0 ? `, with ${plural(run.wars, "war")}` : ""}${wentOut}.${gone}${told}`;
}

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
      why = [why, cardsElsewhere(round)].filter(Boolean).join(" ");
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
      why = `${played} and nobody has every card, so it is a draw (${whoWasAhead(round.counts, names)}).`;
      break;
    }
    case "most_cards":
      why = `The battle limit was reached and ${holds} the most cards: ${held} of ${total}, ${lead(round.counts, outcome.winner, names)}.`;
      why = [why, cardsElsewhere(round)].filter(Boolean).join(" ");
      break;
    case "time_up":
      why = `Time ran out and ${holds} the most cards: ${held} of ${total}, ${lead(round.counts, outcome.winner, names)}.`;
      why = [why, cardsElsewhere(round)].filter(Boolean).join(" ");
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
    return { title, ends, message: `${ends} Press Play again for another match.` };
  }
  if (match.over) return { ends: "", message: "This match is over. Press Play again for another." };
  const drawn = round.outcome.winner === null;
  const ends = `${drawn ? "A drawn round does not count in the match. " : ""}${standing(match, names)}`;
  return { ends, message: `${ends} Press Next round for round ${match.rounds.length + 1} of the best of ${match.best_of}.` };
}

/** "Battle 37 of 500", "Battle 37" when there is no limit, and "Ready to turn" before the first. */
export function battleNumber(round) {
  if (round.battles === 0 && round.outcome === null) return "Ready to turn";
  const limit = round.rules.battle_limit;
  return limit === null ? `Battle ${round.battles}` : `Battle ${round.battles} of ${limit}`;
}

/** The words of a fresh deal: who is dealt what, where it came from, and what to press (`press`
 * when the table has its own words for it: a live table). */
export function freshDeal(round, origin, match, press = null) {
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
  press ??= people.length > 1
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
export function matchOutcome(outcome, afterMatch) {
  if (!afterMatch?.ends) return outcome;
  return { title: afterMatch.title ?? outcome.title, why: `${outcome.why} ${afterMatch.ends}` };
}

/** Kind words for a round a computer won, from its story (null if it could not be had): "So
 * close: you won 35 of 80 battles.", or for a round never close, what you won and a fresh start;
 * out while the others played on (the round's `outAt`), when: "You were out at battle 37." */
export function consolation(story, names, outAt = null, counts = null) {
  const again = "A new deal could go your way.";
  if (!story || story.battles === 0) return again;
  const out = outAt?.[0] ?? null;
  if (out !== null && out < story.battles) {
    return `${you(names[0]) ? "You were" : `${capital(names[0])} was`} out at battle ${out}. ${again}`;
  }
  const won = `${them(names[0])} won ${story.won[0]} of ${plural(story.battles, "battle")}`;
  // Close: cards counted at the end and yours near the winner's, or battles won near a fair
  // share of them (the computer took every card, but a toss-up most of the way).
  const close = counts && counts[0] > 0
    ? counts[0] >= 0.75 * Math.max(...counts)
    : story.won[0] >= (0.8 * story.battles) / names.length;
  if (close) return `So close: ${won}.`;
  return `${capital(won)}. ${again}`;
}

/** Kind words for a match a computer won: "You won 1 round of the best of 3. A new match could
 * go your way." */
export function matchConsolation(match, names) {
  return `${capital(them(names[0]))} won ${plural(match.score[0], "round")} of the best of ${match.best_of}. ` +
    "A new match could go your way.";
}
