// The House rules panel: choices for the next deal, checked as made (house.js), saved in order.
import { stopAuto } from "./act.js";
import { ApiError, api } from "./api.js";
import { $ } from "./dom.js";
import { canRunForever, checkChoices, clockWords, matchPreset, rulesLine } from "./house.js";
import { newRound } from "./rounds.js";
import { dispatch, state, ui } from "./state.js";

const panel = {
  dialog: $("house-rules"),
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
};

export const choices = [panel.players, panel.hand, panel.warDown, panel.shortage, panel.gather, panel.low,
  panel.noLimit, panel.limitOutcome, panel.clock, panel.limit, panel.match];

// A match plays every drawn round again, so rules that often draw make a match that may not end
// soon: the panel plays a quick 2,000 rounds of them on the server and says so.
const DRAWS_WORTH_A_WORD = 0.25;

function handOptions(players, chosen) {
  const most = Math.floor(52 / players);
  const options = [new Option(`The whole deck: ${most} each`, "")];
  for (let n = 1; n <= most; n++) options.push(new Option(String(n), String(n)));
  panel.hand.replaceChildren(...options);
  panel.hand.value = chosen === null ? "" : String(chosen);
}

function clockOption(seconds) {
  if (seconds === null) return "";
  const value = String(seconds);
  if (![...panel.clock.options].some((option) => option.value === value)) {
    panel.clock.append(new Option(clockWords(seconds), value));
  }
  return value;
}

function fillForm(rules) {
  panel.players.value = String(rules.players);
  handOptions(rules.players, rules.hand_size);
  panel.warDown.value = String(rules.war_down);
  panel.shortage.value = rules.shortage;
  panel.gather.value = rules.gather;
  panel.low.checked = rules.low_wins;
  panel.noLimit.checked = rules.battle_limit === null;
  if (rules.battle_limit !== null) ui.house.lastLimit = rules.battle_limit;
  panel.limit.value = String(rules.battle_limit ?? ui.house.lastLimit);
  panel.limitOutcome.value = rules.limit_outcome;
  panel.clock.value = clockOption(rules.time_limit_s);
  panel.match.value = String(state.houseRules?.best_of ?? 1);
  panel.limit.removeAttribute("aria-invalid");
  panel.error.textContent = "";
  panel.notes.hidden = true;
  reflect(rules);
}

/** What the form shows beside the values: the preset they match, what is off, the summary. */
function reflect(rules) {
  panel.preset.value = matchPreset(rules, state.info.presets) ?? "";
  panel.limit.disabled = rules.battle_limit === null;
  panel.limitOutcome.disabled = rules.battle_limit === null;
  panel.endless.hidden = !canRunForever(rules);
  const bestOf = Number(panel.match.value);
  panel.summary.textContent = bestOf > 1 ? `best of ${bestOf} · ${rulesLine(rules)}` : rulesLine(rules);
  warnOfDraws(rules, bestOf);
}

function warnOfDraws(rules, bestOf) {
  const house = ui.house;
  const asked = ++house.drawsAsked;
  clearTimeout(house.drawsTimer);
  if (bestOf === 1 || rules.limit_outcome !== "draw" || rules.battle_limit === null) {
    panel.matchNote.hidden = true;
    return;
  }
  house.drawsTimer = setTimeout(async () => {
    const key = JSON.stringify(rules);
    if (!house.draws.has(key)) {
      let result;
      try {
        result = await api("POST", "/api/simulations", { rules, rounds: 2000, seed: 1 });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return; // no estimate, no word: the choice stands either way
      }
      house.draws.set(key, result.games === 0 ? 0 : result.draws / result.games);
    }
    if (asked !== house.drawsAsked) return;
    const share = house.draws.get(key);
    panel.matchNote.hidden = share < DRAWS_WORTH_A_WORD;
    panel.matchNote.textContent =
      `Under these rules about ${Math.round(share * 100)} rounds in 100 end in a draw, and a ` +
      "match plays every drawn round again, so it may take many rounds. For a match, set " +
      "At the battle limit to \u201cthe biggest pile wins\u201d.";
  }, 250);
}

function readForm() {
  const whole = (text) => (text.trim() === "" ? Number.NaN : Number(text));
  return {
    players: Number(panel.players.value),
    hand_size: panel.hand.value === "" ? null : Number(panel.hand.value),
    war_down: Number(panel.warDown.value),
    shortage: panel.shortage.value,
    battle_limit: panel.noLimit.checked ? null : whole(panel.limit.value),
    limit_outcome: panel.limitOutcome.value,
    time_limit_s: panel.clock.value === "" ? null : Number(panel.clock.value),
    low_wins: panel.low.checked,
    gather: panel.gather.value,
  };
}

function save(body) {
  const house = ui.house;
  house.saving = house.saving.then(async () => {
    try {
      const chosen = await api("PUT", "/api/me/house-rules", body);
      dispatch({ type: "chosen", houseRules: chosen });
      panel.error.textContent = "";
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      panel.error.textContent = error.message;
      return false;
    }
  });
  return house.saving;
}

/** Check the choices, say what is wrong or adjusted, and save them if they can be dealt. */
export function chooseFromForm() {
  const { rules, problems, notes } = checkChoices(readForm(), state.info.fields);
  if (rules.players !== Number(panel.hand.dataset.players)) handOptions(rules.players, rules.hand_size);
  panel.hand.dataset.players = String(rules.players);
  panel.notes.textContent = notes.join(" ");
  panel.notes.hidden = notes.length === 0;
  panel.limit.setAttribute("aria-invalid", String(problems.length > 0));
  panel.error.textContent = problems.join(" ");
  panel.deal.setAttribute("aria-disabled", String(problems.length > 0));
  if (problems.length > 0) return;
  if (rules.battle_limit !== null) ui.house.lastLimit = rules.battle_limit;
  if (panel.noLimit.checked) panel.limit.value = String(ui.house.lastLimit);
  reflect(rules);
  save({ rules, best_of: Number(panel.match.value) });
}

/** A battle limit called wrong is checked again at every key. */
export function limitTyped() {
  if (panel.limit.getAttribute("aria-invalid") === "true") chooseFromForm();
}

export function choosePreset() {
  const name = panel.preset.value;
  if (!name) return;
  fillForm(state.info.presets[name]);
  save({ preset: name, best_of: Number(panel.match.value) });
}

export function openPanel() {
  if (!state.info || !state.houseRules) return;
  stopAuto({ quiet: true }); // nothing plays on behind the panel
  fillForm(state.houseRules.rules);
  panel.hand.dataset.players = String(state.houseRules.rules.players);
  panel.deal.setAttribute("aria-disabled", "false");
  panel.dialog.showModal();
  panel.preset.focus();
}

export const closePanel = () => panel.dialog.close();

/** "Deal with these rules", once every choice is saved. */
export async function dealWithTheseRules() {
  if (panel.deal.getAttribute("aria-disabled") === "true") return;
  if (!(await ui.house.saving)) return;
  panel.dialog.close();
  await newRound({ fresh: true });
}
