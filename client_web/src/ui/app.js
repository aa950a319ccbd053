// @ts-check
// The page object that main.js hands to every view, and what a view gives back (types only: nothing runs
// here). Shared by every view module: `@param {import("./app.js").App} app`.

/**
 * @typedef {Object} App
 * @property {import("../net/net.js").Connection} conn  the one websocket connection of the page
 * @property {() => string | null} player  this browser's player id once welcomed
 * @property {(hash: string) => void} navigate  go to a route (a new history entry)
 * @property {(hash: string) => void} redirect  go to a route in place of this one
 * @property {(name: string) => void} [highlight]  mark a navigation entry as the current page
 * @property {(key: string) => void} [retitle]  the tab's title from a catalog path
 * (the last two are set on the object once main.js has built its navigation, before any view is mounted)
 * @property {{boardShownMs: number | null, diffs: {apply: number, frame: number}[], cascade?: object,
 *   chimes?: number}} metrics  timings for the tests and the speed report
 * @property {() => void} reconnect  open the websocket again (after signing in or out)
 * @property {() => void} forgetPlayer  drop this browser's player token (after deleting the account)
 * @property {() => void} boardShown  the first board is on screen (the speed report)
 * @property {(code: string) => void} [playDeal]  deal `code` in the Play view (set once the views exist)
 */

/**
 * @typedef {Object} View
 * @property {HTMLElement} root
 * @property {string} title  the catalog path of the tab's title
 * @property {(params?: Record<string, string>) => void} mount
 * @property {() => void} unmount
 * @property {() => void} relabel  paint again in the page's new language
 */

export {};
