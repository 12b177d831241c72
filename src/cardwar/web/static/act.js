// One action at a time: a press during a request does nothing (a request is never doubled); a
// press while cards move skips them, then acts. A press also stops Play to end.
import { ApiError } from "./api.js";
import { showChance } from "./chance.js";
import { view } from "./render.js";
import { dispatch, draw, state, ui } from "./state.js";
import { announce, controls, markTableBusy, markWordsBehind, stage } from "./table.js";

export function skipAnimation() {
  if (ui.action.phase !== "animation") return;
  ui.action.skip = true;
  stage.skip();
}

/** End Play to end. `quiet` when another control ends it: that control then has its say. */
export function stopAuto({ quiet = false } = {}) {
  const auto = ui.auto;
  if (!auto.on) return;
  auto.stop = true;
  auto.quiet = quiet;
  auto.wake?.();
  skipAnimation();
}

/** A control's click: it ends Play to end; a busy control acts only over moving cards. */
export function press(button, run) {
  return () => {
    if (ui.auto.on) stopAuto({ quiet: true });
    else if (button.getAttribute("aria-disabled") === "true" && ui.action.phase !== "animation") return;
    run();
  };
}

/** Run `work` (its requests; returns null or an animation) as the one action. */
export async function act(work, button = null) {
  const action = ui.action;
  if (action.running) {
    if (action.phase !== "animation" || action.waiting) return;
    action.waiting = true;
    skipAnimation();
    await action.done;
    action.waiting = false;
    if (action.running) return; // another waiter on the same promise started first
  }
  action.running = true;
  action.done = perform(work, button).finally(() => {
    action.running = false;
    action.phase = "idle";
    action.skip = false;
  });
  return action.done;
}

async function perform(work, button) {
  ui.action.phase = "request";
  const wasOver = state.round?.outcome != null;
  markTableBusy(true);
  button?.setAttribute("aria-busy", "true");
  dispatch({ type: "busy", busy: true });
  let animation = null;
  try {
    animation = await work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const again = button ? `Press ${button.textContent.trim()} to try again.` : "Press any button to try again.";
    dispatch({ type: "failed", error: error.offline ? `${error.message} ${again}` : error.message });
  } finally {
    button?.removeAttribute("aria-busy");
    dispatch({ type: "busy", busy: false });
  }
  try {
    if (animation) {
      ui.action.phase = "animation";
      markWordsBehind(true); // the words are the last battle's until these land
      await animation();
    }
  } finally {
    markWordsBehind(false);
    const wasFrozen = ui.frozen;
    ui.frozen = false;
    markTableBusy(false);
    if (wasFrozen) draw(); // otherwise the "busy" dispatch above has drawn this state already
  }
  const shown = view(state);
  announce(shown.outcome ? `${shown.announce} ${shown.outcome.title} ${shown.outcome.why}` : shown.announce);
  if (shown.ready && shown.outcome && !wasOver) controls.deal.focus();
  if (!ui.auto.on) showChance(); // Play to end asks for nothing but battles while it runs
}
