// Keys, and a tap on the table: each skips the battle playing and stops Play to end.
import { skipAnimation, stopAuto } from "./act.js";
import { ui } from "./state.js";
import { controls } from "./table.js";

const KEYS = { t: controls.turn, " ": controls.turn, p: controls.ten, e: controls.auto, n: controls.deal };
const QUIET = ["shift", "tab"]; // keys that only move the focus or wait for another key

export function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  const key = event.key.toLowerCase();
  if (ui.auto.on && key === "escape") {
    stopAuto(); // wherever the focus is
    return;
  }
  if (document.querySelector("dialog[open]")) return;
  if (target instanceof HTMLElement && target.closest("input, textarea, select, summary")) return;
  if (ui.auto.on && !QUIET.includes(key)) {
    event.preventDefault();
    stopAuto();
    return;
  }
  if ((key === " " || key === "enter") && target instanceof HTMLButtonElement) return; // the button clicks itself
  const button = KEYS[key];
  if (!button) {
    if (!QUIET.includes(key)) skipAnimation();
    return;
  }
  event.preventDefault();
  if (!button.disabled) button.click();
}

export function onTableTap() {
  stopAuto();
  skipAnimation();
}
