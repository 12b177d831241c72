// Event wiring: buttons, keys and the API. What to show is decided in render.js.
import { backSvg, laidMarkup, update, view } from "./render.js";

const $ = (id) => document.getElementById(id);
const els = {
  turn: $("turn"),
  ten: $("ten"),
  deal: $("new"),
  message: $("message"),
  announce: $("announce"),
  outcome: $("outcome"),
  outcomeTitle: $("outcome-title"),
  outcomeWhy: $("outcome-why"),
  won: $("won"),
  lost: $("lost"),
  drawn: $("drawn"),
};

let state = { round: null, scoreboard: { won: 0, lost: 0, drawn: 0 }, battles: [], busy: false, error: null };

function dispatch(message) {
  state = update(state, message);
  draw();
}

class ApiError extends Error {}

async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError("The game server is not answering. Is `cardwar serve` still running?");
  }
  const data = await response.json().catch(() => ({}));
  if (response.status === 404 && path.startsWith("/api/rounds/")) {
    throw new ApiError("This round is no longer kept on the server. Press New round to deal again.");
  }
  if (!response.ok) throw new ApiError(data.detail ?? `The server answered ${response.status}.`);
  return data;
}

function draw() {
  const shown = view(state);
  els.turn.disabled = !shown.canPlay;
  els.ten.disabled = !shown.canPlay;
  els.deal.disabled = !shown.canDeal;
  els.message.textContent = shown.message;
  els.won.textContent = String(state.scoreboard.won);
  els.lost.textContent = String(state.scoreboard.lost);
  els.drawn.textContent = String(state.scoreboard.drawn);
  if (!shown.ready) return;
  document.querySelector('[data-testid="battle-number"]').textContent = shown.battleNumber;
  shown.counts.forEach((count, seat) => {
    const counter = document.querySelector(`[data-testid="count-${seat}"]`);
    if (counter) counter.textContent = String(count);
    const stack = document.querySelector(`[data-seat="${seat}"] .stack`);
    if (stack) {
      // A pile looks thicker the more it holds; an empty pile shows only its outline.
      const layers = count === 0 ? 0 : Math.min(4, Math.ceil(count / 13));
      stack.innerHTML = Array.from({ length: layers }, () => backSvg("pile-card")).join("");
      stack.classList.toggle("empty", count === 0);
    }
  });
  shown.laid.forEach((items, seat) => {
    const laid = $(`laid-${seat}`);
    if (!laid) return;
    laid.innerHTML = laidMarkup(items);
    laid.classList.toggle("winner", shown.winner === seat);
  });
  if (shown.outcome) {
    els.outcomeTitle.textContent = shown.outcome.title;
    els.outcomeWhy.textContent = shown.outcome.why;
    els.outcome.hidden = false;
  } else {
    els.outcome.hidden = true;
  }
}

function announce(text) {
  // Re-set the live region so the same words are still read out twice in a row.
  els.announce.textContent = "";
  requestAnimationFrame(() => {
    els.announce.textContent = text;
  });
}

async function act(work) {
  if (state.busy) return;
  dispatch({ type: "busy", busy: true });
  try {
    await work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    dispatch({ type: "failed", error: error.message });
  } finally {
    dispatch({ type: "busy", busy: false });
  }
  const shown = view(state);
  announce(shown.outcome ? `${shown.announce} ${shown.outcome.title} ${shown.outcome.why}` : shown.announce);
}

async function refreshScore() {
  const me = await api("GET", "/api/me");
  dispatch({ type: "scored", scoreboard: me.scoreboard });
}

async function deal() {
  const round = await api("POST", "/api/rounds", { preset: "classic" });
  dispatch({ type: "dealt", round });
}

function play(count) {
  return act(async () => {
    if (!state.round || state.round.outcome) return;
    const result = await api("POST", `/api/rounds/${encodeURIComponent(state.round.id)}/battles`, { count });
    dispatch({ type: "played", round: result.round, battles: result.battles });
    if (result.round.outcome) await refreshScore();
  });
}

els.turn.addEventListener("click", () => play(1));
els.ten.addEventListener("click", () => play(10));
els.deal.addEventListener("click", () => act(deal));

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("input, textarea, select, summary")) return;
  const key = event.key.toLowerCase();
  if (key === " " && target instanceof HTMLButtonElement) return; // Space already clicks a focused button
  const button = { t: els.turn, " ": els.turn, p: els.ten, n: els.deal }[key];
  if (!button) return;
  event.preventDefault();
  if (!button.disabled) button.click();
});

act(async () => {
  const me = await api("GET", "/api/me");
  if (me.round) dispatch({ type: "loaded", round: me.round, scoreboard: me.scoreboard });
  else {
    dispatch({ type: "scored", scoreboard: me.scoreboard });
    await deal();
  }
});
