// Small helpers for the page's elements.
export const $ = (id) => document.getElementById(id);

/** True when `event`, a click on a modal `dialog`, landed on the dimmed page around it. */
export function onBackdrop(dialog, event) {
  if (event.target !== dialog) return false;
  const box = dialog.getBoundingClientRect();
  const inside = event.clientX >= box.left && event.clientX <= box.right
    && event.clientY >= box.top && event.clientY <= box.bottom;
  return !inside;
}
