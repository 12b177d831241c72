// Pure functions: figures in, words and SVG markup out, for the chance meter and the Statistics
// view. Our own SVG, no library: a bar of shares and a histogram are a few rectangles.

import { capital, number, numberWord, percent } from "./words.js";

// The best cards by the rules: aces, or twos under Peace (docs/api.md#the-chance-to-win).
const BEST = {
  A: { one: "ace", many: "aces", high: "aces and picture cards" },
  2: { one: "two", many: "twos", high: "twos, threes, fours and fives" },
};

const isYou = (name) => name === "You";
const mid = (name) => (isYou(name) ? "you" : name); // a name inside a sentence
const holds = (name) => (isYou(name) ? "hold" : "holds");

/** "three of the four aces", "all four aces", "the only ace in play", "one of the two aces in
 * play": how many of the best cards dealt a seat holds. */
function bestPhrase(held, inPlay, rank) {
  const { one, many } = BEST[rank];
  if (inPlay === 1) return `the only ${one} in play`;
  if (held === 2 && inPlay === 2) return `both ${many} in play`;
  const them = inPlay === 4 ? `four ${many}` : `${numberWord(inPlay)} ${many} in play`;
  if (held === inPlay) return `all ${them}`;
  return `${numberWord(held)} of the ${them}`;
}

/** What `a` holds that `b` does not: more cards, more of the best cards, else more of the high
 * ones; each as the words after "holds". */
function edges(a, b, chance) {
  const found = [];
  if (a.cards > b.cards) found.push(`more cards, ${a.cards} to ${b.cards}`);
  if (chance.best_in_play > 0 && a.best > b.best) {
    found.push(bestPhrase(a.best, chance.best_in_play, chance.best_rank));
  } else if (chance.high_in_play > 0 && a.best === b.best && a.high > b.high) {
    found.push(`more of the ${BEST[chance.best_rank].high}, ${a.high} to ${b.high}`);
  }
  return found;
}

/** Why the meter says what it says, in words a child can follow: what the seat most likely to
 * win holds that the other does not ("You hold more cards, 33 to 19, but the computer holds
 * three of the four aces."). `you` is seat 0; the other is the likeliest winner of the rest, or
 * the likeliest of all when that is not you. Null without the answer's `holdings`. */
export function chanceReason(chance, names) {
  if (!chance.holdings) return null;
  const likeliest = (seats) => seats.reduce((a, b) => (chance.seats[b] > chance.seats[a] ? b : a));
  const others = names.map((_, seat) => seat).filter((seat) => seat > 0 && chance.holdings[seat].cards > 0);
  if (others.length === 0) return null;
  const rival = likeliest(others);
  const [ahead, behind] = chance.seats[0] >= chance.seats[rival] ? [0, rival] : [rival, 0];
  const hold = (seat) => chance.holdings[seat];
  const forAhead = edges(hold(ahead), hold(behind), chance);
  const forBehind = edges(hold(behind), hold(ahead), chance);
  // "more cards, 33 to 19, and all four aces": a comma closes the count before the "and".
  const said = (seat, what) => `${mid(names[seat])} ${holds(names[seat])} ${what.join(", and ")}`;
  if (forAhead.length > 0 && forBehind.length > 0) return `${capital(said(behind, forBehind))}, but ${said(ahead, forAhead)}.`;
  if (forAhead.length > 0) return `${capital(said(ahead, forAhead))}.`;
  if (forBehind.length > 0) return `${capital(said(behind, forBehind))}, yet ${mid(names[ahead])} ${isYou(names[ahead]) ? "win" : "wins"} more of the tries.`;
  const many = BEST[chance.best_rank].many;
  return `It could go either way: ${mid(names[0])} and ${mid(names[rival])} hold as many cards and as many ${many} as each other.`;
}

/** The chance meter's one line, from what the table shows: the cards each pile holds ("You hold
 * 30 cards to the computer's 22.", "You hold 13 of the 52 cards in play."). */
export function chanceLine(counts, names) {
  const total = counts.reduce((a, b) => a + b, 0);
  const who = isYou(names[0]) ? "You hold" : `${names[0]} holds`;
  if (counts.length === 2) {
    return `${who} ${counts[0]} ${counts[0] === 1 ? "card" : "cards"} to ${names[1]}'s ${counts[1]}.`;
  }
  const aside = 52 - total; // a deal that does not share out evenly, or a short deck
  const why = aside <= 0 ? "" : aside === 1 ? " (one was set aside at the deal)" : ` (${aside} were set aside at the deal)`;
  return `${who} ${counts[0]} of the ${total} cards in play${why}.`;
}

/** The chance meter's words: a headline figure, and sentences saying why and what it means
 * (what a Peek at the piles shows). */
export function chanceWords(chance, names) {
  const others = names.slice(1).map((name, i) => `${name} ${Math.round(chance.seats[i + 1] * 100)}`);
  const draw = Math.round(chance.draw * 100);
  const rest = others.length === 1 ? others[0].replace(/ (\d+)$/, " about $1") : others.join(", ");
  const who = isYou(names[0]) ? "you" : names[0];
  const meaning =
    `If every pile were shuffled now, ${who} would win about ${Math.round(chance.you * 100)} ` +
    `rounds in 100 from here, ${rest}${draw > 0 ? `, and ${draw} would be drawn` : ""} ` +
    `(${number(chance.runs)} tries).`;
  const reason = chanceReason(chance, names);
  return { value: percent(chance.you), reason, sentence: reason ? `${reason} ${meaning}` : meaning };
}

/** A horizontal bar split into shares: [{label, share, kind}] -> SVG markup with a title. */
export function shareBar(parts, title) {
  let x = 0;
  const bars = parts.map((part) => {
    const width = part.share * 100;
    const bar = `<rect class="share ${part.kind}" x="${x.toFixed(3)}" y="0" width="${width.toFixed(3)}" height="10"/>`;
    x += width;
    return bar;
  });
  const words = parts.map((part) => `${part.label} ${percent(part.share)}`).join(", ");
  return (
    `<svg class="share-bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" ` +
    `aria-label="${title}: ${words}">${bars.join("")}</svg>`
  );
}

/** Counts by value (index = value), gathered into at most `most` equal bins from 0 up to the
 * largest value seen: [{from, to, count}]. */
export function bins(counts, most = 40) {
  const top = counts.length - 1;
  if (top < 0) return [];
  const width = Math.max(1, Math.ceil((top + 1) / most));
  const out = [];
  for (let from = 0; from <= top; from += width) {
    const to = Math.min(top, from + width - 1);
    let count = 0;
    for (let v = from; v <= to; v++) count += counts[v] ?? 0;
    out.push({ from, to, count });
  }
  return out;
}

/** A histogram as SVG markup: bars, the axis's ends labelled, and a description for screen
 * readers that names the tallest bin. */
export function histogramSvg(counts, { title, unit }) {
  const parts = bins(counts);
  if (parts.length === 0) return "";
  const tallest = parts.reduce((a, b) => (b.count > a.count ? b : a));
  const width = 300;
  const height = 120;
  const step = width / parts.length;
  const bars = parts.map((part, i) => {
    const h = tallest.count === 0 ? 0 : (part.count / tallest.count) * (height - 4);
    return `<rect class="bin" x="${(i * step + 0.5).toFixed(2)}" y="${(height - h).toFixed(2)}" ` +
      `width="${Math.max(step - 1, 0.5).toFixed(2)}" height="${h.toFixed(2)}"/>`;
  });
  const last = parts.at(-1).to;
  const at = (value) => ((value / (last + 1)) * width).toFixed(2); // a value's x on the axis
  const ticks = axisTicks(last).map((value, i, all) => {
    const anchor = i === 0 ? "start" : i === all.length - 1 && value === last ? "end" : "middle";
    const name = i === all.length - 1 ? `${number(value)} ${unit}` : number(value);
    return `<line class="axis" x1="${at(value)}" y1="${height}" x2="${at(value)}" y2="${height + 4}"/>` +
      `<text class="tick" x="${at(value)}" y="${height + 15}" text-anchor="${anchor}">${name}</text>`;
  });
  const range = (part) => (part.from === part.to ? `${part.from}` : `${part.from} to ${part.to}`);
  const label = `${title}: the most rounds, ${number(tallest.count)}, had ${range(tallest)} ${unit}; ` +
    `the longest had ${number(last)}.`;
  return (
    `<svg class="histogram" viewBox="0 0 ${width} ${height + 18}" role="img" aria-label="${label}">` +
    `<line class="axis" x1="0" y1="${height + 0.5}" x2="${width}" y2="${height + 0.5}"/>` +
    bars.join("") +
    ticks.join("") +
    `</svg>`
  );
}

/** Where an axis of whole numbers from 0 to `last` is marked: 0, round steps of 1, 2 or 5 times
 * a power of ten (five marks at most), and `last` itself, in place of a mark too close to it
 * for both labels to be read. */
export function axisTicks(last) {
  if (last <= 0) return [0];
  const rough = last / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((k) => k * power).find((s) => s >= rough));
  const marks = [];
  for (let value = 0; value <= last; value += step) marks.push(value);
  if (last - marks.at(-1) >= step * 0.75) marks.push(last);
  else if (marks.length > 1) marks[marks.length - 1] = last;
  return marks;
}

/** "0.4 seconds", or "under a tenth of a second" for a run too quick for that. */
function took(seconds) {
  return seconds < 0.1 ? "under a tenth of a second" : `${seconds.toFixed(1)} seconds`;
}

/** The Statistics view's words and shares for one simulation's result. */
export function statsView(result, names) {
  const rounds = result.rounds;
  const share = (n) => (rounds === 0 ? 0 : n / rounds);
  const outcome = [
    ...names.map((name, seat) => ({ label: `${name} won`, share: share(result.wins[seat]), kind: seat === 0 ? "you" : `seat${seat}` })),
    { label: "Drawn", share: share(result.draws), kind: "draw" },
  ];
  const endings = Object.entries(result.reasons)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${ENDINGS[reason]} ${percent(share(count))}`);
  const b = result.battles;
  const w = result.wars_per_round;
  const played = `${number(rounds)} rounds played in ${took(result.seconds)}` +
    (result.stopped_by_time ? ` (the server stopped at its 2 seconds, before the ${number(result.rounds_asked)} asked)` : "") + ".";
  return {
    played,
    outcome,
    endings: endings.join(" · "),
    battles: `Battles a round: ${b.mean.toFixed(1)} on average, half the rounds ${number(b.median)} or fewer, ` +
      `nine in ten ${number(b.p90)} or fewer, the longest ${number(b.max)}.`,
    wars: `Wars a round: ${w.mean.toFixed(1)} on average, the most ${number(w.max)}.`,
  };
}

const ENDINGS = {
  all_cards: "took every card",
  opponent_short: "short of cards for a war",
  both_short: "both short",
  battle_limit: "battle limit",
  most_cards: "most cards at the limit",
  time_up: "clock",
  most_cards_tie: "a tie in the count",
  cycle: "a loop",
};
