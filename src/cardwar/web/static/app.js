// Boot and wiring: every event the page listens to is connected here, then the page loads.
import { act, press, stopAuto } from "./act.js";
import { playToEnd, rememberSpeed, rememberWars, restoreChoices } from "./auto.js";
import { restoreChanceChoice, showChance, toggleChanceHidden, togglePeek } from "./chance.js";
import { drawClock, tickClock } from "./clock.js";
import { answerConfirm, confirmClosed } from "./confirm.js";
import { $, onBackdrop } from "./dom.js";
import * as house from "./house-panel.js";
import * as invite from "./invite.js";
import { onKey, onTableTap, tapStoppedRun } from "./keys.js";
import { giveSeat, react, takeSeat } from "./live-asks.js";
import { drawLive, drawSeatStates } from "./live-draw.js";
import { offlineNow, reconnectNow } from "./live-socket.js";
import { afterTheTable, backToTable, leaveTable } from "./live.js";
import { keepTable, refusedOffline, tryNow } from "./offline.js";
import { flip, play, tapPile, turnCards } from "./play.js";
import * as replay from "./replay.js";
import * as end from "./round-end.js";
import { load, newRound } from "./rounds.js";
import { drawSoundButton, pressed, toggleSound } from "./sound.js";
import { onDraw, ui } from "./state.js";
import { watchSimulator } from "./simulator.js";
import { drawStatsReady, drawStatsRules, runStats } from "./stats.js";
import { controls, drawTable } from "./table.js";
import "./pwa.js";

// Drawn in this order: the table, a live table's own parts over it, its clock, a finished
// round's end, the statistics' rules.
for (const drawer of [drawTable, drawLive, drawClock, end.drawRoundEnd, drawStatsRules]) onDraw(drawer);
onDraw(keepTable); // not a drawer: the table as it stands, kept in this browser for a reload offline

const { turn, ten, auto, deal, again } = controls;
const on = (type, handlers) => {
  for (const [id, handler] of Object.entries(handlers)) $(id).addEventListener(type, handler);
};
const backdrop = (close) => (event) => onBackdrop(event.currentTarget, event) && close();
/** A click on a person's flip button (table.js puts them in each seat), or on a pile. */
function onTableClick(event) {
  const target = event.target instanceof Element ? event.target : null;
  const give = target?.closest("button[data-give]"); // the host's, on a live table's seat
  if (give) {
    giveSeat(Number(give.dataset.give));
    return;
  }
  const button = target?.closest("button.flip");
  if (button) {
    press(button, () => flip(Number(button.dataset.seat), button))();
    return;
  }
  const pile = target?.closest(".seat .stack");
  if (pile && !tapStoppedRun()) tapPile(Number(pile.closest(".seat").dataset.seat));
}

turn.addEventListener("click", press(turn, () => turnCards(turn)));
ten.addEventListener("click", press(ten, () => play(10, ten)));
deal.addEventListener("click", press(deal, () => newRound()));
again.addEventListener("click", press(again, () => newRound())); // the result's own New round
auto.addEventListener("click", () => {
  if (ui.run) stopAuto();
  else if (!refusedOffline()) playToEnd();
});
document.addEventListener("keydown", onKey);
// Out of reach of the game, these try again at once: the network back, the page shown again.
for (const again of [tryNow, reconnectNow]) {
  addEventListener("online", again);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && again());
}
addEventListener("offline", offlineNow); // a live table's socket is not waited on then
on("pointerdown", { table: onTableTap });
on("click", { sound: toggleSound, table: onTableClick });
for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, pressed, { capture: true, once: true });
on("mousedown", { table: (event) => event.preventDefault() }); // the focus stays put
for (const control of house.choices) control.addEventListener("change", house.chooseFromForm);
on("change", {
  "auto-speed": rememberSpeed,
  "auto-wars": rememberWars,
  "hr-preset": house.choosePreset,
  "hr-seats": house.chooseFromForm, // each seat's kind and name, in rows made at the first opening
  "together-players": invite.playersChosen,
});
on("input", { "hr-limit": house.limitTyped, "replay-slider": replay.slide });
on("close", { confirm: confirmClosed, replay: replay.replayClosed });
on("keydown", { replay: replay.replayKey });
on("submit", { "stats-form": runStats });
on("click", {
  "confirm-yes": () => answerConfirm(true),
  "confirm-no": () => answerConfirm(false),
  confirm: backdrop(() => answerConfirm(false)), // a click around a dialog, as Escape
  "rules-button": house.openPanel,
  "hr-close": house.closePanel,
  "hr-deal": house.dealWithTheseRules,
  "house-rules": backdrop(house.closePanel),
  "story-chart": end.watchFromChart,
  watch: end.watchReplay,
  "replay-deal": end.replayDeal,
  "share-deal": end.openShare,
  "share-send": end.sendShareLink,
  "share-copy": end.copyShareLink,
  "share-close": end.closeShare,
  "replay-back": replay.stepBack,
  "replay-forward": replay.stepForward,
  "replay-close": replay.closeReplay,
  "play-others": invite.openTogether,
  "hr-together": house.playWithOthers,
  "together-open": invite.openTable,
  "together-close": () => $("together").close(),
  together: backdrop(() => $("together").close()),
  invite: backdrop(invite.closeInvite),
  "live-invite": invite.openInvite,
  "live-leave": leaveTable,
  "ended-play": () => afterTheTable(),
  "ended-open": () => afterTheTable({ open: true }),
  "live-sit": takeSeat,
  "held-back": backToTable,
  "invite-copy": invite.copyInvite,
  "invite-copy-watch": invite.copyWatch,
  "invite-send": invite.sendInvite,
  "invite-close": invite.closeInvite,
  "join-sit": invite.sitDown,
  "join-watch": invite.justWatch,
});
$("reactions").addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-emoji]") : null;
  if (button) react(button.dataset.emoji);
});
for (const form of ["together-form", "join-form"]) { // Enter in a field presses the dialog's main button
  $(form).addEventListener("submit", (event) => {
    event.preventDefault();
    (form === "join-form" ? invite.sitDown : invite.openTable)();
  });
}

restoreChoices(); // Play to end's speed and pause, as this browser last chose them
restoreChanceChoice(); // the chance meter shown or hidden, likewise
// The meter's Hide button comes with the table's look (index.html); wired once it is there.
$("chance-hide")?.addEventListener("click", toggleChanceHidden);
$("chance-peek")?.addEventListener("click", togglePeek);
drawSoundButton($("sound"));
setInterval(tickClock, 250);
setInterval(drawSeatStates, 250); // a live table's turn clock, on the seats it waits for
act(load);
// A first start's simulator: "getting ready" until it is, then the chance meter asked.
watchSimulator(() => {
  drawStatsReady();
  if (ui.simulator.ready) showChance();
});
