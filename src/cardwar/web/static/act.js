// One action at a time: a press during a request does nothing (a request is never doubled); a
// press while cards move skips them, then acts. A press also stops Play to end, and lands a war
// Play to end paused on (unless the press is the one that plays it on). The game out of reach is
// offline.js's, which sets `outOfReach`.
import { ApiError } from "./api.js";
import { celebrate } from "./celebrate.js";
import { showChance } from "./chance.js";
import { sound } from "./sound.js";
import { acting, dispatch, draw, enter, moving, state, ui } from "./state.js";
import { announce, controls, markTableBusy, stage } from "./table.js";
import { view } from "./update.js";

/** The game out of reach, as offline.js handles it (it sets both, and it acts itself: act.js
 * stays free of it): `lost()` when a request could not reach the game, `refused()` true when a
 * press that needs the game must wait for it. */
export const outOfReach = { lost: () => {}, refused: () => false };

/** A war Play to end paused on lands at once: the table shows the whole battle. */
export function landHeld() {
  if (ui.phase !== "held") return;
  ui.war = null;
  enter("idle");
  draw();
}

export function skipAnimation() {
  if (ui.phase === "held") {
    landHeld();
    return;
  }
  if (!moving()) return;
  ui.action.skip = true;
  stage.skip();
}

/** End Play to end. `quiet` when another control ends it: that control then has its say. */
export function stopAuto({ quiet = false } = {}) {
  const run = ui.run;
  if (!run) return;
  run.stop = true;
  run.quiet = quiet;
  run.wake?.();
  skipAnimation();
}

/** A control's click: it ends Play to end; a busy control acts only over moving cards; out of
 * reach of the game, it is refused (offline.js). */
export function press(button, run) {
  return () => {
    if (ui.run) stopAuto({ quiet: true });
    else if (outOfReach.refused()) return;
    else if (button.getAttribute("aria-disabled") === "true" && !moving()) return;
    run();
  };
}

/**
 * Run `work` (its requests; returns null or an animation) as the one action. `button` is marked
 * busy while it waits; `name` is the control a failure asks to press again (the button's own
 * name unless given: Play to end's button says Stop while it runs). `resume`: the work plays on a
 * war Play to end paused on, which therefore stays on the table until it does.
 */
export async function act(work, button = null, { name = button?.textContent.trim(), resume = false } = {}) {
  const action = ui.action;
  if (acting()) {
    if (!moving() || action.waiting) return;
    action.waiting = true;
    skipAnimation();
    await action.done;
    action.waiting = false;
    if (acting()) return; // another waiter on the same promise started first
  }
  if (!resume) landHeld();
  action.done = perform(work, button, name, resume).finally(() => {
    if (acting()) enter("idle"); // a war held, or a celebration begun, stays
    action.skip = false;
  });
  return action.done;
}

async function perform(work, button, name, resume) {
  if (!resume) enter("asking"); // resuming, the war stays held until the work plays it on
  markTableBusy(true);
  button?.setAttribute("aria-busy", "true");
  dispatch({ type: "busy", busy: true });
  let animation = null;
  try {
    animation = await work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const again = name ? `Press ${name} to try again.` : "Press any button to try again.";
    if (error.unreachable) outOfReach.lost(); // the table stays as it is; the page tries again by itself
    else dispatch({ type: "failed", error: error.offline ? `${error.message} ${again}` : error.message });
  } finally {
    button?.removeAttribute("aria-busy");
    dispatch({ type: "busy", busy: false });
  }
  try {
    if (animation) {
      if (ui.phase === "asking") enter("dealing"); // battles are "showing" already (play.js)
      await animation();
    }
  } finally {
    if (moving()) { // a war held part-played keeps the table as it stands
      enter("idle");
      draw(); // the battles landed, or the deal's words now that its cards have
    }
    markTableBusy(false);
  }
  if (ui.phase === "held") {
    announce(`Paused on a war at battle ${ui.war.battle.number}.`);
    return;
  }
  const shown = view(state);
  announce(shown.outcome ? `${shown.announce} ${shown.outcome.title} ${shown.outcome.why}` : shown.announce);
  if (shown.ready && shown.outcome && ui.endShown !== state.round.id) {
    ui.endShown = state.round.id;
    controls.again.focus({ preventScroll: true });
    roundEnded();
  }
  if (!ui.run) showChance(); // Play to end asks for nothing but battles while it runs
}

/** A round's end on the table: a win or a loss in sound, and a party around the result when a
 * person took every card (docs/rules.md#endings: `all_cards`, `opponent_short`), a bigger one
 * when a person won a match (which then stands for the round's). A computer's win has none: the
 * result itself says a few kind words (round-end.js). */
async function roundEnded() {
  const round = state.round;
  const { winner, reason } = round.outcome;
  const { people } = view(state);
  if (winner !== null && people.length > 0) sound(people.includes(winner) ? "win" : "loss"); // a watcher's is neither
  const match = state.match;
  const decided = Boolean(match?.over && match.id === round.match_id && match.rounds.at(-1)?.id === round.id);
  let kind = null;
  if (decided) kind = people.includes(match.winner) ? "match" : null;
  else if (people.includes(winner) && ["all_cards", "opponent_short"].includes(reason)) kind = "round";
  if (kind === null) return;
  enter("celebrating");
  try {
    await celebrate({ kind });
  } finally {
    if (ui.phase === "celebrating") enter("idle");
  }
}
