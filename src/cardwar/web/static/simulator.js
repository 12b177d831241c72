// The simulator's readiness. A server's first start prepares it in the background (about 20 s
// in all; every later start, under a second), and what needs it waits on the server meanwhile:
// the chance meter, How do rounds go? and the House rules panel's draw estimate. This asks
// where the preparation stands once, as the page opens, and, while it is not ready, again every
// `AGAIN_MS` (a first start only): the page says "getting ready" where those would show, never
// a refusal, never a button that does nothing.
import { ApiError, api } from "./api.js";
import { ui } from "./state.js";

const AGAIN_MS = 2000;
let readyNow = () => {};
let whenReady = Promise.resolve();

/** Resolves once the simulator is ready (at once, unless the server said it is not): what needs
 * it is asked only then, so that asks never pile up on the server while it prepares. */
export const simulatorReady = () => whenReady;

/** Ask where the simulator stands, and keep asking while it is not ready; `changed()` after
 * each change of `ui.simulator`. */
export async function watchSimulator(changed) {
  for (;;) {
    let status;
    try {
      if (!ui.simulator.ready) await new Promise((resolve) => setTimeout(resolve, AGAIN_MS));
      status = await api("GET", "/api/simulator", undefined, { background: true });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Unreachable, or an older server without the route: what needs the simulator waits on
      // the server as it always could; the page stops saying anything about it.
      ui.simulator = { ready: true, seconds: ui.simulator.seconds };
      readyNow();
      changed();
      return;
    }
    const was = ui.simulator.ready;
    // Only a first start's compiling is waited for here: a start that loads the kernels takes a
    // second, which what needs them waits out on the server.
    ui.simulator = { ready: status.ready || !status.compiling, seconds: status.first_start_s };
    if (!ui.simulator.ready && was) whenReady = new Promise((resolve) => { readyNow = resolve; });
    if (ui.simulator.ready) readyNow();
    if (ui.simulator.ready !== was) changed();
    if (ui.simulator.ready) return;
  }
}

/** What the page says while the simulator is getting ready, for `what` ("the chance meter"). */
export function gettingReady(what) {
  return `Getting ${what} ready: a server's first start prepares it in about ${ui.simulator.seconds} seconds.`;
}
