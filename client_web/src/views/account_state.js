// @ts-check
// The Account view's state and how each message changes it: pure (no DOM, no fetch). The view feeds it the
// signed-in account as it changes (`show`), the profile and devices fetched for it (`loaded`, `failed`,
// `sessions`) and what went wrong in a form (`error`); it paints the state and derives the loads from
// before and after.

/** @typedef {Record<string, any>} Message */
/**
 * `show`: build the page for `account` (signed in, out, or saved: the profile is loaded again); `loaded` /
 * `failed`: load `n` answered; `sessions`: the devices changed; `error`: what a form got (null: clear it);
 * `leave`: the view is left (a profile still on its way is dropped).
 * @typedef {{t: "show", account: Message | null} | {t: "loaded", n: number, profile: Message, sessions: Message[]}
 *   | {t: "failed", n: number, error: Message} | {t: "sessions", sessions: Message[]}
 *   | {t: "error", error: Message | null} | {t: "leave"}} Msg
 */
/**
 * @typedef {object} AccountState
 * @property {string | null | undefined} player the account shown (null: signed out; undefined: none yet)
 * @property {number} shows counts the times the page was built for the account (signed in, out, saved)
 * @property {number} loads counts the profiles asked for: the answer of an older one is dropped
 * @property {Message | null} profile the signed-in account's profile (GET .../profile), null while loading
 * @property {Message[] | null} sessions its devices (GET .../sessions)
 * @property {Message | null} error what went wrong ({code}), shown above the forms
 * @property {boolean} expired the server says this page is not signed in any more (the view signs out)
 */

/** @returns {AccountState} */
export function initial() {
  return { player: undefined, shows: 0, loads: 0, profile: null, sessions: null, error: null, expired: false };
}

/**
 * @param {AccountState} state
 * @param {Msg} msg
 * @returns {AccountState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "show":
      return {
        ...state,
        player: msg.account?.player ?? null,
        shows: state.shows + 1,
        loads: state.loads + 1,
        profile: null,
        sessions: null,
        expired: false,
      };
    case "loaded":
      if (msg.n !== state.loads) return state;
      return { ...state, profile: msg.profile, sessions: msg.sessions };
    case "failed":
      if (msg.n !== state.loads) return state;
      if (msg.error?.code === "not_signed_in") return { ...state, expired: true };
      return { ...state, error: msg.error };
    case "sessions":
      return { ...state, sessions: msg.sessions };
    case "error":
      return { ...state, error: msg.error ?? null };
    case "leave":
      return { ...state, loads: state.loads + 1 };
    default:
      return state;
  }
}
