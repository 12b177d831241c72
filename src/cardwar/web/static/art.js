// Card art, drawn by us: pure functions from a card code to SVG markup (and, last, the two that
// make an element of it). Pips, court figures and the back are <symbol>s in the page's sprite
// (index.html), reused with <use>, so every card is drawn by the same few lines and the whole
// deck costs a few kilobytes.

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

// Pip centres of the number cards on a 100 x 140 card, as on a printed deck: three columns,
// rows from 30 to 110. Pips below the middle are drawn upside down.
const L = 32, C = 50, R = 68;
const PIPS = {
  2: [[C, 30], [C, 110]],
  3: [[C, 30], [C, 70], [C, 110]],
  4: [[L, 30], [R, 30], [L, 110], [R, 110]],
  5: [[L, 30], [R, 30], [C, 70], [L, 110], [R, 110]],
  6: [[L, 30], [R, 30], [L, 70], [R, 70], [L, 110], [R, 110]],
  7: [[L, 30], [R, 30], [C, 50], [L, 70], [R, 70], [L, 110], [R, 110]],
  8: [[L, 30], [R, 30], [C, 50], [L, 70], [R, 70], [C, 90], [L, 110], [R, 110]],
  9: [[L, 30], [R, 30], [L, 56.7], [R, 56.7], [C, 70], [L, 83.3], [R, 83.3], [L, 110], [R, 110]],
  T: [[L, 30], [R, 30], [C, 43], [L, 56.7], [R, 56.7], [L, 83.3], [R, 83.3], [C, 97], [L, 110], [R, 110]],
};
const PIP = 18; // a number card's pip, in card units

/** "9S" -> "9♠", "TH" -> "10♥". */
export function cardLabel(code) {
  return (RANKS[code[0]] ?? code[0]) + SUITS[code[1]].glyph;
}

/** "KD" -> "king of diamonds": what a screen reader says. */
export function cardWords(code) {
  return `${RANK_WORDS[code[0]]} of ${SUITS[code[1]].name}`;
}

/** "8S" -> "an 8", "KD" -> "a king": a rank in a sentence. */
export function rankPhrase(code) {
  const word = RANK_WORDS[code[0]];
  return `${word === "8" || word === "ace" ? "an" : "a"} ${word}`;
}

const use = (id, x, y, size, turned = false) =>
  `<use href="#${id}" x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size}"` +
  (turned ? ` transform="rotate(180 ${x} ${y})"` : "") + "/>";

// A corner index, in a group of its own: extra-large cards (style.css, `data-cards="large"`)
// scale it up from the card's corner, as a jumbo-index deck prints it.
function corner(rank, suit) {
  const tight = rank === "10" ? ' textLength="17" lengthAdjust="spacingAndGlyphs"' : "";
  return `<g class="corner"><text class="index" x="11" y="23" text-anchor="middle"${tight}>${rank}</text>` +
    `${use(`pip-${suit}`, 11, 33, 12)}</g>`;
}

function middle(code) {
  const suit = code[1];
  if (code[0] === "A") return use(`pip-${suit}`, 50, 70, suit === "S" ? 54 : 46);
  if ("JQK".includes(code[0])) {
    // The figure's top half, then the same figure upside down, as on a double-headed card.
    const half = `<use href="#court-${code[0]}" x="22" y="22" width="56" height="48"/>` +
      use(`pip-${suit}`, 30, 30, 10);
    return `<rect class="frame" x="22" y="22" width="56" height="96" rx="3"/>` +
      `<g>${half}</g><g transform="rotate(180 50 70)">${half}</g>`;
  }
  return PIPS[code[0]].map(([x, y]) => use(`pip-${suit}`, x, y, PIP, y > 70)).join("");
}

/** The class that colours a suit: `suit-S`, `suit-H`, `suit-D`, `suit-C`. Two colours, or four
 * with `data-suits="four"` on the page (style.css), on cards and on suit signs in words alike. */
export const suitClass = (suit) => `suit-${suit}`;

/** One face-up card as SVG markup: corner indices, pips, court figures or the ace's big pip. */
export function cardSvg(code, extraClass = "") {
  const rank = RANKS[code[0]] ?? code[0];
  const colour = SUITS[code[1]].red ? "red" : "black";
  const index = corner(rank, code[1]);
  return (
    `<svg class="card face ${colour} ${suitClass(code[1])} ${extraClass}" viewBox="0 0 100 140" role="img"` +
    ` aria-label="${cardWords(code)}" data-code="${code}">` +
    `<rect class="paper" x="1" y="1" width="98" height="138" rx="8"/>` +
    `<g class="middle">${middle(code)}</g>${index}<g transform="rotate(180 50 70)">${index}</g></svg>`
  );
}

/** A face-down card: our own back. `letter` marks the W, A and R of a three-card war. */
export function backSvg(extraClass = "", letter = "") {
  const mark = letter
    ? `<g class="war-letter"><circle cx="19" cy="24" r="12.5"/><text x="19" y="29.5" text-anchor="middle">${letter}</text></g>`
    : "";
  return (
    `<svg class="card back ${extraClass}" viewBox="0 0 100 140" aria-hidden="true">` +
    `<use href="#card-back" width="100" height="140"/>${mark}</svg>`
  );
}

/** SVG markup as an element of the page. */
export function fromMarkup(markup) {
  const template = document.createElement("template");
  template.innerHTML = markup;
  return template.content.firstElementChild;
}

/** A card as `laidBySeat` lays it (face up, or down with its W-A-R letter) as an element,
 * dimmed once spent. */
export function laidCard(item) {
  const card = fromMarkup(item.kind === "up" ? cardSvg(item.code) : backSvg("", item.letter));
  card.classList.toggle("spent", item.spent);
  return card;
}
