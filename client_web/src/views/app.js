// @ts-check
// The page object that main.js hands to every view (types only: nothing runs here).

/**
 * @typedef {Object} App
 * @property {import("../net.js").Connection} conn  the one websocket connection of the page
 * @property {() => string | null} player  this browser's player id once welcomed
 * @property {(hash: string) => void} navigate  go to a route (a new history entry)
 * @property {(hash: string) => void} redirect  go to a route in place of this one
 * @property {(name: string) => void} [highlight]  mark a navigation entry as the current page
 * @property {(key: string) => void} [retitle]  the tab's title from a catalog path
 * (the last two are set on the object once main.js has built its navigation, before any view is mounted)
 */

export {};
