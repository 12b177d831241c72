// Small word helpers, the one copy every module uses. Pure functions.

const NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** 3 -> "three", 0 -> "no"; digits beyond ten. */
export const numberWord = (n) => NUMBER_WORDS[n] ?? String(n);

/** 100000 -> "100,000". */
export const number = (n) => n.toLocaleString("en");

/** 0.237 -> "24%". */
export const percent = (share) => `${Math.round(share * 100)}%`;

/** "card" for one, "cards" for any other count. */
export const noun = (n, word) => (n === 1 ? word : `${word}s`);

/** "1 card", "3 cards". */
export const plural = (n, word) => `${n} ${noun(n, word)}`;

/** "1 battle", "100,000 battles": a count with its thousands marked. */
export const counted = (n, word) => `${number(n)} ${noun(n, word)}`;

/** "the computer" -> "The computer". */
export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** "a and b", "a, b and c". */
export function joinAnd(items) {
  return items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** "a", "a, or b", "a, b, or c". */
export function joinOr(items) {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")}, or ${items.at(-1)}`;
}

/** True for the name the page gives this device's own seat. */
export const you = (name) => name === "You";

/** A name as the object of a sentence: "you", "the computer", "Mia". */
export const them = (name) => (you(name) ? "you" : name);
