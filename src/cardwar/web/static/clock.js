// A timed round's clock: the server keeps it; the page counts down from what it last said.
import { act } from "./act.js";
import { api } from "./api.js";
import { $ } from "./dom.js";
import { afterRoundEnds } from "./rounds.js";
import { acting, dispatch, frozen, state, ui } from "./state.js";

const els = { clock: $("clock"), time: $("clock-time") };

export function drawClock(shown) {
  if (frozen() || !shown.ready) return;
  const round = state.round;
  const clock = ui.clock;
  if (round.outcome !== null || round.time_left_s === null || round.time_left_s === undefined) {
    els.clock.hidden = true;
    clock.source = null;
    return;
  }
  if (clock.source !== round) {
    clock.source = round;
    clock.deadline = performance.now() + round.time_left_s * 1000;
    clock.asked = false;
  }
  els.clock.hidden = false;
  tickClock();
}

/** Count down; at zero, ask the server once, as an action. */
export function tickClock() {
  const clock = ui.clock;
  if (clock.source === null) return;
  const left = Math.max(0, clock.deadline - performance.now());
  const seconds = Math.ceil(left / 1000);
  els.time.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  els.clock.classList.toggle("low", seconds <= 10);
  // At a live table the next turn ends a round whose time is up: the table tells every device.
  if (left > 0 || clock.asked || acting() || state.live) return;
  clock.asked = true;
  const round = clock.source;
  act(async () => {
    const now = await api("GET", `/api/rounds/${encodeURIComponent(round.id)}`);
    if (now.outcome !== null) { // time_up, or most_cards_tie when the biggest piles are equal
      dispatch({ type: "timeUp", round: now });
      await afterRoundEnds();
    } else {
      dispatch({ type: "refreshed", round: now });
    }
    return null;
  });
}
