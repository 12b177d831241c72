// Play to end: battle after battle until the round ends or act.js's stopAuto stops it, and its
// choices (speed, Pause on wars), remembered per browser.
import { hideChance, showChance } from "./chance.js";
import { $ } from "./dom.js";
import { livePlayed } from "./live-asks.js";
import { SPEED_TEMPO, finishWar, peopleIn, play } from "./play.js";
import { acting, dispatch, draw, state, ui } from "./state.js";

const els = { speed: $("auto-speed"), wars: $("auto-wars") };

const SPEEDS = {
  slow: { tempo: SPEED_TEMPO.slow, pause: 450 },
  normal: { tempo: SPEED_TEMPO.normal, pause: 180 },
  fast: { tempo: SPEED_TEMPO.fast, pause: 0 },
  instant: { tempo: SPEED_TEMPO.instant, pause: 0 },
};

// A run at a live table asks at most 8 battles a second of it, well inside the messages a socket
// may send (docs/api.md#limits-of-live-tables), whatever the speed.
const LIVE_RUN_MS = 125;

const speedName = () => (els.speed.value in SPEEDS ? els.speed.value : "normal");
const chosenSpeed = () => SPEEDS[speedName()];

/** Wait `ms`; stopAuto ends the wait at once. */
function rest(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      if (ui.run) ui.run.wake = null;
      resolve();
    }
    if (ui.run) ui.run.wake = done;
  });
}

/**
 * Play to end: battle after battle until the round ends or a press stops it. Its words add the
 * whole run up, however many requests it takes. With Pause on wars it stops where a war is
 * declared, before the deciding cards turn; pressed again, that war plays on first. Begun while
 * a person is in, it stops once the last of them is out (the table says the others play on);
 * begun after, it plays the others' round to its end.
 */
export async function playToEnd() {
  if (state.live) return playToEndLive();
  if (ui.run || !state.round || state.round.outcome) return;
  const auto = { stop: false, quiet: false, wake: null };
  ui.run = auto;
  const roundId = state.round.id;
  const held = ui.phase === "held";
  let run = held ? "more" : "new"; // the war it paused on is part of its run
  let played = 0;
  const watching = peopleIn().length > 0;
  draw();
  hideChance(); // no estimate while it plays: it would be out of date at once
  try {
    if (held) {
      await finishWar(null, chosenSpeed().tempo ?? 0, { name: "Play to end" });
      played += 1;
    }
    while (!auto.stop && state.round?.id === roundId && state.round.outcome === null && !state.error) {
      if (acting()) {
        await ui.action.done; // a press that was already on its way finishes first
        continue;
      }
      const speed = chosenSpeed();
      const pauseOnWars = els.wars.checked;
      // At once, many battles a request; pausing on wars, or animating, one.
      const count = speed.tempo === null && !pauseOnWars ? 500 : 1;
      // Instant with pauses still plays each battle through the stage (at no speed) to stop at a war.
      const tempo = pauseOnWars ? speed.tempo ?? 0 : speed.tempo;
      const before = state.round.battles;
      await play(count, null, tempo, { name: "Play to end", run, holdAtWar: pauseOnWars });
      if (state.round?.id === roundId && state.round.battles > before) {
        played += state.round.battles - before;
        run = "more";
      }
      if (ui.phase === "held") break; // paused on a war: the table holds it until a press plays it on
      if (watching && peopleIn().length === 0) break; // out: the others play on without you
      if (speed.pause > 0 && !auto.stop) await rest(speed.pause);
    }
    const stopped = auto.stop && !auto.quiet && state.round?.id === roundId && state.round.outcome === null;
    if (ui.phase === "held") {
      // Paused: the words are the war's, said as it was declared.
    } else if (played > 0 && state.round?.id === roundId && !state.error) {
      dispatch({ type: "ranOut", stopped });
    } else if (stopped && !state.error) {
      dispatch({ type: "noted", note: `Stopped at battle ${state.round.battles}. Press Play to end to go on, or Turn cards for one battle.` });
    }
  } finally {
    ui.run = null;
    draw();
    if (ui.phase !== "held") showChance();
  }
}

/**
 * Play to end at a live table, the host's: battle after battle at the host's speed, each asked
 * of the table and shown on every device as it comes (at that speed there too), until the round
 * ends or a press stops it; with Pause on wars it stops once a war has been shown.
 */
async function playToEndLive() {
  if (ui.run || !state.round || state.round.outcome) return;
  const auto = { stop: false, quiet: false, wake: null };
  const roundId = state.round.id;
  let war = false;
  const going = () => !auto.stop && state.live?.link === "open" && state.round?.id === roundId && state.round.outcome === null;
  ui.run = auto;
  draw();
  try {
    while (going()) {
      const speed = chosenSpeed();
      const pauseOnWars = els.wars.checked;
      const asked = performance.now();
      const landed = await livePlayed({ count: speed.tempo === null && !pauseOnWars ? 500 : 1, speed: speedName() });
      if (!landed || state.round?.id !== roundId) break; // refused, out of touch, or dealt anew
      war = pauseOnWars && (state.lastBattle?.wars ?? 0) > 0;
      if (war) break;
      const wait = Math.max(speed.pause, LIVE_RUN_MS - (performance.now() - asked));
      if (wait > 0 && going()) await rest(wait);
    }
    const stopped = auto.stop && !auto.quiet && state.round?.id === roundId && state.round.outcome === null;
    if (war && state.round?.outcome === null) {
      dispatch({ type: "noted", note: `Paused after the war at battle ${state.round.battles}. Press Play to end to go on, or Turn cards for one battle.` });
    } else if (stopped) {
      dispatch({ type: "noted", note: `Stopped at battle ${state.round.battles}. Press Play to end to go on, or Turn cards for one battle.` });
    }
  } finally {
    ui.run = null;
    draw();
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
