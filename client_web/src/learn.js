// Learning to play: the first-visit walkthrough (loaded when first needed), its "seen" mark, and the
// "show playable cards" aid on the Play board.
import { safeStorage } from "./storage.js";
import { followPlayable } from "./playable.js";

const SEEN = "golfrace.learned";

export function walkthroughSeen() {
  return safeStorage()?.getItem(SEEN) === "1";
}

export function markWalkthroughSeen() {
  safeStorage()?.setItem(SEEN, "1");
}

/** Open the walkthrough (a dialog over the page); resolves when it closes. */
export async function openWalkthrough(app) {
  const { runWalkthrough } = await import("./walkthrough.js");
  return runWalkthrough(app);
}

/**
 * Once the page is up: the walkthrough opens by itself on a first visit to Play (not on a race or watch link,
 * and not where the browser keeps no storage: it would open on every visit), and the Play board follows the
 * playable-cards aid.
 */
export function initLearning(app, { playState, route }) {
  const play = () => document.querySelector(".view.play .board");
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
    openWalkthrough(app).catch(() => {});
  }
}
