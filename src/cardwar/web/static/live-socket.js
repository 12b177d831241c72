// A live table's socket, as transport only: opened, kept open (a ping now and then, and a socket
// gone silent given up on), tried again after a loss, and sent to. What it hears, and that it
// lost touch, go to the listener live.js sets (`listen`); it knows nothing of what they mean.

// Tries again after 1 s, then 2, 4 and 8, then every 15 s (a test may shorten them).
export const retry = { firstMs: 1000, mostMs: 15000 };
// A ping once the socket has been quiet for `everyMs`, so that nothing between closes a quiet
// socket; a socket that has said nothing for `answerMs` after it is given up on (a new one, for
// `welcomeMs` after it opens): a phone that lost its network, or a host of a site taken away
// behind its proxy, may leave a socket open but silent for minutes, its flips going nowhere.
// So a page notices within 7 s, and is back at its seat within 10 (docs/deploy.md); a table
// that talks is never pinged (a test may shorten them).
export const ping = { everyMs: 4000, answerMs: 3000, welcomeMs: 15000 };

const listener = { hear: null, lost: null };
let address = null; // the table's socket address while this device is at it, else null
let socket = null; // the socket open (or opening) to it, or null while out of touch
let tries = 0; // tries since the table last answered
let retryTimer = 0;
let pingTimer = 0;
let answerTimer = 0; // running from a ping (or the socket's opening) until it next says anything

/** Have `hear(message)` called with each message the table sends (parsed), and `lost(code)` when
 * the socket closes or is given up on (1006 then). */
export function listen(hear, lost) {
  Object.assign(listener, { hear, lost });
}

/** Open a socket to `url` (a live table's), closing any other first. */
export function openSocket(url) {
  closeSocket();
  address = url;
  connect();
}

/** Close the socket for good: this device has left the table, or the table is gone. */
export function closeSocket() {
  address = null;
  const closing = socket;
  socket = null;
  closing?.close(1000);
  stopTimers();
  tries = 0;
}

/** Send `message` to the table; false when this device is not in touch with it. */
export function send(message) {
  if (socket?.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(message));
  return true;
}

/** Try again later, after 1, 2, 4, 8 s, then every 15 s (live.js, once a loss is only a loss). */
export function tryAgainLater() {
  if (address === null || socket !== null || retryTimer) return;
  retryTimer = setTimeout(connect, Math.min(retry.firstMs * 2 ** tries, retry.mostMs));
  tries += 1;
}

/** Try again at once while out of touch (the browser back online, the page shown again). */
export function reconnectNow() {
  if (address !== null && socket === null) connect();
}

/** The browser says it is offline: the socket is given up on now, not after its silence. */
export function offlineNow() {
  if (socket?.readyState === WebSocket.OPEN) dropSocket();
}

/** True when this device is the first try since the table last answered: a loss is told once. */
export const firstTry = () => tries === 0;

function connect() {
  clearTimeout(retryTimer);
  retryTimer = 0;
  if (address === null) return;
  const ws = new WebSocket(address);
  socket = ws;
  // Not a word from it within `ping.welcomeMs` (not even its welcome): given up on, and tried again.
  waitForAnswer(ws, ping.welcomeMs);
  ws.addEventListener("message", (event) => {
    if (ws !== socket) return;
    clearTimeout(answerTimer);
    answerTimer = 0;
    clearTimeout(pingTimer);
    pingTimer = setTimeout(pingNow, ping.everyMs); // quiet from now: a ping then
    tries = 0;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return; // not the table's: nothing it says is anything but JSON
    }
    listener.hear(message);
  });
  ws.addEventListener("close", (event) => {
    if (ws === socket) dropSocket(event.code);
  });
}

function waitForAnswer(ws, ms) {
  clearTimeout(answerTimer);
  answerTimer = setTimeout(() => ws === socket && dropSocket(), ms);
}

/** This device is out of touch with the table (its socket closed, silent, or the browser
 * offline): the listener is told. */
function dropSocket(code = 1006) {
  const ws = socket;
  if (ws === null) return;
  socket = null;
  stopTimers();
  ws.close(); // a silent socket's own close may take minutes: it is not waited for
  listener.lost(code);
}

function pingNow() {
  pingTimer = 0;
  if (!send({ type: "ping" }) || answerTimer) return;
  waitForAnswer(socket, ping.answerMs);
}

function stopTimers() {
  clearTimeout(retryTimer);
  retryTimer = 0;
  clearTimeout(pingTimer);
  pingTimer = 0;
  clearTimeout(answerTimer);
  answerTimer = 0;
}
