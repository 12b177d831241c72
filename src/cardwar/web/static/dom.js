// Small helpers for the page's elements.
export const $ = (id) => document.getElementById(id);

/** Copy a read-only link field's text, and say in `status` how it went (`copied`: the words
 * once it is copied); the field stays selected, for a browser that will not copy. */
export async function copyField(field, status, copied) {
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = copied;
  } catch {
    status.textContent = "This browser would not copy it: the link is selected, so copy it with your keyboard or menu.";
  }
}

/** True when `event`, a click on a modal `dialog`, landed on the dimmed page around it. */
export function onBackdrop(dialog, event) {
  if (event.target !== dialog) return false;
  const box = dialog.getBoundingClientRect();
  const inside = event.clientX >= box.left && event.clientX <= box.right
    && event.clientY >= box.top && event.clientY <= box.bottom;
  return !inside;
}
