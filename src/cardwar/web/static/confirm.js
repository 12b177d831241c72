// The confirm dialog. Its close event is queued: "Keep playing" then N at once opens it again
// before the first close event arrives. So each opening is settled as it closes (buttons,
// backdrop); a close event (Escape) only if it finds the dialog shut. However it closes, the
// focus goes back to the button that asked (New round), not to the page.
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
  const { settle: answer, opener } = ui.confirm;
  ui.confirm.settle = null;
  ui.confirm.opener = null;
  answer?.(yes);
  if (opener?.isConnected && !els.dialog.open) opener.focus();
}

/** Ask `title` (`text` says why) with buttons `yes` and `no`; true for yes. `opener` is the
 * button that asked: it has the focus again once the dialog closes. */
export function askConfirm({ title, text, yes, no, opener = null }) {
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
    ui.confirm.opener = opener;
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
