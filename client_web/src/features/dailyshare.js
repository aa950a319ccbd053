// @ts-check
// The daily challenge's spoiler-free share text in the page's language (the numbers and one symbol per column
// for the cards it kept, never a card or the code), and the name asked once before the first ranked attempt.
import { num, t } from "../ui/i18n.js";
import { BOUNDS } from "../net/messages.js";
import { clock } from "../ui/format.js";
import { safeStorage as storage } from "../net/storage.js";
import { el, translate } from "../ui/ui.js";

/** The columns' symbols, as the server's share text (races/daily.py COLUMN_SYMBOLS): cleared, 1…5 kept. */
const COLUMN_SYMBOLS = ["🟩", "①", "②", "③", "④", "⑤"];
const NAME_KEY = "golfrace.name"; // the race view's name field keeps the same key
const ASKED_KEY = "golfrace.name_asked";
const NAME_MAX = BOUNDS.name_max;

/**
 * `result` is the daily's ranked entry ({score, elapsed, moves, left}); `date` its day.
 * @param {string} date
 * @param {{score: number, elapsed: number, moves: number, left?: number[]} | Record<string, any> | null | undefined} result
 * @param {string} [link]
 * @returns {string}
 */
export function dailyShareText(date, result, link = `${location.origin}/daily`) {
  if (!result) return "";
  const head = t("ui.daily_share", {
    date,
    score: num(result.score),
    time: clock(result.elapsed, { final: true }), // as the result dialog and the Daily tab show it
    moves: t("ui.daily_moves", { n: result.moves }),
  });
  const symbols = (result.left ?? []).map((/** @type {number} */ n) => COLUMN_SYMBOLS[Math.min(n, COLUMN_SYMBOLS.length - 1)]).join("");
  return [head, symbols, link].filter(Boolean).join("\n");
}

/** Show a share text in `box` as it will be copied, its date kept on one line (a line may otherwise break
 * at the date's hyphens, "2026-" / "12-01"); the box reads in the text's direction (dir=auto, styles.css).
 * @param {Element} box
 * @param {string} text
 */
export function showShareText(box, text) {
  const at = text.search(/\d{4}-\d\d-\d\d/);
  if (at < 0) {
    box.textContent = text;
    return;
  }
  const date = document.createElement("span");
  date.className = "nowrap";
  date.textContent = text.slice(at, at + 10);
  box.replaceChildren(text.slice(0, at), date, text.slice(at + 10));
}

/** The player's name: asked once (a dialog) before the first ranked attempt when none is kept; resolves
 * with the name ("" to stay "Player"), or null when the dialog was dismissed.
 * @returns {Promise<string | null>}
 */
export function askNameOnce() {
  const kept = storage()?.getItem(NAME_KEY) ?? "";
  if (kept || storage()?.getItem(ASKED_KEY)) return Promise.resolve(kept);
  return new Promise((/** @type {(name: string | null) => void} */ resolve) => {
    const d = /** @type {HTMLDialogElement} */ (
      el(`
      <dialog class="dlg name-ask" aria-labelledby="name-ask-title">
        <form method="dialog" novalidate>
          <h2 id="name-ask-title" data-t="ui.daily_name_title"></h2>
          <label class="field-label" for="name-ask-input" data-t="ui.your_name"></label>
          <input id="name-ask-input" name="name" data-bound="name_max" autocomplete="nickname" dir="auto" aria-describedby="name-ask-help">
          <p id="name-ask-help" class="help" data-t="ui.daily_name_help"></p>
          <div class="dlg-actions">
            <button type="button" class="btn cancel" data-t="ui.cancel"></button>
            <button type="submit" class="btn primary go" data-t="ui.daily_play"></button>
          </div>
        </form>
      </dialog>`)
    );
    translate(d);
    /** @type {string | null} */
    let answer = null;
    /** @type {HTMLElement} */ (d.querySelector(".cancel")).addEventListener("click", () => d.close());
    /** @type {HTMLFormElement} */ (d.querySelector("form")).addEventListener("submit", (e) => {
      e.preventDefault();
      answer = /** @type {HTMLInputElement} */ (d.querySelector("input")).value.trim().slice(0, NAME_MAX);
      storage()?.setItem(ASKED_KEY, "1");
      if (answer) storage()?.setItem(NAME_KEY, answer);
      d.close();
    });
    d.addEventListener("close", () => {
      d.remove();
      resolve(answer);
    });
    document.body.append(d);
    d.showModal();
    /** @type {HTMLInputElement} */ (d.querySelector("input")).focus();
  });
}
