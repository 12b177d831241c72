// A finished round's story (docs/api.md#the-story-of-a-round), asked once and kept: the chart at
// the round's end and the words that console a lost round both read it.
import { ApiError, api } from "./api.js";

const kept = new Map(); // round id -> the story's promise (null when it could not be had)

/** The story of `round`, which is over: asked of the server once; a failed ask is asked again. */
export function storyOf(round) {
  if (!kept.has(round.id)) {
    if (kept.size >= 8) kept.clear(); // only the latest rounds are looked at
    const asked = api("GET", `/api/rounds/${encodeURIComponent(round.id)}/story`, undefined, { background: true })
      .catch((error) => {
        if (!(error instanceof ApiError)) throw error;
        kept.delete(round.id);
        return null;
      });
    kept.set(round.id, asked);
  }
  return kept.get(round.id);
}
