// @ts-check
// The Stats view's state and how each message changes it: pure (no DOM, no fetch). The view asks for the
// player's stats over HTTP (`asked`), feeds the answer (`loaded`) and the connection's `ready`, and paints.

/** @typedef {Record<string, any>} Message */
/**
 * @typedef {object} StatsState
 * @property {Message | null} data the last stats the server gave (GET /api/players/me/stats)
 * @property {boolean} failed the last answer did not come (offline) or was refused: the error line shows
 * @property {number} loads counts the loads asked for: the answer of an older one is dropped
 * @property {number} loaded the load whose answer is shown (0: none yet)
 */

/** @returns {StatsState} */
export function initial() {
  return { data: null, failed: false, loads: 0, loaded: 0 };
}

/**
 * @param {StatsState} state
 * @param {Message} msg `asked` (a load starts), `loaded` {n, body | null}, `ready` (asked again: the token
 *   may be new), `leave` (the view is left: an answer still on its way is dropped)
 * @returns {StatsState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "asked":
    case "ready":
    case "leave":
      return { ...state, loads: state.loads + 1 };
    case "loaded":
      if (msg.n !== state.loads) return state;
      return { ...state, data: msg.body ?? state.data, failed: !msg.body, loaded: msg.n };
    default:
      return state;
  }
}
