// A live table's own parts of the page, drawn from the state after table.js's drawer: the live
// bar, the held bar, each seat's state, the reactions, and the buttons only the host has.
import { $ } from "./dom.js";
import { endedWords, hostOnlyWords, seatStates } from "./live-words.js";
import { state } from "./state.js";
import { controls } from "./table.js";

const els = {
  bar: $("live-bar"),
  held: $("held-bar"),
  heldTitle: $("held-title"),
  sit: $("live-sit"),
  matches: $("matches-tally"),
  board: $("won").closest(".scoreboard"),
  title: $("live-title"),
  link: $("live-link"),
  invite: $("live-invite"),
  leave: $("live-leave"),
  hostOnly: $("host-only"),
  reactions: $("reactions"),
  autoplay: $("auto-speed").closest(".autoplay"),
  stats: $("stats"),
  together: $("together-row"),
  table: $("table"),
  game: $("table").closest(".game"),
  ended: $("table-ended"),
  endedTitle: $("ended-title"),
  endedText: $("ended-text"),
};

const LINK_WORDS = { connecting: "Connecting…", open: "", lost: "Reconnecting…", closed: "Closed", gone: "Not found" };

/** The live bar, each seat's state and the buttons only the host has; after table.js's drawer. */
export function drawLive(shown) {
  const live = state.live;
  const held = !live && state.held?.length > 0 ? state.held : [];
  // A table that has ended (closed, or none at the link) leaves no board behind: the page says
  // so in its place and offers a table of one's own.
  const ended = Boolean(live) && ["closed", "gone"].includes(live.link);
  els.ended.hidden = !ended;
  els.game.hidden = ended;
  if (ended) {
    const words = endedWords(live, shown.ready ? shown.names[live.turn.local(0)] : null);
    els.endedTitle.textContent = words.title;
    els.endedText.textContent = words.text;
  }
  els.bar.hidden = !live || ended;
  els.held.hidden = held.length === 0;
  els.together.hidden = Boolean(live);
  els.hostOnly.hidden = !live || (live.host && live.you !== null);
  els.reactions.hidden = !live || live.you === null || live.link !== "open";
  document.body.classList.toggle("at-live-table", Boolean(live) || held.length > 0);
  // Each device shows what it can use: only the host plays on, deals, sets a run's speed and
  // pause, or asks how rounds of these rules go (a guest's own house rules are not the table's);
  // a watcher turns no cards.
  const guest = Boolean(live) && !live.host;
  for (const part of [controls.ten, controls.auto, controls.deal, els.autoplay, els.stats]) part.hidden = guest;
  controls.turn.hidden = Boolean(live) && live.you === null;
  els.board.setAttribute("aria-label", live ? "Your rounds at this table" : "Your rounds");
  drawReactions(live);
  if (!live) {
    for (const status of els.table.querySelectorAll(".seat-status")) status.hidden = true;
    controls.deal.disabled = false;
    controls.again.hidden = false;
    if (held.length > 0) els.heldTitle.textContent = heldWords(held);
    return;
  }
  const names = shown.ready ? shown.names : [];
  const host = live.turn && names.length > 0 ? names[live.turn.local(0)] : "";
  if (!shown.ready) els.title.textContent = "Live table"; // not reached, or no such table
  else if (live.you === null) els.title.textContent = `Watching ${host}'s table`;
  else els.title.textContent = live.host ? "Your live table" : `${host}'s table`;
  els.link.textContent = LINK_WORDS[live.link] ?? "";
  els.bar.dataset.link = live.link;
  els.invite.hidden = !live.code || !["open", "lost"].includes(live.link);
  const free = live.seats?.some((seat) => seat.kind === "person" && !seat.taken) ?? false;
  els.sit.hidden = !(live.code && live.you === null && live.link === "open" && free);
  els.leave.textContent = live.host && live.link === "open" ? "Close table" : "Leave";
  els.leave.classList.toggle("primary", ["closed", "gone"].includes(live.link));
  els.matches.hidden = true; // the table's scoreboard counts rounds by name (live-update.js)
  if (shown.ready && !els.hostOnly.hidden) els.hostOnly.textContent = hostOnlyWords(live, names);
  const open = live.link === "open";
  const going = shown.ready && shown.outcome === null;
  controls.deal.disabled = guest || !open || going; // the next round, once this one is over
  // A guest asks the host for another round from the result; a watcher has nothing to ask.
  controls.again.hidden = live.you === null;
  if (guest && shown.ready && shown.outcome) {
    const asked = live.asked.includes(0);
    controls.again.textContent = asked ? "Asked for another round" : "Ask for another round";
    controls.again.setAttribute("aria-disabled", String(asked));
  }
  if (!open) for (const button of Object.values(controls)) button.setAttribute("aria-disabled", "true");
  // Turned already, or a watcher's: no pile here to turn.
  if (live.you === null || live.flipped?.includes(0)) els.table.querySelector(".pile-hint").hidden = true;
  drawSeatStates();
}

/** Each reaction on its seat, popping up as it comes (a second one on a seat pops again). */
function drawReactions(live) {
  for (const shown of els.table.querySelectorAll(".reaction")) {
    const reaction = live?.reactions?.[shown.dataset.seat];
    if (!reaction) {
      shown.hidden = true;
      delete shown.dataset.at;
      continue;
    }
    if (shown.dataset.at === String(reaction.at)) continue;
    shown.dataset.at = String(reaction.at);
    shown.textContent = reaction.emoji;
    shown.hidden = false;
    shown.classList.remove("pop");
    void shown.offsetWidth; // the pop plays again for a second reaction
    shown.classList.add("pop");
  }
}

/** Each seat's state on the table ("Ready", "Reconnecting…"), with the host's button to give a
 * free or long-away seat to the computer; called by the page's clock too. */
export function drawSeatStates() {
  const live = state.live;
  if (!live?.seats) return;
  const states = seatStates(live, performance.now());
  els.table.querySelectorAll(".seat-status").forEach((box) => {
    const place = Number(box.dataset.seat);
    const seatState = states[place] ?? null;
    box.hidden = seatState === null;
    if (seatState === null) return;
    box.dataset.state = seatState.text.split(" ")[0].replace("…", "").toLowerCase();
    const text = box.querySelector("span") ?? document.createElement("span");
    text.textContent = seatState.text;
    if (!text.isConnected) box.prepend(text);
    let give = box.querySelector("button");
    if (seatState.give && !give) {
      give = document.createElement("button");
      give.type = "button";
      give.className = "quiet small give";
      give.dataset.give = String(place);
      give.textContent = "Let the computer play";
      box.append(give);
    } else if (!seatState.give && give) {
      give.remove();
    }
  });
}

/** The held bar's words: "Your live table with Mia is still open." */
function heldWords(held) {
  const [latest] = held;
  const others = latest.names.filter((name, seat) => name && seat !== 0);
  const withWhom = others.length > 0 ? ` with ${others.join(", ")}` : "";
  const which = latest.host ? "Your live table" : `${latest.names[0]}'s table`;
  const more = held.length > 1 ? ` (and ${held.length - 1} more)` : "";
  if (latest.given !== null && latest.given !== undefined) {
    return `At ${which.replace(/^Your/, "your")}, the computer plays your seat while you are away: it is yours to take back${more}.`;
  }
  return `${which}${withWhom} is still open${more}.`;
}
