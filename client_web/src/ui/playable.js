// @ts-check
// The "show playable cards" aid: outline the free cards that fit on the discard. A mirror of engine/rules.py
// `fits`, for the eye only (the server still decides every move). Only the Play view and the walkthrough use
// it: never a race or the daily challenge, where the aid would be an edge over the others.
import { safeStorage } from "../net/storage.js";
import { RULE } from "../net/messages.js";

const RANKS = "A23456789TJQK";
const KEY = "golfrace.aid";

export const aid = {
  get on() {
    return safeStorage()?.getItem(KEY) === "on";
  },
  /** @param {boolean} value */
  set on(value) {
    safeStorage()?.setItem(KEY, value ? "on" : "off");
    for (const fn of listeners) fn(value);
  },
};
/** @type {Set<(on: boolean) => void>} */
const listeners = new Set();
/**
 * @param {(on: boolean) => void} fn
 * @returns {() => void} stops listening
 */
export function onAidChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** @typedef {{rules?: string, variants?: {strict?: boolean}} | null | undefined} AidState what the aid reads of a game */

/** Whether `card` may go onto `discard` (card codes such as "9C", "X1"; null: an empty discard).
 * @param {string} card
 * @param {string | null | undefined} discard
 * @param {string} [rules]
 * @param {{strict?: boolean}} [variants]
 * @returns {boolean}
 */
export function fits(card, discard, rules = RULE.EASY, variants = {}) {
  if (!discard) return true;
  if (variants.strict && discard[0] === "K") return false;
  if (card[0] === "X" || discard[0] === "X") return true;
  const gap = Math.abs(RANKS.indexOf(card[0]) - RANKS.indexOf(discard[0]));
  return gap === 1 || (rules === RULE.EASY && gap === RANKS.length - 1);
}

/** Mark (or unmark, `on` false) the free cards of `boardEl` that fit on its discard, for `state`'s rules.
 * @param {ParentNode} boardEl
 * @param {AidState} state
 * @param {boolean} on
 */
export function markPlayable(boardEl, state, on) {
  const discard = /** @type {HTMLElement | null} */ (boardEl.querySelector(".discard > .card:last-child"))?.dataset.card ?? null; // over an old one in flight
  for (const card of /** @type {NodeListOf<HTMLElement>} */ (boardEl.querySelectorAll(".tableau .card"))) {
    const yes = Boolean(on && state && card.classList.contains("free") && fits(/** @type {string} */ (card.dataset.card), discard, state.rules, state.variants));
    if (card.classList.contains("playable") !== yes) card.classList.toggle("playable", yes);
  }
}

/** Keep `boardEl` marked while the aid is on: after every repaint (a card removed or put back, a new discard).
 * @param {HTMLElement} boardEl
 * @param {() => AidState} getState
 */
export function followPlayable(boardEl, getState) {
  const paint = () => markPlayable(boardEl, getState(), aid.on);
  new MutationObserver(paint).observe(boardEl, { childList: true, subtree: true });
  onAidChange(paint);
  paint();
}
