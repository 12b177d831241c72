// Play to end: battle after battle until the round ends or act.js's stopAuto stops it.
import { hideChance, showChance } from "./chance.js";
import { $ } from "./dom.js";
import { RUN_TEMPO, play } from "./play.js";
import { view } from "./render.js";
import { dispatch, draw, state, ui } from "./state.js";
import { announce } from "./table.js";

const els = { speed: $("auto-speed"), wars: $("auto-wars") };

const SPEEDS = {
  slow: { tempo: 2.2, pause: 450 },
  normal: { tempo: 1, pause: 180 },
  fast: { tempo: RUN_TEMPO, pause: 0 },
  instant: { tempo: null, pause: 0 },
};

/** Wait `ms`; stopAuto ends the wait at once. */
function rest(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      ui.auto.wake = null;
      resolve();
    }
    ui.auto.wake = done;
  });
}

export async function playToEnd() {
  const auto = ui.auto;
  if (auto.on || !state.round || state.round.outcome) return;
  auto.on = true;
  auto.stop = false;
  auto.quiet = false;
  const roundId = state.round.id;
  draw();
  hideChance(); // no estimate while it plays: it would be out of date at once
  try {
    while (!auto.stop && state.round?.id === roundId && state.round.outcome === null && !state.error) {
      if (ui.action.running) {
        await ui.action.done; // a press that was already on its way finishes first
        continue;
      }
      const speed = SPEEDS[els.speed.value] ?? SPEEDS.normal;
      const pauseOnWars = els.wars.checked;
      // At once, many battles a request; pausing on wars, or animating, one.
      const count = speed.tempo === null && !pauseOnWars ? 500 : 1;
      await play(count, null, speed.tempo);
      const last = state.lastBattle;
      if (pauseOnWars && last && last.wars > 0 && state.round.outcome === null && !auto.stop) {
        dispatch({ type: "noted", note: `${view(state).message} Paused on this war: press Play to end to go on.` });
        announce(`Paused on a war at battle ${last.number}.`);
        break;
      }
      if (speed.pause > 0 && !auto.stop) await rest(speed.pause);
    }
    if (auto.stop && !auto.quiet && state.round?.id === roundId && state.round.outcome === null) {
      dispatch({ type: "noted", note: `Stopped at battle ${state.round.battles}. Press Play to end to go on, or Turn cards for one battle.` });
    }
  } finally {
    auto.on = false;
    auto.stop = false;
    auto.quiet = false;
    draw();
    showChance();
  }
}

const remembered = (key, fallback) => {
  try {
    return window.localStorage.getItem(key) ?? fallback;
  } catch {
    return fallback; // storage turned off: the choice lasts as long as the page
  }
};

const remember = (key, value) => {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // storage turned off: nothing to do
  }
};

export function restoreChoices() {
  els.speed.value = remembered("cardwar.speed", "normal");
  if (!els.speed.value) els.speed.value = "normal";
  els.wars.checked = remembered("cardwar.pause-on-wars", "false") === "true";
}

export const rememberSpeed = () => remember("cardwar.speed", els.speed.value);

export const rememberWars = () => remember("cardwar.pause-on-wars", String(els.wars.checked));
