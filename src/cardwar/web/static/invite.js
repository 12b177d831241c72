// The dialogs of a live table (docs/api.md#live-tables): Play with others (open a table with the
// house rules), the invite (its link, its QR code drawn by the server, Copy and the share
// sheet), and the question an invite link asks a visitor (a name, kept in this browser, and a
// free seat; or watching).
import { ApiError, api } from "./api.js";
import { $, copyField } from "./dom.js";
import { checkChoices, rulesLine } from "./house.js";
import { joining, sitAt } from "./live-asks.js";
import { defaultSeatName, nameMax } from "./seats.js";
import { state, ui, until } from "./state.js";
import { capital } from "./words.js";

const els = {
  together: $("together"),
  name: $("together-name"),
  players: $("together-players"),
  seats: $("together-seats"),
  clock: $("together-clock"),
  rules: $("together-rules"),
  error: $("together-error"),
  open: $("together-open"),
  invite: $("invite"),
  inviteTitle: $("invite-title"),
  qr: $("invite-qr"),
  link: $("invite-link"),
  watch: $("invite-watch"),
  hint: $("invite-hint"),
  text: $("invite-text"),
  status: $("invite-status"),
  send: $("invite-send"),
  copy: $("invite-copy"),
  join: $("join"),
  joinTitle: $("join-title"),
  joinAbout: $("join-about"),
  joinSeats: $("join-seats"),
  joinFields: $("join-fields"),
  joinName: $("join-name"),
  joinChoice: $("join-seat-choice"),
  joinError: $("join-error"),
  sit: $("join-sit"),
  watchOnly: $("join-watch"),
};

const NAME_KEY = "cardwar.name"; // the name this browser last sat down with

function keptName() {
  try {
    return window.localStorage.getItem(NAME_KEY) ?? "";
  } catch {
    return ""; // storage turned off: asked each time
  }
}

function keepName(name) {
  try {
    window.localStorage.setItem(NAME_KEY, name);
  } catch {
    // storage turned off: nothing to keep it in
  }
}

/** A name as a person typed it: trimmed, and said what is wrong with it, or null. */
function nameProblem(name) {
  if (name === "") return "Say who you are: the others see this name at your seat.";
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(name)) return "A name can hold letters, digits, spaces and marks, but no tabs or line breaks.";
  if ([...name].length > nameMax()) return `A name can be at most ${nameMax()} letters long.`;
  return null;
}

// -- Play with others -----------------------------------------------------------------------------

/** Open Play with others: the house rules' table, for as many players as they have (the number
 * can be changed here), each other seat someone you invite. */
export async function openTogether() {
  await until((now) => now.houseRules !== null); // pressed while the page still loads
  await ui.house.saving; // House rules' last choice is in first
  const { rules, seats } = state.houseRules;
  els.name.value = keptName() || (seats[0].name ?? "");
  els.players.value = String(rules.players);
  playersChosen();
  els.error.textContent = "";
  els.together.showModal();
  els.name.focus();
}

/** The table's rules: the house rules, for the number of players chosen here (a hand too big
 * for that many made to fit, and said so). */
function togetherRules() {
  const players = Number(els.players.value);
  const house = state.houseRules.rules;
  if (players === house.players) return { rules: house, notes: [] };
  const { rules, notes } = checkChoices({ ...house, players }, state.info.fields);
  return { rules, notes };
}

/** The number of players chosen: a seat row for each other player, and the rules line. */
export function playersChosen() {
  const { rules, notes } = togetherRules();
  const kept = [...els.seats.querySelectorAll("select")].map((select) => select.value);
  els.seats.replaceChildren(...Array.from({ length: rules.players - 1 }, (_, i) => seatRow(i + 1, rules.players, kept[i])));
  const bestOf = state.houseRules.best_of;
  els.rules.textContent = [
    `${capital(rulesLine(rules))}${bestOf > 1 ? ` · best of ${bestOf}` : ""}.`,
    ...notes,
    "These are your house rules: change them in House rules.",
  ].join(" ");
}

function seatRow(seat, players, kept) {
  const row = document.createElement("div");
  row.className = "field-row";
  const label = document.createElement("label");
  label.htmlFor = `together-seat-${seat}`;
  label.textContent = `Seat ${seat + 1}`;
  const select = document.createElement("select");
  select.id = `together-seat-${seat}`;
  select.dataset.seat = String(seat);
  for (const [value, words] of [["person", "Someone you invite"], ["computer", defaultSeatName("computer", seat, players)]]) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = value === "computer" ? `The computer (${words})` : words;
    select.append(option);
  }
  select.value = kept ?? "person"; // someone you invite, unless this dialog gave it to the computer
  row.append(label, select);
  return row;
}

/** Open the table: the house rules, these seats and the clock; then the invite. */
export async function openTable() {
  const name = els.name.value.trim();
  const problem = nameProblem(name);
  if (problem) {
    els.error.textContent = problem;
    els.name.focus();
    return;
  }
  const { preset, best_of: bestOf } = state.houseRules;
  const { rules } = togetherRules();
  const asHouse = rules === state.houseRules.rules; // the house rules as they are: by their preset
  const others = [...els.seats.querySelectorAll("select")].map((select) => ({ kind: select.value, name: "" }));
  if (!others.some((seat) => seat.kind === "person")) {
    els.error.textContent = "Choose at least one seat for someone you invite.";
    return;
  }
  const body = {
    preset: asHouse ? preset ?? "classic" : "classic",
    rules: asHouse && preset ? null : rules,
    best_of: bestOf,
    seats: [{ kind: "person", name }, ...others],
    clock_s: els.clock.value === "" ? null : Number(els.clock.value),
  };
  els.open.setAttribute("aria-busy", "true");
  let opened;
  try {
    opened = await api("POST", "/api/tables", body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    els.error.textContent = error.message;
    return;
  } finally {
    els.open.removeAttribute("aria-busy");
  }
  keepName(name);
  els.together.close();
  sitAt({ code: opened.invite.code, watch: opened.table.watch, you: 0, host: true, invite: opened.invite }, opened.table);
  openInvite();
}

// -- the invite -------------------------------------------------------------------------------------

const INVITE_WORDS = "Send this link, or let the others point their phone's camera at the code. Whoever opens it picks a free seat and a name.";

/** The invite of the table this device is at: its link and QR code, Copy and the share sheet. */
export function openInvite() {
  const live = state.live;
  if (!live?.code) return;
  const invite = live.invite ?? {
    invite_url: `${window.location.origin}/?table=${live.code}`,
    watch_url: `${window.location.origin}/?watch=${live.watch}`,
    shared: true,
    hint: null,
  };
  // A guest may pass the invite on too; how to let others in is the host's to say.
  els.inviteTitle.textContent = live.host ? "Invite to your table" : `Invite to ${state.round?.seats?.[live.turn.local(0)]?.name ?? "this"}'s table`;
  els.link.value = invite.invite_url;
  els.watch.value = invite.watch_url;
  // A game that listens on this computer alone: the links open here only, so no QR code a phone
  // could not open; the host is told first how to let the network in.
  els.qr.hidden = !invite.shared;
  if (invite.shared) els.qr.src = `/api/tables/${encodeURIComponent(live.code)}/invite.svg`;
  els.text.textContent = invite.shared ? INVITE_WORDS : "Only this computer can open this link just now. Whoever opens it picks a free seat and a name.";
  els.hint.hidden = !invite.hint || !live.host;
  els.hint.textContent = invite.hint ?? "";
  els.status.textContent = "";
  const sheet = typeof navigator.share === "function" && (navigator.canShare?.({ url: invite.invite_url }) ?? true);
  els.send.hidden = !sheet;
  els.copy.classList.toggle("primary", !sheet);
  els.invite.showModal();
  els.link.select();
  els.link.scrollLeft = 0;
}

const copy = (field, what) => copyField(field, els.status, `Copied the ${what}: paste it wherever you like.`);

export const copyInvite = () => copy(els.link, "invite link");
export const copyWatch = () => copy(els.watch, "watch link");

/** The device's share sheet; the link copied instead if the sheet fails. */
export async function sendInvite() {
  try {
    await navigator.share({ title: "Come and play War", text: "Join my table of War: pick a seat and a name.", url: els.link.value });
    els.status.textContent = "Shared.";
  } catch (error) {
    if (error?.name === "AbortError") return;
    await copyInvite();
  }
}

export const closeInvite = () => els.invite.close();

// -- joining through an invite ------------------------------------------------------------------------

let seen = null; // the table the visitor is asked about (GET /api/tables/{code})

/** A visitor at an invite link: the table, who sits where, a name and a free seat; or watch. */
function askToJoin(table) {
  seen = table;
  els.sit.textContent = "Sit down";
  delete els.sit.dataset.back;
  const { seats, rules, best_of: bestOf, clock_s: clock } = table.table;
  const host = seats[0].name;
  els.joinTitle.textContent = `Join ${host}'s table`;
  const extras = [bestOf > 1 ? `best of ${bestOf}` : null, clock ? `${clock} s to turn` : null].filter(Boolean);
  els.joinAbout.textContent = `${capital(rulesLine(rules))}${extras.length ? ` · ${extras.join(" · ")}` : ""}.`;
  const free = seats.flatMap((seat, index) => (seat.kind === "person" && !seat.taken ? [index] : []));
  els.joinSeats.replaceChildren(...seats.map((seat, index) => {
    const item = document.createElement("li");
    const name = seat.name || defaultSeatName(seat.kind, index, rules.players);
    item.textContent = seat.kind === "computer" ? `${name}: the computer`
      : seat.taken ? `${name}${index === 0 ? " (the host)" : ""}` : `Seat ${index + 1}: free`;
    return item;
  }));
  els.joinFields.hidden = free.length === 0;
  els.joinName.value = keptName();
  els.joinChoice.replaceChildren(...free.map((index, i) => {
    const row = document.createElement("span");
    row.className = "check-row";
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = "join-seat";
    radio.id = `join-seat-${index}`;
    radio.value = String(index);
    radio.checked = i === 0;
    const label = document.createElement("label");
    label.htmlFor = radio.id;
    label.textContent = `Seat ${index + 1}`;
    row.append(radio, label);
    return row;
  }));
  $("join-seat-set").hidden = free.length < 2; // one free seat: no choice to make
  els.sit.hidden = free.length === 0;
  els.watchOnly.textContent = free.length === 0 ? "Watch the table" : "Just watch";
  els.watchOnly.classList.toggle("primary", free.length === 0);
  els.joinError.textContent = free.length === 0 ? `Every seat at ${host}'s table is taken: you can watch it live.` : "";
  if (table.you.given !== null && table.you.given !== undefined) offerSeatBack(table, host);
  els.join.showModal();
  (free.length === 0 && els.sit.hidden ? els.watchOnly : els.sit.dataset.back ? els.sit : els.joinName).focus();
}
joining.ask = askToJoin;

/** Back at a table whose host gave this browser's seat to the computer while it was away: the
 * seat is offered back (the server keeps the name it had), from the next battle on. */
function offerSeatBack(table, host) {
  const seat = table.you.given;
  els.joinTitle.textContent = `Your seat at ${host}'s table`;
  els.joinError.textContent = "";
  els.joinAbout.textContent = `While you were away, ${host} let the computer play your seat (seat ${seat + 1}). ` +
    "Take it back and you turn your own cards again from the next battle.";
  els.joinFields.hidden = true;
  els.sit.hidden = false;
  els.sit.textContent = "Take my seat back";
  els.sit.dataset.back = String(seat);
  els.watchOnly.textContent = "Just watch";
  els.watchOnly.classList.remove("primary");
}

/** Sit down at the seat chosen, by the name given. */
export async function sitDown() {
  if (els.sit.dataset.back) return takeSeatBack(Number(els.sit.dataset.back));
  const name = els.joinName.value.trim();
  const problem = nameProblem(name);
  if (problem) {
    els.joinError.textContent = problem;
    els.joinName.focus();
    return;
  }
  const seat = Number(els.joinChoice.querySelector("input:checked")?.value ?? NaN);
  if (!Number.isInteger(seat)) return;
  const code = state.live?.code;
  els.sit.setAttribute("aria-busy", "true");
  let sat;
  try {
    sat = await api("POST", `/api/tables/${encodeURIComponent(code)}/seats`, { seat, name });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    els.joinError.textContent = error.message.replace(/^The server refused: (seat|name): /, "");
    if (error.status === 409) { // taken meanwhile: the seats as they are now
      const now = await api("GET", `/api/tables/${encodeURIComponent(code)}`).catch(() => null);
      if (now) {
        const said = els.joinError.textContent;
        askToJoin(now);
        els.joinError.textContent = said;
      }
    }
    return;
  } finally {
    els.sit.removeAttribute("aria-busy");
  }
  keepName(name);
  els.join.close();
  sitAt({ code, watch: seen.table.watch, you: sat.you.seat, host: sat.you.host, invite: seen.invite, arrival: "joined" }, sat.table);
}

/** Take back the seat that went to the computer: under the name it had (the server keeps it;
 * `name` is not read), every device told. */
async function takeSeatBack(seat) {
  const code = state.live?.code;
  els.sit.setAttribute("aria-busy", "true");
  let sat;
  try {
    sat = await api("POST", `/api/tables/${encodeURIComponent(code)}/seats`, { seat, name: keptName() || "me" });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    els.joinError.textContent = error.message.replace(/^The server refused: (seat|name): /, "");
    return;
  } finally {
    els.sit.removeAttribute("aria-busy");
  }
  els.join.close();
  sitAt({ code, watch: seen.table.watch, you: sat.you.seat, host: sat.you.host, invite: seen.invite, arrival: "reclaimed" }, sat.table);
}

/** Watch instead: the table goes on behind, and the dialog closes. */
export const justWatch = () => els.join.close();
