// The Statistics view: many rounds of the house rules, played on the server.
import { ApiError, api } from "./api.js";
import { histogramSvg, shareBar, statsView } from "./charts.js";
import { $ } from "./dom.js";
import { presetName, rulesLine } from "./house.js";
import { defaultSeats, seatWords, seatsInPlay } from "./seats.js";
import { gettingReady, simulatorReady } from "./simulator.js";
import { frozen, state, ui } from "./state.js";
import { percent } from "./words.js";

const els = {
  rounds: $("stats-rounds"),
  run: $("stats-run"),
  error: $("stats-error"),
  result: $("stats-result"),
  rulesLine: $("stats-rules-line"),
  status: $("stats-status"),
};

/** While the simulator is getting ready, say so: a run asked meanwhile plays once it is. */
export function drawStatsReady() {
  els.status.textContent = ui.simulator.ready ? "" : gettingReady("the simulator");
}

export function drawStatsRules(shown) {
  if (frozen() || !shown.ready) return;
  if (!state.houseRules || !state.info) return;
  const { rules, preset } = state.houseRules;
  els.rulesLine.textContent = preset ? `${presetName(preset)} · ${rulesLine(rules)}` : rulesLine(rules);
}

/** One part of the outcome bar named beside a swatch of its colour: "■ You won 43%". */
function legendItem(part) {
  const item = document.createElement("span");
  item.className = "legend-item";
  const swatch = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  swatch.setAttribute("viewBox", "0 0 10 10");
  swatch.setAttribute("aria-hidden", "true");
  swatch.classList.add("swatch");
  const box = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  box.setAttribute("width", "10");
  box.setAttribute("height", "10");
  box.setAttribute("rx", "2");
  box.setAttribute("class", `share ${part.kind}`);
  swatch.append(box);
  item.append(swatch, ` ${part.label} ${percent(part.share)}`);
  return item;
}

export async function runStats(event) {
  event.preventDefault();
  if (els.run.getAttribute("aria-busy") === "true") return;
  const rounds = Number(els.rounds.value);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 200000) {
    els.error.textContent = "Rounds to play: a whole number from 1 to 200,000.";
    els.rounds.setAttribute("aria-invalid", "true");
    return;
  }
  els.rounds.removeAttribute("aria-invalid");
  els.error.textContent = "";
  els.run.setAttribute("aria-busy", "true");
  els.run.setAttribute("aria-disabled", "true");
  try {
    // The House rules panel's draw estimate first: the server plays one long run per browser.
    await ui.house.drawsLine;
    await simulatorReady(); // the status line says it is getting ready meanwhile
    const rules = state.houseRules?.rules ?? {};
    const result = await api("POST", "/api/simulations", { rules, rounds });
    const { players } = result.rules;
    const seats = seatsInPlay(state.houseRules?.seats ?? defaultSeats(), players);
    const shown = statsView(result, seatWords(seats, players).labels);
    $("stats-played").textContent = shown.played;
    $("stats-outcome").innerHTML = shareBar(shown.outcome, "How the rounds ended");
    $("stats-legend").replaceChildren(...shown.outcome.map(legendItem));
    $("stats-endings").textContent = `Endings: ${shown.endings}.`;
    $("stats-battles").innerHTML = histogramSvg(result.histograms.battles, { title: "Rounds by battles", unit: "battles" });
    $("stats-battles-words").textContent = shown.battles;
    $("stats-wars").innerHTML = histogramSvg(result.histograms.wars, { title: "Rounds by wars", unit: "wars" });
    $("stats-wars-words").textContent = shown.wars;
    els.result.hidden = false;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    els.error.textContent = error.message;
  } finally {
    els.run.removeAttribute("aria-busy");
    els.run.setAttribute("aria-disabled", "false");
  }
}
