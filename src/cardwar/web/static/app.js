// Event wiring: buttons, keys, dialogs and the API. What to show is decided in render.js and
// house.js; how a battle moves, in animate.js.
import { ApiError, api } from "./api.js";
import { Stage } from "./animate.js";
import { backSvg, fromMarkup, laidCard } from "./art.js";
import { chanceWords, histogramSvg, shareBar, statsView } from "./charts.js";
import { canRunForever, checkChoices, matchPreset, presetName, rulesLine } from "./house.js";
import { battleNumber, laidBySeat, matchScore, seatLabels, seatNames, spread, update, view } from "./render.js";
import { openReplay } from "./replay.js";
import { dealOf, readShared, shareLink } from "./share.js";
import { battleAt, storySvg, storyWords } from "./story.js";

const $ = (id) => document.getElementById(id);
const els = {
  table: $("table"),
  field: $("field"),
  burst: $("burst"),
  flight: $("flight"),
  turn: $("turn"),
  ten: $("ten"),
  auto: $("auto"),
  deal: $("new"),
  autoSpeed: $("auto-speed"),
  autoWars: $("auto-wars"),
  autoHint: $("auto-hint"),
  after: $("after"),
  replayDeal: $("replay-deal"),
  shareDeal: $("share-deal"),
  watch: $("watch"),
  clock: $("clock"),
  clockTime: $("clock-time"),
  matchLine: $("match-line"),
  matchesTally: $("matches-tally"),
  matchesWon: $("matches-won"),
  matchesLost: $("matches-lost"),
  story: $("story"),
  storyChart: $("story-chart"),
  storyLegend: $("story-legend"),
  storyWords: $("story-words"),
  share: $("share"),
  shareLink: $("share-link"),
  shareStatus: $("share-status"),
  shareCopy: $("share-copy"),
  shareClose: $("share-close"),
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
const CONTROLS = [els.turn, els.ten, els.auto, els.deal];
const RUN_TEMPO = 0.35; // Play 10 battles shows each battle at about a third of the time

let state = {
  round: null,
  lastBattle: null,
  battles: [],
  scoreboard: { won: 0, lost: 0, drawn: 0, matches_won: 0, matches_lost: 0 },
  houseRules: null,
  match: null,
  origin: null,
  note: null,
  info: null,
  busy: false,
  resumed: false,
  error: null,
};

function dispatch(message) {
  state = update(state, message);
  draw();
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
      const card = laidCard(item);
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
  els.auto.disabled = over && !auto.on;
  els.auto.textContent = auto.on ? "Stop" : "Play to end";
  els.autoHint.hidden = !auto.on;
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
  const matches = state.scoreboard.matches_won + state.scoreboard.matches_lost;
  els.matchesTally.hidden = matches === 0 && !state.match;
  els.matchesWon.textContent = String(state.scoreboard.matches_won);
  els.matchesLost.textContent = String(state.scoreboard.matches_lost);
  if (!shown.ready) return;
  els.matchLine.hidden = shown.matchLine === null;
  els.matchLine.textContent = shown.matchLine ?? "";
  setClock(state.round);
  const over = shown.outcome !== null;
  els.after.hidden = !over;
  const again = over ? dealOf(state.round, state.info?.presets.classic) : null;
  els.replayDeal.hidden = again === null;
  els.shareDeal.hidden = again === null;
  els.watch.hidden = state.round.battles === 0;
  if (!state.busy) drawStory(over ? state.round : null); // asked once the round's requests are done
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
      els.message.classList.add("behind"); // the words are the last battle's until these land
      await animation();
    }
  } finally {
    els.message.classList.remove("behind");
    const wasFrozen = frozen;
    frozen = false;
    els.table.setAttribute("aria-busy", "false");
    if (wasFrozen) draw(); // otherwise the "busy" dispatch above has drawn this state already
  }
  const shown = view(state);
  announce(shown.outcome ? `${shown.announce} ${shown.outcome.title} ${shown.outcome.why}` : shown.announce);
  if (shown.ready && shown.outcome && !wasOver) els.deal.focus();
  if (!auto.on) showChance(); // Play to end asks for nothing but battles while it runs
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


async function load() {
  const [me, info] = await Promise.all([api("GET", "/api/me"), api("GET", "/api/rules")]);
  dispatch({
    type: "loaded",
    round: me.round,
    lastBattle: me.last_battle,
    scoreboard: me.scoreboard,
    houseRules: me.house_rules,
    match: me.match,
    info,
  });
  const shared = new URL(window.location.href).searchParams.get("deal");
  if (shared !== null) {
    window.history.replaceState(null, "", window.location.pathname); // a reload resumes, not re-deals
    if (await openShared(shared)) return;
  }
  if (!me.round) {
    const problem = state.error;
    await dealFresh();
    // A link that could not be dealt says so beside the fresh deal that stands in for it.
    if (problem) dispatch({ type: "failed", error: `${problem} Here is a fresh deal of your own instead: press Turn cards to play.` });
  }
}

/** Deal a round as the house rules say: a plain round, or the first of a new match. */
async function dealFresh() {
  const { rules, best_of: bestOf } = state.houseRules;
  if (bestOf === 1) {
    const round = await api("POST", "/api/rounds", { rules });
    dispatch({ type: "dealt", round, match: null });
    return;
  }
  const { round, ...match } = await api("POST", "/api/matches", { best_of: bestOf, rules });
  dispatch({ type: "dealt", round, match });
}

/** Deal the next round of the match in play. */
async function dealNextInMatch() {
  const { round, ...match } = await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/rounds`);
  dispatch({ type: "dealt", round, match });
}

/** The match in play, if any: started and not yet decided. */
const matchInPlay = () => (state.match && !state.match.over ? state.match : null);

/** Deal `again` ({rules, seed, deal?}) as a fresh round of this browser's own. */
async function dealAgain(again, origin) {
  const round = await api("POST", "/api/rounds", again);
  dispatch({ type: "dealt", round, origin });
}

/** Play `count` battles and show them at `tempo` (null: land them at once, no animation). */
function play(count, button, tempo = count > 1 ? RUN_TEMPO : 1) {
  return act(async () => {
    if (!state.info) return load();
    if (!state.round || state.round.outcome) return null;
    const before = state.round.counts;
    const result = await api("POST", `/api/rounds/${encodeURIComponent(state.round.id)}/battles`, { count });
    // The table stays as it was, and the words too, until the battles have been shown.
    frozen = result.battles.length > 0 && tempo !== null;
    dispatch({ type: "played", round: result.round, battles: result.battles });
    // Once a round ends, or as you run out of cards (lost then and there at a bigger table).
    if (result.round.outcome || (result.round.counts[0] === 0 && before[0] > 0)) await afterRoundEnds();
    if (!frozen) return null;
    return () => showBattles(result.battles, before, tempo);
  }, button);
}

/** Once a round has ended (or the person is out of it): the scoreboard, and its match. */
async function afterRoundEnds() {
  const me = await api("GET", "/api/me");
  dispatch({ type: "scored", scoreboard: me.scoreboard });
  const matchId = state.round?.match_id;
  if (!matchId) return;
  // GET /api/me carries the match of the latest round: this one's, unless another tab dealt since.
  const match = me.match?.id === matchId ? me.match : await api("GET", `/api/matches/${encodeURIComponent(matchId)}`);
  dispatch({ type: "matched", match });
}

/** New round: the match's next round while a match is in play, else a fresh deal. `fresh`
 * (from House rules) always starts afresh with the rules just chosen. */
async function newRound({ fresh = false } = {}) {
  stopAuto({ quiet: true });
  const round = state.round;
  const match = matchInPlay();
  const inMatch = Boolean(match && round?.match_id === match.id);
  const going = round && round.outcome === null;
  // Out of a match's round while the computers play on: New round plays the rest at once.
  const finishFirst = inMatch && going && round.counts[0] === 0 && !fresh;
  const leavesMatch = Boolean(match && (fresh || (inMatch && going && !finishFirst)));
  const throwsAway = going && round.battles > 0 && round.counts[0] > 0;
  if (leavesMatch || throwsAway) {
    if (!(await confirmThrowAway(round, leavesMatch ? match : null))) return;
  }
  await act(async () => {
    if (!state.info) return load();
    if (finishFirst) {
      const path = `/api/rounds/${encodeURIComponent(round.id)}/battles`;
      let result;
      do result = await api("POST", path, { count: 2000 });
      while (result.round.outcome === null);
      dispatch({ type: "played", round: result.round, battles: result.battles.slice(-1) });
      await afterRoundEnds();
      return null; // the round's result first; the next press deals the next round
    }
    if (match && !leavesMatch) await dealNextInMatch();
    else await dealFresh();
    return null;
  }, els.deal);
}

function confirmThrowAway(round, match) {
  const labels = seatLabels(match ? match.rules.players : round.rules.players);
  const where = round.outcome === null && round.battles > 0 ? `Your round is at battle ${round.battles}. ` : "";
  $("confirm-title").textContent = match ? "Leave this match?" : "Throw this round away?";
  $("confirm-text").textContent = match
    ? `${where}Your best of ${match.best_of} stands at ${matchScore(match, labels)}. A new deal ` +
      "ends the match, and a match left undecided does not count on the scoreboard."
    : `${where}A new deal ends it, and a round left unfinished does not count on the scoreboard.`;
  $("confirm-yes").textContent = match ? "Start a new match" : "Deal again";
  $("confirm-no").textContent = match ? "Keep the match" : "Keep playing";
  return askConfirm();
}

// The question the confirm dialog is asking, settled the moment it closes. A dialog's close
// event is queued, not dispatched at once: a "Keep playing" and a press of N straight after it
// open the dialog again before the first close event arrives, so each opening is answered by
// its own buttons (or, for Escape, by a close event that finds the dialog shut), never by a
// close event that belongs to an earlier opening.
const asking = { settle: null };

function answer(yes) {
  const settle = asking.settle;
  asking.settle = null;
  settle?.(yes);
}

/** Show the confirm dialog as its words stand; true if the person said yes. */
function askConfirm() {
  answer(false); // an opening not yet settled (closed by Escape a moment ago) was a no
  els.confirm.returnValue = "";
  els.confirm.showModal();
  els.confirmNo.focus();
  return new Promise((resolve) => {
    asking.settle = resolve;
  });
}

function closeConfirm(yes) {
  els.confirm.close(yes ? "yes" : "no");
  answer(yes);
}

els.confirmYes.addEventListener("click", () => closeConfirm(true));
els.confirmNo.addEventListener("click", () => closeConfirm(false));
els.confirm.addEventListener("close", () => {
  if (!els.confirm.open) answer(els.confirm.returnValue === "yes"); // Escape, or the backdrop
});

for (const [button, run] of [
  [els.turn, () => play(1, els.turn)],
  [els.ten, () => play(10, els.ten)],
  [els.deal, () => newRound()],
]) {
  button.addEventListener("click", () => {
    if (auto.on) stopAuto({ quiet: true }); // a press of another control ends Play to end, then acts
    else if (button.getAttribute("aria-disabled") === "true" && action.phase !== "animation") return;
    run();
  });
}
els.auto.addEventListener("click", () => (auto.on ? stopAuto() : playToEnd()));

// -- Play to end: battle after battle, one request at a time, until the round ends or it is stopped

const SPEEDS = {
  slow: { tempo: 2.2, pause: 450 },
  normal: { tempo: 1, pause: 180 },
  fast: { tempo: RUN_TEMPO, pause: 0 },
  instant: { tempo: null, pause: 0 },
};
const auto = { on: false, stop: false, quiet: false, wake: null };

/** End Play to end. `quiet` when another control ends it: that control then has its say. */
function stopAuto({ quiet = false } = {}) {
  if (!auto.on) return;
  auto.stop = true;
  auto.quiet = quiet;
  auto.wake?.();
  skipAnimation();
}

function rest(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      auto.wake = null;
      resolve();
    }
    auto.wake = done;
  });
}

async function playToEnd() {
  if (auto.on || !state.round || state.round.outcome) return;
  auto.on = true;
  auto.stop = false;
  auto.quiet = false;
  const roundId = state.round.id;
  draw();
  els.chance.hidden = true; // no estimate while it plays: it would be out of date at once
  try {
    while (!auto.stop && state.round?.id === roundId && state.round.outcome === null && !state.error) {
      if (action.running) {
        await action.done; // a press that was already on its way finishes first
        continue;
      }
      const speed = SPEEDS[els.autoSpeed.value] ?? SPEEDS.normal;
      const pauseOnWars = els.autoWars.checked;
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
els.autoSpeed.value = remembered("cardwar.speed", "normal");
if (!els.autoSpeed.value) els.autoSpeed.value = "normal";
els.autoWars.checked = remembered("cardwar.pause-on-wars", "false") === "true";
els.autoSpeed.addEventListener("change", () => remember("cardwar.speed", els.autoSpeed.value));
els.autoWars.addEventListener("change", () => remember("cardwar.pause-on-wars", String(els.autoWars.checked)));

// -- the clock of a timed round: the server keeps it; the page counts down from what it says ------

const clock = { source: null, deadline: 0, asked: false };

function setClock(round) {
  if (!round || round.outcome !== null || round.time_left_s === null || round.time_left_s === undefined) {
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

function tickClock() {
  if (clock.source === null) return;
  const left = Math.max(0, clock.deadline - performance.now());
  const seconds = Math.ceil(left / 1000);
  els.clockTime.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  els.clock.classList.toggle("low", seconds <= 10);
  if (left > 0 || clock.asked || action.running) return;
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
setInterval(tickClock, 250);

// -- a round's end: its story, replaying and sharing its deal -------------------------------------

const story = { roundId: null, data: null };

async function drawStory(round) {
  if (round === null || round.battles === 0) {
    els.story.hidden = true;
    return;
  }
  if (story.roundId === round.id) return;
  story.roundId = round.id;
  story.data = null;
  let data;
  try {
    data = await api("GET", `/api/rounds/${encodeURIComponent(round.id)}/story`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    story.roundId = null; // asked again at the next draw
    els.story.hidden = true;
    return;
  }
  if (state.round?.id !== round.id) return;
  story.data = data;
  const labels = seatLabels(round.rules.players);
  els.storyChart.innerHTML = storySvg(data, labels);
  els.storyLegend.replaceChildren(...labels.map((label, seat) => {
    const item = document.createElement("span");
    item.className = "legend-item";
    item.innerHTML = `<svg class="swatch" viewBox="0 0 24 6" aria-hidden="true"><line class="line s${seat}" x1="0" y1="3" x2="24" y2="3"/></svg>`;
    item.append(label);
    return item;
  }));
  els.storyWords.replaceChildren(...storyWords(data, seatNames(round.rules.players)).map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
  els.story.hidden = false;
}

els.storyChart.addEventListener("click", (event) => {
  const svg = els.storyChart.querySelector("svg");
  if (!svg || !story.data || state.round?.id !== story.roundId) return;
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
  openReplay(state.round, battleAt(point.x, story.data.battles), els.watch);
});
els.watch.addEventListener("click", () => {
  if (state.round?.battles > 0) openReplay(state.round, 1, els.watch);
});

els.replayDeal.addEventListener("click", () => {
  const again = state.round && dealOf(state.round, state.info?.presets.classic);
  if (!again) return;
  act(async () => {
    await dealAgain(again, "replay");
    return null;
  }, els.replayDeal);
});

els.shareDeal.addEventListener("click", () => {
  const again = state.round && dealOf(state.round, state.info?.presets.classic);
  if (!again) return;
  els.shareLink.value = shareLink(window.location.origin, again);
  els.shareStatus.textContent = "";
  els.share.showModal();
  els.shareLink.select();
});
els.shareCopy.addEventListener("click", async () => {
  els.shareLink.select();
  try {
    await navigator.clipboard.writeText(els.shareLink.value);
    els.shareStatus.textContent = "Copied: paste it wherever you like.";
  } catch {
    els.shareStatus.textContent = "This browser would not copy it: the link is selected, so copy it with your keyboard or menu.";
  }
});
els.shareClose.addEventListener("click", () => els.share.close());

/** Deal the deal a shared link carries, after asking when a round is under way; false when the
 * link cannot be dealt (the message says why, and the table stays as it was). */
async function openShared(token) {
  let again;
  try {
    again = readShared(token);
  } catch (error) {
    dispatch({ type: "failed", error: `That shared link cannot be dealt: ${error.message}. Your table is as it was.` });
    return false;
  }
  const { problems } = checkChoices({ ...state.info.presets.classic, ...again.rules }, state.info.fields);
  if (problems.length > 0) {
    dispatch({ type: "failed", error: `That shared link cannot be dealt: ${problems.join(" ")} Your table is as it was.` });
    return false;
  }
  const round = state.round;
  if (round && round.outcome === null && round.battles > 0 && round.counts[0] > 0) {
    $("confirm-title").textContent = "Deal the shared deal?";
    $("confirm-text").textContent = `Your round is at battle ${round.battles}. The shared deal ends it, and a round left unfinished does not count on the scoreboard.`;
    $("confirm-yes").textContent = "Deal it";
    $("confirm-no").textContent = "Keep playing";
    if (!(await askConfirm())) return true;
  }
  try {
    await dealAgain(again, "shared");
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    dispatch({ type: "failed", error: `That shared link cannot be dealt. ${error.message}` });
    return Boolean(state.round);
  }
  return true;
}

// A tap on the table, or any key that is not a control's, skips the battle that is playing and
// stops Play to end.
els.table.addEventListener("pointerdown", () => {
  stopAuto();
  skipAnimation();
});
els.table.addEventListener("mousedown", (event) => event.preventDefault()); // focus stays put

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  const key = event.key.toLowerCase();
  if (auto.on && key === "escape") {
    stopAuto(); // Escape stops Play to end wherever the focus is
    return;
  }
  if (document.querySelector("dialog[open]")) return;
  if (target instanceof HTMLElement && target.closest("input, textarea, select, summary")) return;
  if (auto.on && !["shift", "tab"].includes(key)) {
    // Any key stops Play to end, and does nothing else.
    event.preventDefault();
    stopAuto();
    return;
  }
  if ((key === " " || key === "enter") && target instanceof HTMLButtonElement) return; // the button clicks itself
  const button = { t: els.turn, " ": els.turn, p: els.ten, e: els.auto, n: els.deal }[key];
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
  match: $("hr-match"),
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
  matchNote: $("hr-match-note"),
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
  form.match.value = String(state.houseRules?.best_of ?? 1);
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
  const bestOf = Number(form.match.value);
  form.summary.textContent = bestOf > 1 ? `best of ${bestOf} · ${rulesLine(rules)}` : rulesLine(rules);
  warnOfDraws(rules, bestOf);
}

// A match plays every drawn round again, so rules that often draw make a match that may not end
// soon: the panel plays a quick 2,000 rounds of them on the server and says so.
const drawCheck = { asked: 0, timer: 0, shares: new Map() }; // shares: by rules, once asked
const DRAWS_WORTH_A_WORD = 0.25;

function warnOfDraws(rules, bestOf) {
  const asked = ++drawCheck.asked;
  clearTimeout(drawCheck.timer);
  if (bestOf === 1 || rules.limit_outcome !== "draw" || rules.battle_limit === null) {
    form.matchNote.hidden = true;
    return;
  }
  drawCheck.timer = setTimeout(async () => {
    const key = JSON.stringify(rules);
    if (!drawCheck.shares.has(key)) {
      let result;
      try {
        result = await api("POST", "/api/simulations", { rules, rounds: 2000, seed: 1 });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return; // no estimate, no word: the choice stands either way
      }
      drawCheck.shares.set(key, result.games === 0 ? 0 : result.draws / result.games);
    }
    if (asked !== drawCheck.asked) return;
    const share = drawCheck.shares.get(key);
    form.matchNote.hidden = share < DRAWS_WORTH_A_WORD;
    form.matchNote.textContent =
      `Under these rules about ${Math.round(share * 100)} rounds in 100 end in a draw, and a ` +
      "match plays every drawn round again, so it may take many rounds. For a match, set " +
      "At the battle limit to \u201cthe biggest pile wins\u201d.";
  }, 250);
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
  save({ rules, best_of: Number(form.match.value) });
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
  save({ preset: name, best_of: Number(form.match.value) });
});
for (const control of [form.players, form.hand, form.warDown, form.shortage, form.gather, form.low,
  form.noLimit, form.limitOutcome, form.clock, form.limit]) {
  control.addEventListener("change", chooseFromForm);
}
form.match.addEventListener("change", chooseFromForm);
form.limit.addEventListener("input", () => {
  if (form.limit.getAttribute("aria-invalid") === "true") chooseFromForm();
});

els.rulesButton.addEventListener("click", () => {
  if (!state.info || !state.houseRules) return;
  stopAuto({ quiet: true }); // nothing plays on behind the panel
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
  await newRound({ fresh: true });
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
