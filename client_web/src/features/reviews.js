// @ts-check
// Whether a finished game's result is held for review (fair play: played faster than anyone can), read from
// its public record, `GET /api/games/<game>` (served only once its race is over). The race view asks for the
// racer's own row of its results table (a spectator's marks come from the records its replay loads).

/** The record is stored just after the race's end: the waits (ms) before asking again while it is not. */
const RETRY_MS = [300, 700, 1500, 3000];

/**
 * The record's `review` verdict ("too_fast", or null when it is not held), or undefined when it could not be
 * read (no record, the network, or still not stored after the last wait).
 * @param {string} game
 * @returns {Promise<string | null | undefined>}
 */
export async function fetchReview(game) {
  for (let attempt = 0; ; attempt++) {
    let res = null;
    try {
      res = await fetch(`/api/games/${encodeURIComponent(game)}`);
    } catch {
      return undefined;
    }
    if (res.ok) {
      const rec = await res.json().catch(() => null);
      return rec ? (rec.review ?? null) : undefined;
    }
    const wait = RETRY_MS[attempt];
    if (res.status !== 409 || wait == null) return undefined; // 409: its game or race is not over yet
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
