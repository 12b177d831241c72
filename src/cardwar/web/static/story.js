// Pure functions: a finished round's story (each seat's cards battle by battle, and its wars,
// as `GET /api/rounds/{id}/story` gives them) in, SVG markup and sentences out.

import { counted, number } from "./words.js";

const times = (n) => (n === 1 ? "once" : n === 2 ? "twice" : `${number(n)} times`);

// The chart's plot area inside its viewBox, and room around it for the axes' labels.
export const CHART = { left: 24, top: 8, width: 300, height: 150, bottom: 22 };

const x = (battle, total) => CHART.left + (total === 0 ? 0 : (battle / total) * CHART.width);
const y = (count, cards) => CHART.top + CHART.height - (count / cards) * CHART.height;

/** The battle a point `px` across the chart's viewBox stands for: 1 to `total`. */
export function battleAt(px, total) {
  const share = (px - CHART.left) / CHART.width;
  return Math.min(total, Math.max(1, Math.round(share * total)));
}

/** The count of `seat` at `battle`, from the nearest point at or before it. */
function countAt(points, seat, battle) {
  let found = points[0];
  for (const point of points) {
    if (point.battle > battle) break;
    found = point;
  }
  return found.counts[seat];
}

function warName(wars) {
  if (wars === 1) return "a war";
  if (wars === 2) return "a double war";
  if (wars === 3) return "a triple war";
  return `${wars} wars in a row`;
}

/** The story chart: one line per seat, a tick under each battle with a war, the biggest war
 * ringed. `labels` are the seats' names on the table; the description names who ended ahead. */
export function storySvg(story, labels) {
  const total = story.battles;
  const cards = story.points[0].counts.reduce((a, b) => a + b, 0);
  const lines = labels.map((_, seat) => {
    const path = story.points.map((p) => `${x(p.battle, total).toFixed(1)},${y(p.counts[seat], cards).toFixed(1)}`);
    return `<polyline class="line s${seat}" points="${path.join(" ")}"/>`;
  });
  const base = CHART.top + CHART.height;
  const ticks = story.wars.map((war) => {
    const at = x(war.battle, total).toFixed(1);
    return `<line class="war-tick" x1="${at}" y1="${base + 2}" x2="${at}" y2="${base + 7}"/>`;
  });
  let ring = "";
  if (story.biggest_war) {
    const war = story.biggest_war;
    const seat = war.winner ?? 0;
    ring = `<circle class="biggest" cx="${x(war.battle, total).toFixed(1)}" ` +
      `cy="${y(countAt(story.points, seat, war.battle), cards).toFixed(1)}" r="4.5"/>`;
  }
  const grid = [0, Math.round(cards / 2), cards].map((count) => {
    const at = y(count, cards).toFixed(1);
    return `<line class="grid" x1="${CHART.left}" y1="${at}" x2="${CHART.left + CHART.width}" y2="${at}"/>` +
      `<text class="tick" x="${CHART.left - 4}" y="${(Number(at) + 4).toFixed(1)}" text-anchor="end">${number(count)}</text>`;
  });
  const right = CHART.left + CHART.width;
  const end = story.points.at(-1).counts;
  const ahead = end.map((count, seat) => `${labels[seat]} ${count}`).join(", ");
  const label = `Cards held battle by battle over ${number(total)} battles, ` +
    `${number(story.wars.length)} of them with a war. At the end: ${ahead}.`;
  return (
    `<svg class="story-chart" viewBox="0 0 ${right + 6} ${base + CHART.bottom}" role="img" aria-label="${label}">` +
    grid.join("") + lines.join("") + ticks.join("") + ring +
    `<text class="tick" x="${CHART.left}" y="${base + 20}">Dealt</text>` +
    `<text class="tick" x="${right}" y="${base + 20}" text-anchor="end">Battle ${number(total)}</text>` +
    `<rect class="hit" x="${CHART.left}" y="0" width="${CHART.width}" height="${base + 8}"/>` +
    `</svg>`
  );
}

/** A few sentences drawn from the story: the lead, the wars, and the biggest war. `names` are
 * the seats' names in a sentence ("You", "the computer"). */
export function storyWords(story, names) {
  const sentences = [];
  const total = story.battles;
  if (total === 0) return ["The round ended before any battle was played."];
  const end = story.points.at(-1).counts;
  if (story.lead_changes === 0) {
    const most = Math.max(...end);
    const leader = end.indexOf(most);
    const alone = end.filter((count) => count === most).length === 1;
    sentences.push(alone && names.length === 2
      ? `The lead never changed hands: once ${names[leader] === "You" ? "you" : names[leader]} went ahead, ${names[leader] === "You" ? "you" : "it"} stayed ahead.`
      : "The lead never changed hands.");
  } else {
    sentences.push(`The lead changed hands ${times(story.lead_changes)}.`);
  }
  const wars = story.wars.reduce((sum, war) => sum + war.wars, 0);
  sentences.push(wars === 0
    ? `There was not a single war in ${counted(total, "battle")}.`
    : `There ${wars === 1 ? "was one war" : `were ${number(wars)} wars`} in ${counted(total, "battle")}.`);
  const war = story.biggest_war;
  if (war && war.winner === null) {
    sentences.push(`The biggest, ${warName(war.wars)} at battle ${number(war.battle)}, could not be finished.`);
  } else if (war) {
    const who = names[war.winner] === "You" ? "you" : names[war.winner];
    sentences.push(`The biggest was ${warName(war.wars)} at battle ${number(war.battle)}, which won ${who} ${number(war.taken)} cards.`);
  }
  return sentences;
}

/** The details beneath a round's result, in one line: "80 battles · 6 wars · the biggest took
 * 14 cards at battle 37", or "12 battles · no war". */
export function resultDetails(story) {
  const wars = story.wars.reduce((sum, war) => sum + war.wars, 0);
  const parts = [counted(story.battles, "battle"), wars === 0 ? "no war" : counted(wars, "war")];
  const war = story.biggest_war;
  if (war && war.winner !== null) parts.push(`the biggest took ${number(war.taken)} cards at battle ${number(war.battle)}`);
  return parts.join(" · ");
}
