// @ts-check
// The player's choices kept in this browser.
import { safeStorage as storage } from "../net/storage.js";
import { RULE } from "../net/messages.js";

/** @typedef {{score: number, ms: number | null}} Best a solo win kept in this browser */

const KEYS = {
  interactive: "golfrace.interactive",
  rules: "golfrace.rules",
  game: "golfrace.game",
  sound: "golfrace.sound",
  best: "golfrace.best.", // + canonical code: this browser's best solo win of that deal
  started: "golfrace.started", // {game, at}: when the Play game's first move was shown (its time)
};

export const settings = {
  /** Interactive rules: explain refused moves (on unless the player turned it off). */
  get interactive() {
    return storage()?.getItem(KEYS.interactive) !== "off";
  },
  /** @param {boolean} on */
  set interactive(on) {
    storage()?.setItem(KEYS.interactive, on ? "on" : "off");
  },
  /** @returns {import("../net/messages.js").WireRules} */
  get rules() {
    return storage()?.getItem(KEYS.rules) === RULE.CLASSIC ? RULE.CLASSIC : RULE.EASY;
  },
  /** @param {import("../net/messages.js").WireRules} value */
  set rules(value) {
    storage()?.setItem(KEYS.rules, value);
  },
  /** The game the Play view last showed, reopened on the next visit. */
  /** @returns {string | null} */
  get game() {
    return storage()?.getItem(KEYS.game) ?? null;
  },
  /** @param {string | null} id */
  set game(id) {
    if (id) storage()?.setItem(KEYS.game, id);
    else storage()?.removeItem(KEYS.game);
  },
  /** A chime on a win (off unless the player turns it on). */
  get sound() {
    return storage()?.getItem(KEYS.sound) === "on";
  },
  /** @param {boolean} on */
  set sound(on) {
    storage()?.setItem(KEYS.sound, on ? "on" : "off");
  },
  /**
   * This browser's best solo win of `code`: {score, ms} or null.
   * @param {string} code
   * @returns {Best | null}
   */
  best(code) {
    try {
      const raw = storage()?.getItem(KEYS.best + code);
      return raw ? JSON.parse(raw) : null;
    } catch {
      return null;
    }
  },
  /**
   * @param {string} code
   * @param {Best} result
   */
  setBest(code, result) {
    storage()?.setItem(KEYS.best + code, JSON.stringify(result));
  },
  /**
   * When game `id`'s first move was shown (ms since the epoch), kept across a reload.
   * @param {string} id
   * @returns {number | null}
   */
  started(id) {
    try {
      const kept = JSON.parse(storage()?.getItem(KEYS.started) ?? "null");
      return kept?.game === id && Number.isFinite(kept.at) ? kept.at : null;
    } catch {
      return null;
    }
  },
  /**
   * @param {string} id
   * @param {number} at
   */
  setStarted(id, at) {
    storage()?.setItem(KEYS.started, JSON.stringify({ game: id, at }));
  },
};
