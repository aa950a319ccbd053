// @ts-check
// The live list's state: the races running now as GET /api/races/live last answered, and which load is the
// latest (an answer to an older one, or to one made before the page was left, is dropped). Pure: the view
// fetches and keeps the timer.

/**
 * A race of the list (no code, no card: a ranked race's deal stays secret).
 * @typedef {Object} LiveRace
 * @property {string | null} race  null for a lobby about to start (its id would let strangers take its seats)
 * @property {string} phase
 * @property {string} [rules]
 * @property {boolean} [ranked]
 * @property {number} watchers
 * @property {{seat: number, name?: string | null, status: string, score: number, removed?: number}[]} racers
 */

/**
 * @typedef {Object} LiveState
 * @property {number} loads  loads started (the latest is the one whose answer counts)
 * @property {number} loaded  the load last shown (0: none yet)
 * @property {LiveRace[]} races  the races last listed (kept while the server is unreachable)
 * @property {boolean} failed  the last load got no answer
 */

/**
 * The view's own events (`live/<event>`, never a wire type): a load starts; load `n` answered with `data`
 * (null: no answer); the page was left.
 * @typedef {{t: "live/load"} | {t: "live/answer", n: number, data: {races?: LiveRace[]} | null} | {t: "live/stop"}} Msg
 */

/** @returns {LiveState} */
export function initial() {
  return { loads: 0, loaded: 0, races: [], failed: false };
}

/**
 * @param {LiveState} state
 * @param {Msg} msg
 * @returns {LiveState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "live/load":
    case "live/stop":
      return { ...state, loads: state.loads + 1 };
    case "live/answer":
      if (msg.n !== state.loads) return state;
      return { ...state, loaded: msg.n, failed: !msg.data, races: msg.data ? (msg.data.races ?? []) : state.races };
    default:
      return state;
  }
}
