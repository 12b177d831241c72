// The House rules panel: choices for the next deal and who plays it, checked as made (house.js),
// saved in order; how often the rules chosen end in a draw, asked of the server's simulator.
import { stopAuto } from "./act.js";
import { ApiError, api } from "./api.js";
import { askConfirm } from "./confirm.js";
import { $ } from "./dom.js";
import {
  biggerTableLine, biggerTableNote, canRunForever, checkChoices, clockWords, drawWords, matchPreset, rulesLine,
} from "./house.js";
import { openTogether } from "./invite.js";
import { liveDeal } from "./live-asks.js";
import { leaveForOwnTable } from "./live.js";
import { newRound } from "./rounds.js";
import { checkSeats, defaultSeatName, defaultSeats, nameMax, sameSeats, seatCount } from "./seats.js";
import { simulatorReady } from "./simulator.js";
import { dispatch, state, ui } from "./state.js";
import { announce } from "./table.js";
import { view } from "./update.js";

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
  tableLine: $("hr-limit-table"),
  limitOutcome: $("hr-limit-outcome"),
  clock: $("hr-clock"),
  endless: $("hr-endless"),
  notes: $("hr-notes"),
  draws: $("hr-draws"),
  matchNote: $("hr-match-note"),
  error: $("hr-error"),
  summary: $("hr-summary"),
  deal: $("hr-deal"),
};

// Each seat's controls, made from the one row template once the server has said how many seats
// there are (seats.js): seat 0 is always a person, so it has a name only. A change in any of
// them reaches chooseFromForm through the fieldset (app.js).
let seatControls = null;

function seatRows() {
  if (seatControls) return seatControls;
  const template = $("seat-choice");
  const rows = Array.from({ length: seatCount() }, (_, seat) => {
    const row = template.content.firstElementChild.cloneNode(true);
    row.dataset.seat = String(seat);
    const [kindLabel, nameLabel] = row.querySelectorAll("label");
    const kind = row.querySelector("select");
    const name = row.querySelector("input");
    const problem = row.querySelector(".seat-problem");
    name.id = `hr-name-${seat}`;
    name.maxLength = nameMax();
    problem.id = `hr-name-${seat}-problem`;
    name.setAttribute("aria-describedby", problem.id);
    nameLabel.htmlFor = name.id;
    if (seat === 0) {
      row.classList.add("you");
      row.querySelector(".seat-kind").remove();
      nameLabel.textContent = "Your name";
      return { row, kind: null, name, problem };
    }
    kind.id = `hr-kind-${seat}`;
    kindLabel.htmlFor = kind.id;
    kindLabel.textContent = `Seat ${seat + 1}`;
    nameLabel.textContent = `Name of seat ${seat + 1}`;
    return { row, kind, name, problem };
  });
  template.before(...rows.map(({ row }) => row));
  seatControls = rows;
  return rows;
}

export const choices = [panel.players, panel.hand, panel.warDown, panel.shortage, panel.gather, panel.low,
  panel.noLimit, panel.limitOutcome, panel.clock, panel.limit, panel.match];

const storedSeats = () => state.houseRules?.seats ?? defaultSeats();

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

function fillSeats(seats) {
  seatRows().forEach(({ kind, name }, seat) => {
    if (kind) kind.value = seats[seat].kind;
    name.value = seats[seat].name;
  });
  showSeatProblems(new Map());
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
  ui.house.table = { before: {}, set: {} };
  reflect(rules);
}

/** The seats in play shown, the others kept but hidden; each empty name says its default. */
function showSeats(players) {
  seatRows().forEach(({ row, kind, name }, seat) => {
    row.hidden = seat >= players;
    if (seat < players) name.placeholder = defaultSeatName(kind ? kind.value : "person", seat, players);
  });
}

/** Beside the battle limit, at a table of 3 or 4, the ending such a table has of its own. */
function showTableLine(players) {
  const table = state.info.bigger_tables?.[players];
  panel.tableLine.hidden = !table;
  panel.tableLine.textContent = table ? biggerTableLine(players, table) : "";
}

/** Each seat's problem beside its name (`problems`: seat -> words), the name marked invalid. */
function showSeatProblems(problems) {
  seatRows().forEach(({ name, problem }, seat) => {
    const words = problems.get(seat) ?? "";
    problem.textContent = words;
    if (words) name.setAttribute("aria-invalid", "true");
    else name.removeAttribute("aria-invalid");
  });
}

/** What the form shows beside the values: the preset they match, what is off, the summary. */
function reflect(rules) {
  panel.preset.value = matchPreset(rules, state.info.presets) ?? "";
  panel.limit.disabled = rules.battle_limit === null;
  panel.limitOutcome.disabled = rules.battle_limit === null;
  panel.endless.hidden = !canRunForever(rules);
  showSeats(rules.players);
  showTableLine(rules.players);
  const bestOf = Number(panel.match.value);
  panel.summary.textContent = bestOf > 1 ? `best of ${bestOf} · ${rulesLine(rules)}` : rulesLine(rules);
  estimateDraws(rules, bestOf);
}

function showDraws(share, rules, bestOf) {
  const words = drawWords(share, rules, bestOf);
  panel.matchNote.hidden = words.match === null;
  panel.matchNote.textContent = words.match ?? "";
  panel.draws.hidden = words.match !== null; // the match's note says it already
  panel.draws.textContent = words.general;
}

/** Say how often a round under `rules` ends in a draw: 2,000 rounds played on the server, once
 * per set of rules, a quarter second after the last choice, one request at a time (the server
 * plays one long run per browser and refuses a second at once). */
function estimateDraws(rules, bestOf) {
  const house = ui.house;
  const asked = ++house.drawsAsked;
  clearTimeout(house.drawsTimer);
  const key = JSON.stringify(rules);
  if (house.draws.has(key)) {
    showDraws(house.draws.get(key), rules, bestOf);
    return;
  }
  panel.draws.hidden = true; // no words about other rules meanwhile
  panel.matchNote.hidden = true;
  house.drawsTimer = setTimeout(() => {
    const turn = house.drawsLine.then(simulatorReady).then(async () => {
      // Chosen again while it waited its turn, or the panel closed: nobody would read it.
      if (asked !== house.drawsAsked || !panel.dialog.open) return;
      if (!house.draws.has(key)) {
        let result;
        try {
          result = await api("POST", "/api/simulations", { rules, rounds: 2000, seed: 1 }, { background: true });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return; // no estimate, no word: the choice stands either way
        }
        house.draws.set(key, result.rounds === 0 ? 0 : result.draws / result.rounds);
      }
      if (asked === house.drawsAsked) showDraws(house.draws.get(key), rules, bestOf);
    });
    house.drawsLine = turn.catch(() => {}); // a bug shows as this turn's error; the line goes on
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

function readSeats() {
  return seatRows().map(({ kind, name }) => ({ kind: kind ? kind.value : "person", name: name.value.trim() }));
}

/** The seat a refusal of the server names ("seats.2.name: …"), or null. */
function seatNamed(message) {
  const found = /\bseats\W{0,2}(\d)\b/.exec(message);
  return found && Number(found[1]) < seatCount() ? Number(found[1]) : null;
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
      const seat = body.seats ? seatNamed(error.message) : null;
      if (seat === null) panel.error.textContent = error.message;
      else showSeatProblems(new Map([[seat, error.message.replace(/\bseats\W{0,2}\d\W{0,2}(name)?:\s*/, "")]]));
      return false;
    }
  });
  return house.saving;
}

// The fields a bigger table sets, as the panel reads and writes them.
const TABLE_FIELDS = {
  battle_limit: {
    read: () => (panel.noLimit.checked ? null : Number(panel.limit.value)),
    write: (value) => {
      panel.noLimit.checked = value === null;
      if (value !== null) panel.limit.value = String(value);
    },
  },
  limit_outcome: {
    read: () => panel.limitOutcome.value,
    write: (value) => {
      panel.limitOutcome.value = value;
    },
  },
};

/** The player chose a field the panel set for a bigger table: it is theirs now, kept as it is. */
function madeOwn(field) {
  delete ui.house.table.before[field];
  delete ui.house.table.set[field];
}

/**
 * Players chosen: a table of 3 or 4 has an ending of its own (`bigger_tables` of GET /api/rules,
 * docs/rules.md#bigger-tables: a shorter battle limit, and the biggest pile wins there), laid
 * on each field still at its classic value or at what the panel itself set; a limit the player
 * typed, or no limit, stays. Back at 2, each field the panel set returns to what it replaced,
 * unless the player has changed it since. Returns a note of what changed, or null.
 */
function playersChosen() {
  const players = Number(panel.players.value);
  const table = state.info.bigger_tables?.[players] ?? {};
  const { before, set } = ui.house.table;
  const changed = {};
  // A value some bigger table sets (a table of 3 dealt before, now 4) is the panel's too.
  const tables = Object.values(state.info.bigger_tables ?? {});
  const tablesSet = (field, value) => tables.some((other) => other[field] === value);
  let usualLimit = false; // the limit went back to the usual one (battle_limit comes first)
  for (const [field, control] of Object.entries(TABLE_FIELDS)) {
    const value = control.read();
    const ours = field in set && value === set[field];
    if (!(field in table)) {
      // Back to what the panel replaced, unless that too was a bigger table's limit: then, as
      // for such a limit the panel replaced nothing for, the usual one.
      // (What happens at that limit goes back with it.)
      const back = ours ? before[field] : value;
      if ((field === "battle_limit" || usualLimit) && tablesSet(field, back)) {
        control.write(state.info.fields[field].default);
        usualLimit = true;
      } else if (ours) control.write(back);
      madeOwn(field);
    } else if (value !== table[field] && (ours || value === state.info.fields[field].default || tablesSet(field, value))) {
      if (!(field in before)) before[field] = value;
      control.write(table[field]);
      set[field] = table[field];
      changed[field] = table[field];
    }
  }
  return Object.keys(changed).length > 0 ? biggerTableNote(players, changed) : null;
}

/** Check the choices, say what is wrong or adjusted, and save them if they can be dealt. */
export function chooseFromForm(event) {
  const changed = event?.target;
  const limitNote = changed === panel.players ? playersChosen() : null;
  if (changed === panel.limitOutcome) madeOwn("limit_outcome"); // the player's own choice
  if (changed === panel.limit || changed === panel.noLimit) madeOwn("battle_limit");
  const { rules, problems, notes } = checkChoices(readForm(), state.info.fields);
  if (limitNote && rules.battle_limit !== null) notes.push(limitNote);
  if (rules.players !== Number(panel.hand.dataset.players)) handOptions(rules.players, rules.hand_size);
  panel.hand.dataset.players = String(rules.players);
  panel.notes.textContent = notes.join(" ");
  panel.notes.hidden = notes.length === 0;
  panel.limit.setAttribute("aria-invalid", String(problems.length > 0));
  panel.error.textContent = problems.join(" ");
  const seats = readSeats();
  const changedSeat = seatRows().findIndex(({ kind, name }) => changed && (changed === kind || changed === name));
  const seatProblems = checkSeats(seats, rules.players, changedSeat < 0 ? null : changedSeat);
  showSeats(rules.players);
  showTableLine(rules.players);
  showSeatProblems(seatProblems);
  const blocked = problems.length > 0 || seatProblems.size > 0;
  panel.deal.setAttribute("aria-disabled", String(blocked));
  if (blocked) return;
  if (rules.battle_limit !== null) ui.house.lastLimit = rules.battle_limit;
  if (panel.noLimit.checked) panel.limit.value = String(ui.house.lastLimit);
  reflect(rules);
  // Seats left out are kept by the server as they are: they are sent when they change.
  const body = { rules, best_of: Number(panel.match.value) };
  if (!sameSeats(seats, storedSeats())) body.seats = seats;
  save(body);
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
  fillSeats(storedSeats());
  fillForm(state.houseRules.rules);
  panel.hand.dataset.players = String(state.houseRules.rules.players);
  panel.deal.setAttribute("aria-disabled", "false");
  panel.dialog.showModal();
  panel.preset.focus();
}

export const closePanel = () => panel.dialog.close();

/** "Deal with these rules", once every choice is saved: at a live table, the table's next round
 * for everyone (the host's), or a table of one's own (a guest's). */
export async function dealWithTheseRules() {
  if (panel.deal.getAttribute("aria-disabled") === "true") return;
  if (!(await ui.house.saving)) return;
  panel.dialog.close();
  if (state.live) await dealAtTheTable(state.live);
  else await newRound({ fresh: true });
}

/** House rules at a live table: the host deals the table's next round with them, after the
 * usual question while a round is played; a guest's rules are for a table of their own, never a
 * private round inside the table's frame: they are offered to leave for one. */
async function dealAtTheTable(live) {
  const opener = $("rules-button");
  const names = view(state).names;
  const host = names[live.turn.local(0)] ?? "The host";
  if (!live.host) {
    const leave = await askConfirm({
      opener,
      title: "These rules are for a table of your own",
      text: `${host} deals this table's rounds: ask ${host} for these rules, or leave this table (your seat is freed) for a table of your own and play them there.`,
      yes: "Leave for my own table",
      no: "Stay at this table",
    });
    if (leave) await leaveForOwnTable();
    return;
  }
  const chosen = state.houseRules;
  const seats = live.seats.length;
  if (chosen.rules.players !== seats) {
    const words = `This table has ${seats} seats, so its rounds are for ${seats} players: choose ${seats} players in House rules, or open a table of your own for ${chosen.rules.players}.`;
    dispatch({ type: "noted", note: words });
    announce(words);
    return;
  }
  const inPlay = Boolean(state.round) && state.round.outcome === null;
  if (inPlay) {
    const deal = await askConfirm({
      opener,
      title: "Deal the table's next round?",
      text: "Everyone at the table plays a new round with these rules from now on. The round in play is left unfinished and counts for no one.",
      yes: "Deal for the table",
      no: "Keep playing",
    });
    if (!deal) return;
  }
  liveDeal(chosen, inPlay);
}

/** Play with others, from House rules: the rules chosen here, at a table others join. */
export async function playWithOthers() {
  if (!(await ui.house.saving)) return;
  panel.dialog.close();
  await openTogether();
}
