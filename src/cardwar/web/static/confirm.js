// The confirm dialog. Its close event is queued: "Keep playing" then N at once opens it again
// before the first close event arrives. So each opening is settled as it closes (buttons,
// backdrop); a close event (Escape) only if it finds the dialog shut.
import { $ } from "./dom.js";
import { ui } from "./state.js";

const els = {
  dialog: $("confirm"),
  title: $("confirm-title"),
  text: $("confirm-text"),
  yes: $("confirm-yes"),
  no: $("confirm-no"),
};

function settle(yes) {
  const answer = ui.confirm.settle;
  ui.confirm.settle = null;
  answer?.(yes);
}

/** Ask `title` (`text` says why) with buttons `yes` and `no`; true for yes. */
export function askConfirm({ title, text, yes, no }) {
  settle(false); // one still unsettled was closed by Escape
  els.title.textContent = title;
  els.text.textContent = text;
  els.yes.textContent = yes;
  els.no.textContent = no;
  els.dialog.returnValue = "";
  els.dialog.showModal();
  els.no.focus();
  return new Promise((resolve) => {
    ui.confirm.settle = resolve;
  });
}

/** Close the dialog with this answer (a click on its backdrop is a no). */
export function answerConfirm(yes) {
  els.dialog.close(yes ? "yes" : "no");
  settle(yes);
}

/** The dialog's close event: Escape's answer, unless it has opened again since. */
export function confirmClosed() {
  if (!els.dialog.open) settle(els.dialog.returnValue === "yes");
}
