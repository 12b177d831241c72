// Pure functions: the game state in, text and markup out. No DOM access, no fetch, no timers.
// The server owns the rules and the randomness; this module only tells what happened.

const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_WORDS = {
  2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9",
  T: "10", J: "jack", Q: "queen", K: "king", A: "ace",
};
const SUITS = {
  C: { glyph: "♣", name: "clubs", red: false },
  D: { glyph: "♦", name: "diamonds", red: true },
  H: { glyph: "♥", name: "hearts", red: true },
  S: { glyph: "♠", name: "spades", red: false },
};

/** Seat names: "You", then "the Computer" (or Computer 1-3 at a bigger table). */
export function seatNames(players) {
  if (players === 2) return ["You", "the Computer"];
  return ["You", ...Array.from({ length: players - 1 }, (_, i) => `Computer ${i + 1}`)];
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const plural = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** "8S" -> "an 8", "KD" -> "a king": a rank in a sentence. */
export function rankPhrase(code) {
  const word = RANK_WORDS[code[0]];
  return `${word === "8" || word === "ace" ? "an" : "a"} ${word}`;
}

/** "9S" -> "9♠", "TH" -> "10♥". */
export function cardLabel(code) {
  return (RANKS[code[0]] ?? code[0]) + SUITS[code[1]].glyph;
}

/** "KD" -> "king of diamonds": what a screen reader says. */
export function cardWords(code) {
  return `${RANK_WORDS[code[0]]} of ${SUITS[code[1]].name}`;
}

/** One face-up card as SVG markup, drawn by us: corner indices and a large centre pip. */
export function cardSvg(code, extraClass = "") {
  const rank = RANKS[code[0]] ?? code[0];
  const suit = SUITS[code[1]];
  const colour = suit.red ? "red" : "black";
  return (
    `<svg class="card face ${colour} ${extraClass}" viewBox="0 0 100 140" role="img"` +
    ` aria-label="${cardWords(code)}">` +
    `<rect x="1.5" y="1.5" width="97" height="137" rx="9"/>` +
    `<text class="index" x="9" y="26">${rank}</text>` +
    `<text class="index-suit" x="9" y="46">${suit.glyph}</text>` +
    `<text class="pip" x="50" y="88" text-anchor="middle">${suit.glyph}</text>` +
    `<g transform="rotate(180 50 70)"><text class="index" x="9" y="26">${rank}</text>` +
    `<text class="index-suit" x="9" y="46">${suit.glyph}</text></g></svg>`
  );
}

/** A face-down card: our own back pattern. */
export function backSvg(extraClass = "") {
  return (
    `<svg class="card back ${extraClass}" viewBox="0 0 100 140" aria-hidden="true">` +
    `<rect x="1.5" y="1.5" width="97" height="137" rx="9"/>` +
    `<rect class="inner" x="10" y="10" width="80" height="120" rx="5"/>` +
    `<path class="diamond" d="M50 30 L74 70 L50 110 L26 70 Z"/></svg>`
  );
}

/** What each seat laid in a battle, in order: face-down counts and face-up cards. */
export function laidBySeat(battle, players) {
  const seats = Array.from({ length: players }, () => []);
  for (const step of battle.steps) {
    step.up.forEach((code, seat) => {
      if (step.down[seat] > 0) seats[seat].push({ kind: "down", count: step.down[seat] });
      if (code !== null) seats[seat].push({ kind: "up", code });
    });
  }
  return seats;
}

/** Markup for one seat's cards on the table; the last face-up card flips in. */
export function laidMarkup(items) {
  const lastUp = items.map((item) => item.kind).lastIndexOf("up");
  return items
    .map((item, i) => {
      if (item.kind === "down") {
        const backs = Array.from({ length: Math.min(item.count, 6) }, () => backSvg("laid"));
        const label = `${plural(item.count, "card")} face down`;
        return `<span class="down-group" role="img" aria-label="${label}">${backs.join("")}</span>`;
      }
      return cardSvg(item.code, i === lastUp ? "flip" : "");
    })
    .join("");
}

function beaten(step, winner) {
  const others = [];
  step.up.forEach((code, seat) => {
    if (code !== null && seat !== winner) others.push(cardLabel(code));
  });
  return others.join(" and ");
}

function takes(name, count) {
  return name === "You" ? `you take ${plural(count, "card")}` : `${name} takes ${plural(count, "card")}`;
}

/** One battle in words, as the message under the table says it. */
export function describeBattle(battle, names) {
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
        const you = name === "You";
        if (step.up[seat] !== null) {
          parts.push(`${capital(name)} ${you ? "are" : "is"} short of cards and ${you ? "fight" : "fights"} on with ${you ? "your" : "its"} last card.`);
        } else if (step.down[seat] > 0) {
          parts.push(`${capital(name)} cannot finish the war and ${you ? "give" : "gives"} up ${plural(step.down[seat], "card")}.`);
        } else {
          parts.push(`${capital(name)} ${you ? "have" : "has"} no cards left for the war.`);
        }
      }
      const fighters = step.up.filter((code) => code !== null).length;
      const downs = [...new Set(step.up.flatMap((code, seat) => (code !== null ? [step.down[seat]] : [])))];
      if (fighters > 1 && downs.length === 1 && downs[0] > 0) {
        parts.push(`Each lays ${plural(downs[0], "card")} face down and turns one up.`);
      }
    }
  }
  const last = battle.steps[battle.steps.length - 1];
  const name = names[battle.winner];
  const mine = last.up[battle.winner];
  if (mine === null) {
    parts.push(`${capital(takes(name, battle.taken))}.`);
  } else {
    const owner = name === "You" ? "Your" : `${capital(name)}'s`;
    const others = beaten(last, battle.winner);
    parts.push(`${owner} ${cardLabel(mine)} beats ${others} — ${takes(name, battle.taken)}.`);
  }
  return parts.join(" ");
}

/** A run of battles (Play 10 battles) in one sentence, then the last one told in full. */
export function describeRun(battles, names) {
  if (battles.length === 0) return "No battles were played.";
  if (battles.length === 1) return describeBattle(battles[0], names);
  const won = new Map();
  for (const battle of battles) {
    if (battle.winner !== null) won.set(battle.winner, (won.get(battle.winner) ?? 0) + 1);
  }
  const tally = names
    .map((name, seat) => `${name === "You" ? "you won" : name} ${won.get(seat) ?? 0}`)
    .join(", ");
  const wars = battles.reduce((sum, battle) => sum + battle.wars, 0);
  const from = battles[0].number;
  const to = battles[battles.length - 1].number;
  return (
    `Battles ${from}–${to}: ${tally}` +
    (wars > 0 ? `, with ${plural(wars, "war")}` : "") +
    `. Last: ${describeBattle(battles[battles.length - 1], names)}`
  );
}

/** The end of a round, for every reason the rules know (SPEC §4). */
export function describeOutcome(outcome, names, round) {
  const winner = outcome.winner === null ? null : names[outcome.winner];
  const others = names.filter((_, seat) => seat !== outcome.winner);
  const othersText = others.length === 1 ? others[0] : `${others.slice(0, -1).join(", ")} and ${others.at(-1)}`;
  const title = winner === null ? "Draw" : winner === "You" ? "You win!" : `${capital(winner)} wins`;
  let why;
  switch (outcome.reason) {
    case "all_cards":
      why = winner === "You" ? `You hold all ${round.counts.reduce((a, b) => a + b, 0)} cards: ${othersText} ran out.`
        : `${capital(winner)} holds every card: you ran out.`;
      break;
    case "opponent_short":
      why = winner === "You" ? `${capital(othersText)} could not finish a war, so you take every card.`
        : `You could not finish a war, so ${winner} takes every card.`;
      break;
    case "both_short":
      why = "Everyone in the war ran short of cards at the same moment, so nobody can finish it.";
      break;
    case "battle_limit":
      why = `${round.battles} battles were played without a winner: the round stops there as a draw.`;
      break;
    case "most_cards":
      why = `The battle limit was reached and ${winner === "You" ? "you hold" : `${winner} holds`} the most cards.`;
      break;
    case "time_up":
      why = `Time ran out and ${winner === "You" ? "you hold" : `${winner} holds`} the most cards.`;
      break;
    case "most_cards_tie":
      why = "The cards were counted and the leaders hold the same number.";
      break;
    case "cycle":
      why = "The piles came back to an order they had before, so the round would repeat forever.";
      break;
    default:
      throw new Error(`unknown outcome reason: ${outcome.reason}`);
  }
  return { title, why };
}

/** "Battle 37 of 500", or "Battle 37" when there is no limit. */
export function battleNumber(round) {
  const limit = round.rules.battle_limit;
  return limit === null ? `Battle ${round.battles}` : `Battle ${round.battles} of ${limit}`;
}

/** The state after a message; every message has a `type`, and an unknown type is a bug. */
export function update(state, message) {
  switch (message.type) {
    case "loaded":
      return { ...state, round: message.round, scoreboard: message.scoreboard, battles: [], error: null };
    case "dealt":
      return { ...state, round: message.round, battles: [], error: null };
    case "played":
      return { ...state, round: message.round, battles: message.battles, error: null };
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
    return { ready: false, message: state.error ?? "Dealing the cards…", canPlay: false, canDeal: !state.busy };
  }
  const names = seatNames(round.rules.players);
  const over = round.outcome !== null;
  const battles = state.battles ?? [];
  let message;
  if (state.error) message = state.error;
  else if (battles.length > 0) message = describeRun(battles, names);
  else if (round.battles === 0) message = "A fresh deal: 26 cards each. Press Turn cards to play the first battle.";
  else if (!over) message = `Welcome back: your round resumes at battle ${round.battles + 1}.`;
  else message = "This round is over. Press New round to deal again.";
  const last = battles.length > 0 ? battles[battles.length - 1] : null;
  return {
    ready: true,
    names,
    counts: round.counts,
    battleNumber: battleNumber(round),
    message,
    announce: last ? `${battleNumber(round)}. ${message}` : message,
    laid: last ? laidBySeat(last, round.rules.players) : names.map(() => []),
    winner: last ? last.winner : null,
    outcome: over ? describeOutcome(round.outcome, names, round) : null,
    canPlay: !over && !state.busy,
    canDeal: !state.busy,
  };
}
