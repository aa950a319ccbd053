// @ts-check
// The Stats view's state and how each message changes it: pure (no DOM, no fetch). The view asks for the
// player's stats over HTTP (`asked`), feeds the answer (`loaded`) and the connection's `ready`, and paints.

/** @typedef {Record<string, any>} Message */
/**
 * `asked`: a load starts; `ready`: a new connection (the token may be new: load again); `loaded`: load `n`
 * answered with `body` (null: no answer, or refused); `leave`: the view is left.
 * @typedef {{t: "asked"} | {t: "ready"} | {t: "loaded", n: number, body: Message | null} | {t: "leave"}} Msg
 */
/**
 * @typedef {object} StatsState
 * @property {Message | null} data the last stats the server gave (GET /api/players/me/stats)
 * @property {boolean} failed the last answer did not come (offline) or was refused: the error line shows
 * @property {number} loads counts the loads asked for (the view fetches on each): an older one's answer is
 *   dropped
 * @property {boolean} left the view is not on screen: an answer still on its way is dropped
 * @property {number} loaded the load whose answer is shown (0: none yet)
 */

/** @returns {StatsState} */
export function initial() {
  return { data: null, failed: false, loads: 0, left: false, loaded: 0 };
}

/**
 * @param {StatsState} state
 * @param {Msg} msg
 * @returns {StatsState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "asked":
    case "ready":
      return { ...state, loads: state.loads + 1, left: false };
    case "leave":
      return { ...state, left: true };
    case "loaded":
      if (msg.n !== state.loads || state.left) return state;
      return { ...state, data: msg.body ?? state.data, failed: !msg.body, loaded: msg.n };
    default:
      return state;
  }
}
