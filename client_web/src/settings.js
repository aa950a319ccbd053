// The player's choices kept in this browser.
import { safeStorage as storage } from "./storage.js";

const KEYS = { interactive: "golfrace.interactive", rules: "golfrace.rules", game: "golfrace.game" };

export const settings = {
  /** Interactive rules: explain refused moves (on unless the player turned it off). */
  get interactive() {
    return storage()?.getItem(KEYS.interactive) !== "off";
  },
  set interactive(on) {
    storage()?.setItem(KEYS.interactive, on ? "on" : "off");
  },
  get rules() {
    return storage()?.getItem(KEYS.rules) === "classic" ? "classic" : "easy";
  },
  set rules(value) {
    storage()?.setItem(KEYS.rules, value);
  },
  /** The game the Play view last showed, reopened on the next visit. */
  get game() {
    return storage()?.getItem(KEYS.game) ?? null;
  },
  set game(id) {
    if (id) storage()?.setItem(KEYS.game, id);
    else storage()?.removeItem(KEYS.game);
  },
};
