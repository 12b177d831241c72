// The game's HTTP API, as the page calls it: one function, and errors worded for a player.

export class ApiError extends Error {
  constructor(message, { offline = false, status = 0 } = {}) {
    super(message);
    this.offline = offline;
    this.status = status;
  }
}

const GONE = {
  "/api/rounds/": "This round is no longer kept on the server. Press New round to deal again.",
  "/api/matches/": "This match is no longer kept on the server. Press New round to start again.",
};

/** `method` `path` with a JSON `body`; the answer's JSON, or an ApiError a player can read. */
export async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
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
  const data = await response.json().catch(() => ({}));
  const status = response.status;
  const gone = Object.entries(GONE).find(([prefix]) => path.startsWith(prefix));
  if (status === 404 && gone && !/\/battles\/\d+$/.test(path)) throw new ApiError(gone[1], { status });
  if (status === 429) {
    throw new ApiError(`That was a lot of presses at once: wait ${response.headers.get("Retry-After") ?? "a few"} seconds, then try again.`, { status });
  }
  if (status >= 500) {
    throw new ApiError(`Something went wrong on the game server (error ${status}).`, { offline: true, status });
  }
  if (!response.ok) {
    throw new ApiError(typeof data.detail === "string" ? `The server refused: ${data.detail}` : `The server refused that (error ${status}).`, { status });
  }
  return data;
}
