// Event wiring: buttons, keys, dialogs and the API. What to show is decided in render.js and
// house.js; how a battle moves, in animate.js.
import { Stage } from "./animate.js";
import { backSvg, cardSvg } from "./art.js";
import { chanceWords, histogramSvg, shareBar, statsView } from "./charts.js";
import { canRunForever, checkChoices, matchPreset, presetName, rulesLine } from "./house.js";
import { battleNumber, laidBySeat, seatLabels, seatNames, spread, update, view } from "./render.js";

const $ = (id) => document.getElementById(id);
const els = {
  table: $("table"),
  field: $("field"),
  burst: $("burst"),
  flight: $("flight"),
  turn: $("turn"),
  ten: $("ten"),
  deal: $("new"),
  rulesButton: $("rules-button"),
  rulesLine: $("rules-line"),
  guideRules: $("guide-rules-line"),
  battleNumber: $("battle-number"),
  message: $("message"),
  announce: $("announce"),
  outcome: $("outcome"),
  outcomeTitle: $("outcome-title"),
  outcomeWhy: $("outcome-why"),
  won: $("won"),
  lost: $("lost"),
  drawn: $("drawn"),
  confirm: $("confirm"),
  confirmYes: $("confirm-yes"),
  confirmNo: $("confirm-no"),
  panel: $("house-rules"),
  chance: $("chance"),
  chanceValue: $("chance-value"),
  chanceFill: $("chance-fill"),
  chanceWords: $("chance-words"),
};
const CONTROLS = [els.turn, els.ten, els.deal];
const RUN_TEMPO = 0.35; // Play 10 battles shows each battle at about a third of the time

let state = {
  round: null,
  lastBattle: null,
  battles: [],
  scoreboard: { won: 0, lost: 0, drawn: 0 },
  houseRules: null,
  info: null,
  busy: false,
  resumed: false,
  error: null,
};

function dispatch(message) {
  state = update(state, message);
  draw();
}

function fromMarkup(markup) {
  const template = document.createElement("template");
  template.innerHTML = markup;
  return template.content.firstElementChild;
}

// -- the API ----------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(message, { offline = false } = {}) {
    super(message);
    this.offline = offline;
  }
}

async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: method === "GET" ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(
      "The game server is not answering. Check that cardwar is still running on the computer " +
      "that serves this page.",
      { offline: true },
    );
  }
  const data = await response.json().catch(() => ({}));
  if (response.status === 404 && path.startsWith("/api/rounds/")) {
    throw new ApiError("This round is no longer kept on the server. Press New round to deal again.");
  }
  if (response.status === 429) {
    throw new ApiError(`That was a lot of presses at once: wait ${response.headers.get("Retry-After") ?? "a few"} seconds, then try again.`);
  }
  if (response.status >= 500) {
    throw new ApiError(`Something went wrong on the game server (error ${response.status}).`, { offline: true });
  }
  if (!response.ok) {
    throw new ApiError(typeof data.detail === "string" ? `The server refused: ${data.detail}` : `The server refused that (error ${response.status}).`);
  }
  return data;
}

// -- drawing ----------------------------------------------------------------------------------

function setCounts(counts) {
  counts.forEach((count, seat) => {
    const seatEl = els.table.querySelector(`.seat[data-seat="${seat}"]`);
    seatEl.querySelector(".count").textContent = String(count);
    seatEl.querySelector(".unit").textContent = count === 1 ? "card" : "cards";
    // A pile looks thicker the more it holds; an empty pile shows only its outline.
    seatEl.querySelector(".stack").style.setProperty("--depth", `${Math.ceil((count / 52) * 12)}px`);
    seatEl.classList.toggle("empty", count === 0);
  });
}

function drawField(laid, winner) {
  els.field.querySelectorAll(".slot").forEach((slot, seat) => {
    const items = laid[seat];
    slot.hidden = items === undefined;
    slot.classList.toggle("winner", winner === seat);
    if (!items || items.length === 0) {
      slot.replaceChildren();
      return;
    }
    const { span, places } = spread(items);
    const row = document.createElement("div");
    row.className = "spread";
    row.style.setProperty("--span", String(span));
    items.forEach((item, i) => {
      const card = fromMarkup(item.kind === "up" ? cardSvg(item.code) : backSvg("", item.letter));
      card.classList.toggle("spent", item.spent);
      card.style.setProperty("--t", String(places[i]));
      row.append(card);
    });
    const down = items.filter((item) => item.kind === "down").length;
    if (down > 0) row.setAttribute("aria-label", `${down} face down`);
    slot.replaceChildren(row);
  });
}

function drawSeats(shown) {
  els.table.dataset.players = String(shown.players);
  els.table.querySelectorAll(".seat").forEach((seatEl, seat) => {
    seatEl.hidden = seat >= shown.players;
    if (seat >= shown.players) return;
    seatEl.querySelector(".name").textContent = shown.labels[seat];
    seatEl.classList.toggle("out", shown.out[seat]);
    const slot = $(`laid-${seat}`);
    slot.setAttribute("aria-label", seat === 0 ? "Your cards this battle" : `${shown.labels[seat]}'s cards this battle`);
  });
  setCounts(shown.counts);
}

function drawControls(shown) {
  const over = shown.ready && shown.outcome !== null;
  els.turn.disabled = over;
  els.ten.disabled = over;
  for (const button of CONTROLS) button.setAttribute("aria-disabled", String(state.busy));
  const dealNext = over || Boolean(shown.youOut);
  els.turn.classList.toggle("primary", !dealNext);
  els.deal.classList.toggle("primary", dealNext);
}

function drawWords(shown) {
  say(shown.message, shown.error);
  if (shown.ready && shown.outcome) {
    els.outcomeTitle.textContent = shown.outcome.title;
    els.outcomeWhy.textContent = shown.outcome.why;
    els.outcome.hidden = false;
  } else {
    els.outcome.hidden = true;
  }
}

/** Put `text` in the message area; a message too long for it can be scrolled, and says so. */
function say(text, error = false) {
  const box = els.message;
  if (box.textContent === text && box.classList.contains("error") === error) return;
  box.textContent = text;
  box.classList.toggle("error", error);
  const overflows = box.scrollHeight > box.clientHeight + 1;
  box.classList.toggle("overflows", overflows);
  if (overflows) box.setAttribute("tabindex", "0");
  else box.removeAttribute("tabindex");
  box.scrollTop = 0;
}

function drawRules(rules) {
  const name = state.info ? matchPreset(rules, state.info.presets) : null;
  const line = name ? `${presetName(name)} · ${rulesLine(rules)}` : rulesLine(rules);
  els.rulesLine.textContent = line;
  els.guideRules.textContent = line;
}

function drawGuide(guide) {
  for (const element of document.querySelectorAll("[data-guide]")) {
    const text = guide[element.dataset.guide];
    element.textContent = text ?? "";
    element.hidden = !text;
  }
}

let drawnRules = null;
let frozen = false; // while battles play out, only the controls follow the state

function draw() {
  const shown = view(state);
  drawControls(shown);
  if (frozen) return;
  drawWords(shown);
  els.won.textContent = String(state.scoreboard.won);
  els.lost.textContent = String(state.scoreboard.lost);
  els.drawn.textContent = String(state.scoreboard.drawn);
  if (!shown.ready) return;
  els.battleNumber.textContent = shown.battleNumber;
  drawSeats(shown);
  drawField(shown.laid, shown.winner);
  drawStatsRules();
  const rules = JSON.stringify(state.round.rules);
  if (rules !== drawnRules) {
    drawnRules = rules;
    drawRules(state.round.rules);
    drawGuide(shown.guide);
  }
}

// -- actions: one at a time; a press during an animation skips it, then acts ------------------

const stage = new Stage(els.table, {
  setCounts,
  flight: els.flight,
  burst: els.burst,
  ghost: () => fromMarkup(backSvg("ghost")),
});
const action = { running: false, phase: "idle", done: Promise.resolve(), waiting: false, skip: false };

function skipAnimation() {
  if (action.phase !== "animation") return;
  action.skip = true;
  stage.skip();
}

async function act(work, button = null) {
  if (action.running) {
    // A request in flight is never doubled; a press while cards move ends the move, then acts.
    if (action.phase !== "animation" || action.waiting) return;
    action.waiting = true;
    skipAnimation();
    await action.done;
    action.waiting = false;
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
  action.phase = "request";
  const wasOver = state.round?.outcome != null;
  els.table.setAttribute("aria-busy", "true");
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
      action.phase = "animation";
      await animation();
    }
  } finally {
    frozen = false;
    els.table.setAttribute("aria-busy", "false");
    draw();
  }
  const shown = view(state);
  announce(shown.outcome ? `${shown.announce} ${shown.outcome.title} ${shown.outcome.why}` : shown.announce);
  if (shown.ready && shown.outcome && !wasOver) els.deal.focus();
  showChance();
}

// -- the chance to win from here: asked after each action, shown under the controls -------------

let chanceAsked = 0;

async function showChance() {
  const round = state.round;
  const asked = ++chanceAsked;
  if (!round || round.outcome !== null || round.counts[0] === 0) {
    els.chance.hidden = true;
    return;
  }
  let chance;
  try {
    chance = await api("GET", `/api/rounds/${encodeURIComponent(round.id)}/chance`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    els.chance.hidden = true; // no estimate is no harm: the game goes on
    return;
  }
  if (asked !== chanceAsked || state.round?.id !== round.id) return; // a later one is on its way
  const words = chanceWords(chance, seatNames(round.rules.players));
  els.chanceValue.textContent = words.value;
  els.chanceFill.style.width = words.value;
  els.chanceWords.textContent = words.sentence;
  els.chance.hidden = false;
}

/** Show `battles` one after another from the pile `counts` before them; the words and the
 * final table are drawn when they are done. */
async function showBattles(battles, counts, tempo) {
  const { players } = state.round.rules;
  if (battles.length > 1) say(`Playing battles ${battles[0].number}–${battles.at(-1).number}…`);
  let before = counts;
  for (const battle of battles) {
    if (action.skip) break;
    drawField(laidBySeat(battle, players), battle.winner);
    els.battleNumber.textContent = battleNumber({ ...state.round, battles: battle.number, outcome: null });
    await stage.battle(battle, before, tempo);
    before = battle.counts;
  }
}

function announce(text) {
  // Re-set the live region so the same words are still read out twice in a row.
  els.announce.textContent = "";
  requestAnimationFrame(() => {
    els.announce.textContent = text;
  });
}

async function refreshScore() {
  const me = await api("GET", "/api/me");
  dispatch({ type: "scored", scoreboard: me.scoreboard });
}

async function load() {
  const [me, info] = await Promise.all([api("GET", "/api/me"), api("GET", "/api/rules")]);
  dispatch({
    type: "loaded",
    round: me.round,
    lastBattle: me.last_battle,
    scoreboard: me.scoreboard,
    houseRules: me.house_rules,
    info,
  });
  if (!me.round) await dealRound();
}

async function dealRound() {
  const round = await api("POST", "/api/rounds", { rules: state.houseRules.rules });
  dispatch({ type: "dealt", round });
}

function play(count, button) {
  return act(async () => {
    if (!state.info) return load();
    if (!state.round || state.round.outcome) return null;
    const before = state.round.counts;
    const result = await api("POST", `/api/rounds/${encodeURIComponent(state.round.id)}/battles`, { count });
    // The table stays as it was, and the words too, until the battles have been shown.
    frozen = result.battles.length > 0;
    dispatch({ type: "played", round: result.round, battles: result.battles });
    if (result.round.outcome || result.round.counts[0] === 0) await refreshScore();
    if (!frozen) return null;
    return () => showBattles(result.battles, before, count > 1 ? RUN_TEMPO : 1);
  }, button);
}

async function newRound() {
  const round = state.round;
  if (round && round.outcome === null && round.battles > 0 && round.counts[0] > 0) {
    if (!(await confirmThrowAway(round))) return;
  }
  await act(async () => {
    if (!state.info) return load();
    await dealRound();
    return null;
  }, els.deal);
}

function confirmThrowAway(round) {
  $("confirm-text").textContent =
    `Your round is at battle ${round.battles}. A new deal ends it, and a round left unfinished ` +
    "does not count on the scoreboard.";
  els.confirm.returnValue = "";
  els.confirm.showModal();
  els.confirmNo.focus();
  return new Promise((resolve) => {
    els.confirm.addEventListener("close", () => resolve(els.confirm.returnValue === "yes"), { once: true });
  });
}

els.confirmYes.addEventListener("click", () => els.confirm.close("yes"));
els.confirmNo.addEventListener("click", () => els.confirm.close("no"));

for (const [button, run] of [
  [els.turn, () => play(1, els.turn)],
  [els.ten, () => play(10, els.ten)],
  [els.deal, () => newRound()],
]) {
  button.addEventListener("click", () => {
    if (button.getAttribute("aria-disabled") === "true" && action.phase !== "animation") return;
    run();
  });
}

// A tap on the table, or any key that is not a control's, skips the battle that is playing.
els.table.addEventListener("pointerdown", skipAnimation);
els.table.addEventListener("mousedown", (event) => event.preventDefault()); // focus stays put

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  if (document.querySelector("dialog[open]")) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("input, textarea, select, summary")) return;
  const key = event.key.toLowerCase();
  if ((key === " " || key === "enter") && target instanceof HTMLButtonElement) return; // the button clicks itself
  const button = { t: els.turn, " ": els.turn, p: els.ten, n: els.deal }[key];
  if (!button) {
    if (!["shift", "tab"].includes(key)) skipAnimation();
    return;
  }
  event.preventDefault();
  if (!button.disabled) button.click();
});

// -- the House rules panel --------------------------------------------------------------------

const form = {
  preset: $("hr-preset"),
  players: $("hr-players"),
  hand: $("hr-hand"),
  warDown: $("hr-war-down"),
  shortage: $("hr-shortage"),
  gather: $("hr-gather"),
  low: $("hr-low"),
  noLimit: $("hr-no-limit"),
  limit: $("hr-limit"),
  limitOutcome: $("hr-limit-outcome"),
  clock: $("hr-clock"),
  endless: $("hr-endless"),
  notes: $("hr-notes"),
  error: $("hr-error"),
  summary: $("hr-summary"),
  deal: $("hr-deal"),
  close: $("hr-close"),
};
let lastLimit = 500; // what the battle limit box offers again when "No battle limit" is unticked
let saving = Promise.resolve(true);

function handOptions(players, chosen) {
  const most = Math.floor(52 / players);
  const options = [new Option(`The whole deck: ${most} each`, "")];
  for (let n = 1; n <= most; n++) options.push(new Option(String(n), String(n)));
  form.hand.replaceChildren(...options);
  form.hand.value = chosen === null ? "" : String(chosen);
}

function clockOption(seconds) {
  if (seconds === null) return "";
  const value = String(seconds);
  if (![...form.clock.options].some((option) => option.value === value)) {
    const text = seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`;
    form.clock.append(new Option(text, value));
  }
  return value;
}

function fillForm(rules) {
  form.players.value = String(rules.players);
  handOptions(rules.players, rules.hand_size);
  form.warDown.value = String(rules.war_down);
  form.shortage.value = rules.shortage;
  form.gather.value = rules.gather;
  form.low.checked = rules.low_wins;
  form.noLimit.checked = rules.battle_limit === null;
  if (rules.battle_limit !== null) lastLimit = rules.battle_limit;
  form.limit.value = String(rules.battle_limit ?? lastLimit);
  form.limitOutcome.value = rules.limit_outcome;
  form.clock.value = clockOption(rules.time_limit_s);
  form.limit.removeAttribute("aria-invalid");
  form.error.textContent = "";
  form.notes.hidden = true;
  reflect(rules);
}

/** What the form shows beside the values: the preset they match, what is off, the summary. */
function reflect(rules) {
  form.preset.value = matchPreset(rules, state.info.presets) ?? "";
  form.limit.disabled = rules.battle_limit === null;
  form.limitOutcome.disabled = rules.battle_limit === null;
  form.endless.hidden = !canRunForever(rules);
  form.summary.textContent = rulesLine(rules);
}

function readForm() {
  const whole = (text) => (text.trim() === "" ? Number.NaN : Number(text));
  return {
    players: Number(form.players.value),
    hand_size: form.hand.value === "" ? null : Number(form.hand.value),
    war_down: Number(form.warDown.value),
    shortage: form.shortage.value,
    battle_limit: form.noLimit.checked ? null : whole(form.limit.value),
    limit_outcome: form.limitOutcome.value,
    time_limit_s: form.clock.value === "" ? null : Number(form.clock.value),
    low_wins: form.low.checked,
    gather: form.gather.value,
  };
}

function chooseFromForm() {
  const { rules, problems, notes } = checkChoices(readForm(), state.info.fields);
  if (rules.players !== Number(form.hand.dataset.players)) handOptions(rules.players, rules.hand_size);
  form.hand.dataset.players = String(rules.players);
  form.notes.textContent = notes.join(" ");
  form.notes.hidden = notes.length === 0;
  form.limit.setAttribute("aria-invalid", String(problems.length > 0));
  form.error.textContent = problems.join(" ");
  form.deal.setAttribute("aria-disabled", String(problems.length > 0));
  if (problems.length > 0) return;
  if (rules.battle_limit !== null) lastLimit = rules.battle_limit;
  if (form.noLimit.checked) form.limit.value = String(lastLimit);
  reflect(rules);
  save({ rules });
}

function save(body) {
  saving = saving.then(async () => {
    try {
      const chosen = await api("PUT", "/api/me/house-rules", body);
      dispatch({ type: "chosen", houseRules: chosen });
      form.error.textContent = "";
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      form.error.textContent = error.message;
      return false;
    }
  });
  return saving;
}

form.preset.addEventListener("change", () => {
  const name = form.preset.value;
  if (!name) return;
  fillForm(state.info.presets[name]);
  save({ preset: name });
});
for (const control of [form.players, form.hand, form.warDown, form.shortage, form.gather, form.low,
  form.noLimit, form.limitOutcome, form.clock, form.limit]) {
  control.addEventListener("change", chooseFromForm);
}
form.limit.addEventListener("input", () => {
  if (form.limit.getAttribute("aria-invalid") === "true") chooseFromForm();
});

els.rulesButton.addEventListener("click", () => {
  if (!state.info || !state.houseRules) return;
  fillForm(state.houseRules.rules);
  form.hand.dataset.players = String(state.houseRules.rules.players);
  form.deal.setAttribute("aria-disabled", "false");
  els.panel.showModal();
  form.preset.focus();
});
form.close.addEventListener("click", () => els.panel.close());
for (const dialog of [els.panel, els.confirm]) {
  // A click on the dimmed page around a dialog (its backdrop) closes it, as Escape does.
  dialog.addEventListener("click", (event) => {
    if (event.target !== dialog) return;
    const box = dialog.getBoundingClientRect();
    const inside = event.clientX >= box.left && event.clientX <= box.right
      && event.clientY >= box.top && event.clientY <= box.bottom;
    if (!inside) dialog.close();
  });
}
form.deal.addEventListener("click", async () => {
  if (form.deal.getAttribute("aria-disabled") === "true") return;
  if (!(await saving)) return;
  els.panel.close();
  await newRound();
});

// -- Statistics ----------------------------------------------------------------------------------

const stats = {
  form: $("stats-form"),
  rounds: $("stats-rounds"),
  run: $("stats-run"),
  error: $("stats-error"),
  result: $("stats-result"),
  rulesLine: $("stats-rules-line"),
};

function drawStatsRules() {
  if (!state.houseRules || !state.info) return;
  const { rules, preset } = state.houseRules;
  stats.rulesLine.textContent = preset ? `${presetName(preset)} · ${rulesLine(rules)}` : rulesLine(rules);
}

stats.form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (stats.run.getAttribute("aria-busy") === "true") return;
  const rounds = Number(stats.rounds.value);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 200000) {
    stats.error.textContent = "Rounds to play: a whole number from 1 to 200,000.";
    stats.rounds.setAttribute("aria-invalid", "true");
    return;
  }
  stats.rounds.removeAttribute("aria-invalid");
  stats.error.textContent = "";
  stats.run.setAttribute("aria-busy", "true");
  stats.run.setAttribute("aria-disabled", "true");
  try {
    const rules = state.houseRules?.rules ?? {};
    const result = await api("POST", "/api/simulations", { rules, rounds });
    const shown = statsView(result, seatLabels(result.rules.players));
    $("stats-played").textContent = shown.played;
    $("stats-outcome").innerHTML = shareBar(shown.outcome, "How the rounds ended");
    $("stats-legend").textContent = shown.outcome.map((part) => `${part.label} ${Math.round(part.share * 100)}%`).join(" · ");
    $("stats-endings").textContent = `Endings: ${shown.endings}.`;
    $("stats-battles").innerHTML = histogramSvg(result.histograms.battles, { title: "Rounds by battles", unit: "battles" });
    $("stats-battles-words").textContent = shown.battles;
    $("stats-wars").innerHTML = histogramSvg(result.histograms.wars, { title: "Rounds by wars", unit: "wars" });
    $("stats-wars-words").textContent = shown.wars;
    stats.result.hidden = false;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    stats.error.textContent = error.message;
  } finally {
    stats.run.removeAttribute("aria-busy");
    stats.run.setAttribute("aria-disabled", "false");
  }
});

act(load);
