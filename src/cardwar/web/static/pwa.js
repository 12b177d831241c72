// Installing the table (docs/api.md#installing): registers the service worker that keeps the
// page's own files, so the table opens at once from the home screen.

if ("serviceWorker" in navigator) {
  addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {
      // Not offered here (a private window, or an address browsers do not trust with a worker,
      // such as plain http to another computer): the page plays just the same without it.
    });
  });
}
