// Keys, and a tap on the table: each skips the battle playing and stops Play to end. Each person
// at the table has a flip key of their own (table.js's FLIP_KEYS); seat 0's is Turn cards' T, and
// Space.
import { skipAnimation, stopAuto } from "./act.js";
import { ui } from "./state.js";
import { FLIP_KEYS, controls, flipButton } from "./table.js";

const KEYS = { t: controls.turn, " ": controls.turn, p: controls.ten, e: controls.auto, n: controls.deal };
const FLIPS = Object.fromEntries(FLIP_KEYS.slice(1).map((key, i) => [key.toLowerCase(), i + 1]));
const QUIET = ["shift", "tab"]; // keys that only move the focus or wait for another key

export function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  if (ui.phase === "celebrating") return; // the celebration takes this key to end itself
  const target = event.target;
  const key = event.key.toLowerCase();
  if (ui.run && key === "escape") {
    stopAuto(); // wherever the focus is
    return;
  }
  if (document.querySelector("dialog[open]")) return;
  if (target instanceof HTMLElement && target.closest("input, textarea, select, summary")) return;
  if (ui.run && !QUIET.includes(key)) {
    event.preventDefault();
    stopAuto();
    return;
  }
  if (key === "enter" && target instanceof HTMLButtonElement) return; // the button clicks itself
  // Space is Turn cards (the first seat's flip) wherever the focus is, but in a field or a
  // dialog: a focused House rules or New round never takes it. With nothing to flip (the round
  // over), the focused control acts on it, as Enter does.
  if (key === " " && controls.turn.disabled && target instanceof HTMLElement && target.closest("button, summary")) return;
  const button = KEYS[key] ?? (key in FLIPS ? flipButton(FLIPS[key]) : null);
  if (!button) {
    if (!QUIET.includes(key)) skipAnimation();
    return;
  }
  event.preventDefault();
  if (!button.disabled) button.click();
}

let tapStopped = false; // the tap now ending stopped Play to end: its click does nothing more

export function onTableTap(event) {
  if (event?.target instanceof Element && event.target.closest("button")) return; // a flip button acts itself
  tapStopped = ui.run !== null;
  stopAuto();
  skipAnimation();
}

/** True once for the click of a tap that stopped Play to end. */
export function tapStoppedRun() {
  const stopped = tapStopped;
  tapStopped = false;
  return stopped;
}
