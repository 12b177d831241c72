// The service worker (docs/api.md#installing). It keeps this version of the page's own files, so
// the table opens at once from the home screen, and still opens when the server cannot be
// reached, to say so. It never keeps an answer of the API: every battle is the server's.
// The server writes the version and its files into the next two lines as it starts (assets.py).
const VERSION = "unversioned";
const FILES = [];
const CACHE = `cardwar-${VERSION}`;

self.addEventListener("install", (event) => {
  // The page and its files of this version. A versioned file already in the browser's own
  // cache is this very file, so a first visit downloads each of them once, not twice.
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  // A new version replaces the old one's files, and looks after the open pages at once.
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(
        names.filter((name) => name.startsWith("cardwar-") && name !== CACHE)
          .map((name) => caches.delete(name)),
      ))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && url.pathname === "/") {
    // The page from the server while it answers (a new version shows at once), else the one
    // kept here, shared links included (`/?deal=…` is the same page).
    event.respondWith(
      fetch(request).catch(() => caches.match("/", { cacheName: CACHE, ignoreVary: true })
        .then((kept) => kept ?? Response.error())),
    );
  } else if (url.pathname.startsWith("/static/v/")) {
    // A versioned file never changes: the copy kept here, or the server's if it is not kept.
    event.respondWith(
      caches.match(request, { ignoreVary: true }).then((kept) => kept ?? fetch(request)),
    );
  }
  // Anything else, the API above all, goes to the server as if there were no worker.
});
