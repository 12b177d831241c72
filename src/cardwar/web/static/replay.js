// The replay: any battle of a round, played again by the server from the round's deal, stepped
// back and forth in a dialog. Opened from "Watch the replay" or from a tap on the story chart.
import { ApiError, api } from "./api.js";
import { laidCard } from "./art.js";
import { laidBySeat } from "./battle.js";
import { $ } from "./dom.js";
import { seatWords } from "./seats.js";
import { ui } from "./state.js";
import { describeBattle } from "./tell.js";
import { number, plural } from "./words.js";

const els = {
  dialog: $("replay"),
  where: $("replay-where"),
  seats: $("replay-seats"),
  words: $("replay-words"),
  back: $("replay-back"),
  forward: $("replay-forward"),
  slider: $("replay-slider"),
  error: $("replay-error"),
};

const shown = ui.replay;

function drawBattle(result) {
  const { battle, counts_before: before } = result;
  const players = shown.round.rules.players;
  const { labels, names } = seatWords(shown.round.seats, players);
  const laid = laidBySeat(battle, players);
  const rows = labels.map((label, seat) => {
    const row = document.createElement("div");
    row.className = "replay-seat";
    row.classList.toggle("winner", battle.winner === seat);
    const name = document.createElement("p");
    name.className = "replay-name";
    name.innerHTML = `<strong></strong> <span class="replay-counts"></span>`;
    name.querySelector("strong").textContent = label;
    name.querySelector(".replay-counts").textContent =
      `${plural(before[seat], "card")} → ${battle.counts[seat]}`;
    const cards = document.createElement("div");
    cards.className = "replay-cards";
    if (laid[seat].length === 0) cards.textContent = before[seat] === 0 ? "out" : "waits";
    for (const item of laid[seat]) cards.append(laidCard(item));
    row.append(name, cards);
    return row;
  });
  els.seats.replaceChildren(...rows);
  // One live region says where the replay is and what happened, so a step is read out whole.
  els.words.textContent = `Battle ${battle.number}: ${describeBattle(battle, names)}`;
}

function drawPlace() {
  const total = shown.round.battles;
  els.where.textContent = `Battle ${number(shown.number)} of ${number(total)}`;
  els.slider.max = String(total);
  els.slider.value = String(shown.number);
  els.slider.setAttribute("aria-valuetext", `Battle ${shown.number} of ${total}`);
  const focused = document.activeElement;
  els.back.disabled = shown.number <= 1;
  els.forward.disabled = shown.number >= total;
  // A step button that has just run out hands the focus to the other, so the keys still work.
  if (focused === els.back && els.back.disabled && !els.forward.disabled) els.forward.focus();
  if (focused === els.forward && els.forward.disabled && !els.back.disabled) els.back.focus();
}

/** Show battle `at` of the round on the table (asked of the server unless seen already). */
async function go(at) {
  const total = shown.round.battles;
  shown.number = Math.min(total, Math.max(1, at));
  drawPlace();
  // By round too: an answer for an earlier round's replay may land after this one opened.
  const key = `${shown.round.id}/${shown.number}`;
  const asked = ++shown.asked;
  let result = shown.cache.get(key);
  if (!result) {
    els.dialog.setAttribute("aria-busy", "true");
    try {
      result = await api("GET", `/api/rounds/${encodeURIComponent(shown.round.id)}/battles/${shown.number}`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (asked === shown.asked) {
        els.error.textContent = error.message;
        els.dialog.removeAttribute("aria-busy");
      }
      return;
    }
    shown.cache.set(key, result);
  }
  if (asked !== shown.asked) return; // a later step is on its way
  els.dialog.removeAttribute("aria-busy"); // even when an earlier step's answer is on its way
  els.error.textContent = "";
  drawBattle(result);
}

/** Open the replay of `round` (a round that has played at least one battle) at battle `at`;
 * the focus goes back to `opener` when it closes. */
export function openReplay(round, at = 1, opener = null) {
  if (shown.round?.id !== round.id || shown.round.battles !== round.battles) shown.cache.clear();
  shown.round = round;
  shown.opener = opener;
  els.dialog.dataset.players = String(round.rules.players);
  els.error.textContent = "";
  if (!els.dialog.open) els.dialog.showModal();
  go(at);
  (els.forward.disabled ? els.back : els.forward).focus();
}

export const stepBack = () => go(shown.number - 1);
export const stepForward = () => go(shown.number + 1);
export const slide = () => go(Number(els.slider.value));
export const closeReplay = () => els.dialog.close();

/** The focus goes back where it came from; not for a close event queued before a reopening. */
export function replayClosed() {
  if (!els.dialog.open) shown.opener?.focus();
}

/** Arrows step, Home and End go to the first and the last battle. */
export function replayKey(event) {
  if (event.target === els.slider) return; // the slider steps itself
  const total = shown.round?.battles ?? 1;
  const to = { ArrowLeft: shown.number - 1, ArrowRight: shown.number + 1, Home: 1, End: total }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  go(to);
}
