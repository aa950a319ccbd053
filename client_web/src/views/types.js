// @ts-check
// What a view gets from the page (the App, built in main.js) and what it gives back (a View): types only,
// for `@param {import("./types.js").App} app` in each view module.

/**
 * @typedef {object} App
 * @property {import("../net.js").Connection} conn the one websocket
 * @property {{boardShownMs: number | null, diffs: {apply: number, frame: number}[], cascade?: object,
 *   chimes?: number}} metrics timings for the tests and the speed report
 * @property {() => string | null} player this page's player id (from the welcome)
 * @property {(hash: string) => void} navigate go to a route (`#/race/<id>`)
 * @property {(hash: string) => void} redirect go to a route in place of this one
 * @property {() => void} reconnect open the websocket again (after signing in or out)
 * @property {() => void} forgetPlayer drop this browser's player token
 * @property {() => void} boardShown the first board is on screen (the speed report)
 * @property {(name: string) => void} [highlight] mark a navigation entry as the current page
 * @property {(key: string) => void} [retitle] the tab's title
 * @property {(code: string) => void} [playDeal] deal `code` in the Play view
 */

/**
 * @typedef {object} View
 * @property {HTMLElement} root
 * @property {string} title the catalog key of the tab's title
 * @property {(params?: Record<string, string>) => void} mount
 * @property {() => void} unmount
 * @property {() => void} relabel paint again in the page's new language
 */

export {};
