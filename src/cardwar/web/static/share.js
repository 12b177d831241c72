// Pure functions: a deal as a link and back. A link carries the round's rules and seed (and its
// explicit deal, when it had one), never a round id: opening it deals a fresh round, so a link
// never lets anyone play someone else's round.

const FIELDS = ["players", "hand_size", "war_down", "shortage", "battle_limit", "limit_outcome",
  "time_limit_s", "low_wins", "gather"];

/** What replays a finished round's deal: `{rules, seed}`, with `deal` when it was dealt by
 * hand; `base` (the classic rules, which the server fills in) leaves out the fields that match
 * it. Null when the seed is beyond what a browser's numbers hold exactly. */
export function dealOf(round, base = {}) {
  if (!Number.isSafeInteger(round.seed)) return null;
  const rules = Object.fromEntries(Object.entries(round.rules).filter(([field, value]) => base[field] !== value));
  const again = { rules, seed: round.seed };
  if (round.deal) again.deal = round.deal;
  return again;
}

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("it has characters a shared deal never has");
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

// The names a computer gives itself: a page opened at one of them is seen by this computer only.
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True when `hostname` (as `location.hostname` has it) names this computer only, so a link to
 * it opens nowhere else: localhost, 127.0.0.1 (or any 127.x.y.z), ::1. */
export function isLoopback(hostname) {
  const host = hostname.toLowerCase();
  return LOOPBACK.has(host) || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The link that deals `again` (from dealOf) on the page at `origin`. */
export function shareLink(origin, again) {
  return `${origin}/?deal=${toBase64Url(JSON.stringify(again))}`;
}

/** The deal a link's `deal` parameter carries, checked for shape (the server checks the
 * values); throws an Error whose message says what is wrong with it. */
export function readShared(token) {
  let data;
  try {
    data = JSON.parse(fromBase64Url(token));
  } catch (error) {
    throw new Error(error.message.startsWith("it has") ? error.message : "it is cut short or changed");
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new Error("it holds no deal");
  const unknown = Object.keys(data).filter((key) => !["rules", "seed", "deal"].includes(key));
  if (unknown.length > 0) throw new Error(`it has an unknown part, ${unknown[0]}`);
  if (!Number.isSafeInteger(data.seed) || data.seed < 0) throw new Error("its seed is not a whole number");
  if (data.rules === null || typeof data.rules !== "object" || Array.isArray(data.rules)) {
    throw new Error("its rules are missing");
  }
  const extra = Object.keys(data.rules).filter((key) => !FIELDS.includes(key));
  if (extra.length > 0) throw new Error(`its rules have an unknown field, ${extra[0]}`);
  if (data.deal !== undefined && !(Array.isArray(data.deal) && data.deal.every(Array.isArray))) {
    throw new Error("its deal is not a list of piles");
  }
  return data;
}
