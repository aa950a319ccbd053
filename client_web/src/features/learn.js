// @ts-check
// Learning to play: the first-visit walkthrough, its "seen" mark, and the
// "show playable cards" aid on the Play board.
import { safeStorage } from "../net/storage.js";
import { followPlayable } from "../ui/playable.js";
import { runWalkthrough, walkthroughSeen } from "./walkthrough.js";

/** Open the walkthrough (a dialog over the page); resolves when it closes. It is a few KB: in the one bundle,
 * a chunk of its own cost the first visit a request more than it saved.
 * @param {import("../ui/app.js").App} app
 * @returns {Promise<void>}
 */
export async function openWalkthrough(app) {
  return runWalkthrough(app);
}

/**
 * Once the page is up: the walkthrough opens by itself on a first visit to Play, over its first board (not on
 * a race or watch link, and not where the browser keeps no storage: it would open on every visit), and the
 * Play board follows the playable-cards aid.
 * @param {import("../ui/app.js").App} app
 * @param {{playState: () => import("../ui/playable.js").AidState, route: () => string}} hooks
 */
export function initLearning(app, { playState, route }) {
  const play = () => /** @type {HTMLElement | null} */ (document.querySelector(".view.play .board"));
  let followed = false;
  const check = () => {
    const board = play();
    if (board && !followed) {
      followed = true;
      followPlayable(board, playState);
    }
  };
  window.addEventListener("hashchange", check);
  check();
  if (route() === "/" && safeStorage() && !walkthroughSeen()) {
    // after the first board: it is what the page is measured by, and the walkthrough opens over it
    boardShown().then(() => {
      if (route() === "/" && !walkthroughSeen()) openWalkthrough(app).catch(() => {});
    });
  }
}

/**
 * Resolves once the Play view has shown its first board (`data-board-shown` on the root element).
 * @returns {Promise<void>}
 */
function boardShown() {
  const root = document.documentElement;
  return new Promise((/** @type {() => void} */ resolve) => {
    if (root.dataset.boardShown) return resolve();
    const watch = new MutationObserver(() => {
      if (!root.dataset.boardShown) return;
      watch.disconnect();
      resolve();
    });
    watch.observe(root, { attributes: true, attributeFilter: ["data-board-shown"] });
  });
}
