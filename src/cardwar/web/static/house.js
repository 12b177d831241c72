// House rules in words: the rules line on the table, the guide's sentences and the House rules
// panel's choices. Pure functions of a rules object, whose fields docs/rules.md#house-rules
// describes (and says in the same words); the seats' names are seats.js's.

import { capital, counted, joinOr, noun, number, numberWord, plural } from "./words.js";

const PRESET_NAMES = {
  classic: "Classic",
  traditional: "Traditional",
  peace: "Peace",
  timed: "Timed",
  short: "Short deck",
};

/** "one card", "three cards", "no cards"; digits beyond ten. */
export function cardsInWords(n) {
  return `${numberWord(n)} ${noun(n, "card")}`;
}

/** Cards each seat is dealt: `hand_size`, or the deck shared out. */
export function handSize(rules) {
  return rules.hand_size ?? Math.floor(52 / rules.players);
}

/** Where the cards in nobody's pile are, in a sentence to read beside a count of the piles
 * ("44 of 51"): "One card is set aside so the deal comes out even.", "The other 26 cards were set
 * aside at the deal.", "3 cards are on the table, in the war nobody could finish."; "" when the
 * piles hold all 52, or the cards were dealt by hand (a deal of its own says how many it has).
 * Between battles the table is empty, but for a war nobody could finish. */
export function cardsElsewhere(round) {
  const held = round.counts.reduce((a, b) => a + b, 0);
  if (held === 52) return "";
  const { rules } = round;
  const shuffled = handSize(rules) * rules.players;
  const dealt = round.deal ? round.deal.reduce((sum, pile) => sum + pile.length, 0) : shuffled;
  const onTable = round.outcome?.reason === "both_short" ? Math.max(0, dealt - held) : 0;
  const aside = 52 - held - onTable;
  const parts = [];
  if (aside > 0 && !round.deal && held + onTable === shuffled) {
    if (rules.hand_size === null) {
      parts.push(`${capital(cardsInWords(aside))} ${aside === 1 ? "is" : "are"} set aside so the deal comes out even.`);
    } else {
      parts.push(`The other ${plural(aside, "card")} ${aside === 1 ? "was" : "were"} set aside at the deal.`);
    }
  }
  if (onTable > 0) parts.push(`${capital(plural(onTable, "card"))} ${onTable === 1 ? "is" : "are"} on the table, in the war nobody could finish.`);
  return parts.join(" ");
}

/** What a table of three or four sets unless the player chose otherwise (`bigger_tables` of
 * GET /api/rules, docs/rules.md#bigger-tables), as the House rules panel says it beside the
 * battle limit: "3 players: a round stops at 150 battles and the biggest pile wins, unless you
 * set your own limit." */
export function biggerTableLine(players, table) {
  const then = table.limit_outcome === "draw" ? "it is a draw" : "the biggest pile wins";
  return `${players} players: a round stops at ${counted(table.battle_limit, "battle")} and ${then}, unless you set your own limit.`;
}

/** What the panel changed as `players` were chosen (`changed`: the fields it set, with their
 * new values), in a note: "With 3 players a round now stops at 150 battles, and the biggest pile
 * wins there. You can set them back." */
export function biggerTableNote(players, changed) {
  const limit = changed.battle_limit;
  const outcome = changed.limit_outcome;
  const wins = outcome === "draw" ? "it is a draw" : "the biggest pile wins";
  if (limit !== undefined && outcome !== undefined) {
    return `With ${players} players a round now stops at ${counted(limit, "battle")}, and ${wins} there. You can set them back.`;
  }
  if (limit !== undefined) return `With ${players} players a round now stops at ${counted(limit, "battle")}. You can set it back.`;
  return `With ${players} players most rounds would reach the battle limit and end in a draw, so at the battle limit the biggest pile now wins. You can set it back.`;
}

/** "10-minute", "90-second": a clock's length before a noun. */
export function clockAdjective(seconds) {
  return seconds % 60 === 0 ? `${seconds / 60}-minute` : `${seconds}-second`;
}

/** "10 minutes", "90 seconds": a clock's length on its own. */
export function clockWords(seconds) {
  return seconds % 60 === 0 ? plural(seconds / 60, "minute") : plural(seconds, "second");
}

/** The preset's display name, or "House mix" for rules that match no preset. */
export function presetName(name) {
  return name ? PRESET_NAMES[name] ?? name : "House mix";
}

/** The name of the preset that `rules` are exactly, or null. */
export function matchPreset(rules, presets) {
  const fields = Object.keys(rules);
  for (const [name, preset] of Object.entries(presets)) {
    if (fields.every((field) => preset[field] === rules[field])) return name;
  }
  return null;
}

/** True when a round under these rules can run without end: no battle limit, no clock and a
 * fixed return order, so the piles may loop (a `cycle`, which the table notices and calls a
 * draw). */
export function canRunForever(rules) {
  return mayLoop(rules) && rules.time_limit_s === null;
}

/** True when the table watches for a loop: no battle limit and a fixed return order. */
export function mayLoop(rules) {
  return rules.battle_limit === null && rules.gather !== "shuffled";
}

/** The rules in force, in one short line: "3 cards down · fight on with the last card ·
 * won cards shuffled · no battle limit". Its parts are joined with no-break spaces before each
 * dot, so a line never starts with one. */
export function rulesLine(rules) {
  const parts = [];
  if (rules.players !== 2) parts.push(`${rules.players} players`);
  if (rules.hand_size !== null) parts.push(`${plural(rules.hand_size, "card")} each`);
  if (rules.low_wins) parts.push("lowest card wins");
  parts.push(rules.war_down === 3 ? "3 down (W-A-R)" : `${plural(rules.war_down, "card")} down`);
  parts.push(rules.shortage === "lose" ? "short of cards loses" : "fight on with the last card");
  if (rules.gather === "table") parts.push("won cards kept in order");
  if (rules.gather === "shuffled") parts.push("won cards shuffled");
  if (rules.gather === "natural") parts.push("won cards picked up as they lie");
  if (rules.battle_limit === null) parts.push("no battle limit");
  else if (rules.limit_outcome === "draw") parts.push(`a draw after ${counted(rules.battle_limit, "battle")}`);
  else parts.push(`biggest pile wins after ${counted(rules.battle_limit, "battle")}`);
  if (rules.time_limit_s !== null) parts.push(`${clockAdjective(rules.time_limit_s)} clock`);
  return parts.join("\u00a0· ");
}

/** The rules in force in words a child reads, for the line under the title: "Higher card takes
 * both. Same cards? War: one down, turn again. Draw after 500 battles." The
 * rules line (`rulesLine`) says every rule, in the guide and in House rules. */
export function plainRules(rules) {
  const many = rules.players > 2; // the table shows how many: the line need not say
  const parts = [];
  if (rules.hand_size !== null) parts.push(`${capital(cardsInWords(rules.hand_size))} each.`);
  const best = rules.low_wins ? (many ? "Lowest" : "Lower") : (many ? "Highest" : "Higher");
  parts.push(`${best} card takes ${many ? "all" : "both"}.`);
  parts.push(`Same cards? War: ${rules.war_down === 0 ? "turn" : `${numberWord(rules.war_down)} down, turn`} again.`);
  if (rules.time_limit_s !== null) parts.push(`${clockAdjective(rules.time_limit_s)} clock, then most cards wins.`);
  else if (rules.battle_limit === null) parts.push("Play until someone has every card.");
  else if (rules.limit_outcome === "draw") parts.push(`Draw after ${counted(rules.battle_limit, "battle")}.`);
  else parts.push(`At ${counted(rules.battle_limit, "battle")}, most cards wins.`);
  return parts.join(" ");
}

function opponents(players) {
  return players === 2 ? "the computer" : `${numberWord(players - 1)} computer players`;
}

function warDownWords(n) {
  if (n === 0) return "turns the next card straight up, with none face down";
  const spell = n === 3 ? " (spelling W-A-R)" : "";
  return `puts ${cardsInWords(n)} face down${spell}, then turns one more face up`;
}

function gatherWords(gather) {
  return {
    winner_first: "the winner's own cards first, then the others' in the order they were laid",
    table: "in the order they were laid on the table",
    shuffled: "shuffled first, the way many families keep a long game from looping",
    natural: "picked up as they lie: the card that won first, then the rest from the top of the heap down",
  }[gather];
}

function limitWords(rules) {
  if (rules.battle_limit !== null) {
    const then = rules.limit_outcome === "draw"
      ? "the round stops there as a draw"
      : "the cards are counted and the biggest pile wins (a tie is a draw)";
    return `After ${counted(rules.battle_limit, "battle")} without a winner, ${then}.`;
  }
  const loop = "With a fixed return order the piles can come back to an order they were in " +
    "before; then the round would loop for ever, so it stops there as a draw.";
  if (rules.time_limit_s !== null) {
    return "There is no battle limit: the clock decides how long the round lasts, unless a " +
      `player takes every card first.${rules.gather === "shuffled" ? "" : ` ${loop}`}`;
  }
  if (rules.gather === "shuffled") {
    return "There is no battle limit: the round goes on until one player holds every card. " +
      "Shuffled returns keep it from looping, but it can still run long.";
  }
  return `There is no battle limit: the round goes on until one player holds every card. ${loop}`;
}

function workedExample(rules) {
  const n = rules.war_down;
  const [mine, theirs, lead, pair] = rules.low_wins
    ? ["3♦", "7♠", "This is Peace: the lower card wins", "the three and the seven"]
    : ["K♦", "7♠", "The king is higher", "the king and the seven"];
  const down = n === 0
    ? "You each turn the next card straight up, with none face down."
    : `You each put ${cardsInWords(n)} face down${n === 3 ? " (W, A, R)" : ""}, then turn the next card up.`;
  let faceDown = "";
  if (n === 1) faceDown = " both face-down cards,";
  else if (n > 1) faceDown = ` all ${numberWord(2 * n)} face-down cards,`;
  const order = {
    winner_first: "your own cards first",
    table: "in the order they were laid",
    shuffled: "shuffled first",
    natural: "picked up as they lie, your winning card first",
  }[rules.gather];
  return `You turn the 9♠ and the computer turns the 9♥: a tie, so it is war. ${down} ` +
    `Your ${mine} meets the computer's ${theirs}. ${lead}, so you collect all ` +
    `${numberWord(4 + 2 * n)} cards (both nines,${faceDown} ${pair}) and they go ` +
    `under your pile, ${order}.`;
}

/** Every sentence of the guide that depends on the rules, by the `data-guide` key it fills. */
export function guideText(rules) {
  const hand = handSize(rules);
  const setAside = 52 - hand * rules.players;
  const n = rules.war_down;
  const higher = rules.low_wins ? "lower" : "higher";
  const deal = rules.players === 2
    ? `The shuffled deck is dealt into two face-down piles, ${hand} cards for you and ${hand} for the computer.`
    : `The shuffled deck is dealt into ${numberWord(rules.players)} face-down piles, ${hand} cards each for you and ${opponents(rules.players)}.`;
  const aside = setAside === 0 ? ""
    : setAside === 1 ? " The one card left over is set aside and never plays."
    : ` The other ${setAside} cards are set aside and never play.`;
  const ranks = rules.low_wins
    ? "This is Peace: the lowest card wins, so 2 is the best card and the ace the worst. Suits play no part."
    : "Ace is the highest, then king, queen, jack, 10 and down to 2. Suits play no part.";
  const everyone = rules.players === 2 ? "both of you turn the top card of your pile" : "everyone turns the top card of their pile";
  const short = rules.shortage === "lose"
    ? `A war needs ${cardsInWords(n + 1)} from each player in it. If you cannot lay them, you cannot finish the war and lose the round; if everyone in the war runs short at the same moment, it is a draw.`
    : `A war needs ${cardsInWords(n + 1)} from each player in it. A player who has fewer lays all but their last card face down and fights on with the last one; a player with no card left drops out. If nobody in the war has a card left, it is a draw.`;
  const clock = rules.time_limit_s === null ? ""
    : `There is a ${clockAdjective(rules.time_limit_s)} clock, started at the deal. When it runs out, the cards are counted and the biggest pile wins; a tie is a draw.`;
  const drawReasons = [];
  if (rules.battle_limit !== null && rules.limit_outcome === "draw") drawReasons.push(`${rules.battle_limit} battles went by without anyone taking every card`);
  if (rules.battle_limit !== null && rules.limit_outcome === "most_cards") drawReasons.push("the cards were counted at the battle limit and the leaders held the same number");
  if (rules.time_limit_s !== null) drawReasons.push("the clock ran out with the leaders holding the same number of cards");
  drawReasons.push("everyone in a war ran out of cards at the same moment");
  if (mayLoop(rules)) {
    drawReasons.push("the piles came back to an order they had before, so the round would have looped for ever");
  }
  return {
    aim: `Win battles by turning up the ${higher} card, and keep going until every card in play is yours. ${rules.players === 2 ? "The computer is" : `The ${opponents(rules.players)} are`} after the same thing.`,
    deal: deal + aside,
    battle: `Each battle, ${everyone}. The ${higher} rank takes every card turned. ${ranks}`,
    war: `If the top cards share the best rank, it is war: each player in the tie ${warDownWords(n)}. The ${higher} of the new cards takes everything on the table; anyone not in the tie just waits. Another tie means another war, on top of the first.`,
    gather: `Cards you win go face down under your pile, ${gatherWords(rules.gather)}, and come round again later.`,
    short,
    limit: limitWords(rules),
    clock,
    example: workedExample(rules),
    "faq-rules": `${rulesSentence(rules)} Change them with House rules; a new round uses what you choose.`,
    "faq-down": n === 0
      ? "None: tied players turn the next card straight up. If those tie too, you repeat it."
      : `${capital(cardsInWords(n))} face down${n === 3 ? " (W-A-R)" : ""}, then one face up. If those face-up cards tie too, you repeat it.`,
    "faq-ace": rules.low_wins
      ? "Not at this table: this is Peace, where the lowest card wins. From best to worst: 2, 3, 4 … 10, jack, queen, king, ace. Suits never break a tie."
      : "Yes. From lowest to highest: 2, 3, 4, 5, 6, 7, 8, 9, 10, jack, queen, king, ace. Suits never break a tie.",
    "faq-draw": `A round is drawn when ${joinOr(drawReasons)}.`,
  };
}

/** The rules as one or two plain sentences (the guide's "Which rules does this table use?"). */
export function rulesSentence(rules) {
  const parts = [
    rules.players === 2 ? "Two players" : `${capital(numberWord(rules.players))} players`,
    `${handSize(rules)} cards each`,
    rules.low_wins ? "lowest card wins (Peace)" : "aces high",
    "suits ignored",
    `${cardsInWords(rules.war_down)} face down in each war`,
    rules.shortage === "lose" ? "a player who cannot finish a war loses" : "a player short of cards fights on with their last card",
    { winner_first: "won cards go under the pile winner's first", table: "won cards go under the pile in the order laid", shuffled: "won cards are shuffled before they go under the pile", natural: "won cards are picked up as they lie and go under the pile" }[rules.gather],
  ];
  let limit;
  if (rules.battle_limit === null) limit = "no battle limit";
  else if (rules.limit_outcome === "draw") limit = `${number(rules.battle_limit)} battles without a winner is a draw`;
  else limit = `after ${number(rules.battle_limit)} battles the biggest pile wins`;
  parts.push(limit);
  if (rules.time_limit_s !== null) parts.push(`a ${clockAdjective(rules.time_limit_s)} clock, then the biggest pile wins`);
  return `${parts.join(", ")}.`;
}

/**
 * The House rules panel's choices checked against what each field allows (`fields` from
 * GET /api/rules). Returns {rules, problems, notes}: `problems` name what must change before a
 * deal; `notes` say what was adjusted so the choice stays possible (a hand too big for the table).
 */
export function checkChoices(chosen, fields) {
  const rules = { ...chosen };
  const problems = [];
  const notes = [];
  const maxHand = Math.floor(52 / rules.players);
  if (rules.hand_size !== null && rules.hand_size > maxHand) {
    notes.push(`${capital(numberWord(rules.players))} players can be dealt at most ${maxHand} cards each, so each is dealt ${maxHand}.`);
    rules.hand_size = maxHand;
  }
  const limit = fields.battle_limit;
  if (rules.battle_limit !== null) {
    if (!Number.isInteger(rules.battle_limit) || rules.battle_limit < limit.min || rules.battle_limit > limit.max) {
      problems.push(`Battle limit: a whole number from ${number(limit.min)} to ${number(limit.max)}, or no limit.`);
    }
  }
  if (rules.shortage === "lose" && rules.hand_size !== null && rules.hand_size < rules.war_down + 1) {
    notes.push(`A war needs ${rules.war_down + 1} cards from each player in it, more than the ${plural(rules.hand_size, "card")} each is dealt: the first tie will probably end the round.`);
  }
  return { rules, problems, notes };
}

// -- how often the rules draw ------------------------------------------------------------------

/** Draws worth a word of advice: one round in four. */
export const MANY_DRAWS = 0.25;

/** The House rules panel's words for `share`, the part of simulated rounds of `rules` that were
 * drawn: `general`, said of any rules, and `match`, said instead when a match of `bestOf`
 * rounds would replay many draws (null when there is no need). */
export function drawWords(share, rules, bestOf) {
  const per100 = Math.round(share * 100);
  const often = per100 === 1 ? "about 1 round in 100 ends" : `about ${per100} rounds in 100 end`;
  let general;
  if (share === 0) general = "Under these rules hardly any round ends in a draw.";
  else if (per100 === 0) general = "Under these rules fewer than 1 round in 100 ends in a draw.";
  else general = `Under these rules ${often} in a draw.`;
  const limitDraws = rules.battle_limit !== null && rules.limit_outcome === "draw";
  const advice = "set At the battle limit to \u201cthe biggest pile wins\u201d";
  if (share >= MANY_DRAWS && limitDraws) general += ` For a winner more often, ${advice}.`;
  let match = null;
  if (bestOf > 1 && share >= MANY_DRAWS) {
    match = `Under these rules ${often} in a draw, and a match plays every drawn round again, so ` +
      `it may take many rounds.${limitDraws ? ` For a match, ${advice}.` : ""}`;
  }
  return { general, match };
}
