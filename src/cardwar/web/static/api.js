// The game's HTTP API, as the page calls it: one function, and errors worded for a player.

export class ApiError extends Error {
  constructor(message, { offline = false, status = 0 } = {}) {
    super(message);
    this.offline = offline;
    this.status = status;
  }

  /** The server was not reached at all (no answer, not even an error of its own). */
  get unreachable() {
    return this.offline && this.status === 0;
  }
}

const GONE = {
  "/api/rounds/": "This round is no longer kept on the server. Press New round to deal again.",
  "/api/matches/": "This match is no longer kept on the server. Press New round to start again.",
};

// The longest a request the player made waits for the server's Retry-After before its one retry.
const MOST_RETRY_WAIT_S = 10;

/** The seconds a 429 or a 503 asks to wait (its Retry-After), at least one. */
function retryAfter(response) {
  const seconds = Number(response.headers.get("Retry-After"));
  return Number.isFinite(seconds) && seconds >= 1 ? seconds : 1;
}

async function send(method, path, body) {
  try {
    return await fetch(path, {
      method,
      headers: method === "GET" ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(
      "The game server is not answering. Check that cardwar is still running on the computer " +
      "that serves this page.",
      { offline: true },
    );
  }
}

/** Whether `response` turns the request away for now, having changed nothing: too many at
 * once (429), or a server that cannot serve this moment and says when to come back (503 with
 * Retry-After: a process stopping for an upgrade, whose neighbour takes the request, or its
 * database a moment away). */
function turnedAway(response) {
  return response.status === 429 || (response.status === 503 && response.headers.has("Retry-After"));
}

/** `method` `path` with a JSON `body`; the answer's JSON, or an ApiError a player can read.
 * A request the player made (not `background`, which the page makes by itself) that the server
 * turns away for now (`turnedAway`) is sent once more after its Retry-After. */
export async function api(method, path, body, { background = false } = {}) {
  let response = await send(method, path, body);
  if (turnedAway(response) && !background && retryAfter(response) <= MOST_RETRY_WAIT_S) {
    await new Promise((resolve) => setTimeout(resolve, retryAfter(response) * 1000));
    response = await send(method, path, body);
  }
  const data = await response.json().catch(() => ({}));
  const status = response.status;
  const gone = Object.entries(GONE).find(([prefix]) => path.startsWith(prefix));
  if (status === 404 && gone && !/\/battles\/\d+$/.test(path)) throw new ApiError(gone[1], { status });
  if (status === 429) {
    // What the server was too busy for, in its words ("battles: ..."), never a blame of presses.
    const what = typeof data.detail === "string" ? data.detail.split(":")[0] : "that";
    throw new ApiError(`The game server has too much to do right now (${what}): wait ${retryAfter(response)} seconds, then try again.`, { status });
  }
  if (status >= 500) {
    throw new ApiError(`Something went wrong on the game server (error ${status}).`, { offline: true, status });
  }
  if (!response.ok) {
    throw new ApiError(typeof data.detail === "string" ? `The server refused: ${data.detail}` : `The server refused that (error ${status}).`, { status });
  }
  return data;
}
