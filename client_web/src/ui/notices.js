// @ts-check
// Short race notices shared by the watch view and the race view: "Go!" when the countdown ends, and a line
// when a racer finishes (which racers finished is derived by each view from its state). Each is said in the
// polite live region too.
import { t } from "./i18n.js";
import { racerName } from "./names.js";
import { statusText } from "./format.js";
import { announce, isolatedText } from "./ui.js";

const GO_MS = 1200;

/** Show "Go!" over `container` for a moment (the element is made once per container and reused).
 * @param {Element} container
 * @returns {HTMLElement & {timer?: ReturnType<typeof setTimeout>}}
 */
export function showGo(container) {
  /** @type {(HTMLElement & {timer?: ReturnType<typeof setTimeout>}) | null} */
  let el = container.querySelector(":scope > .go-notice");
  if (!el) {
    el = document.createElement("div");
    el.className = "go-notice";
    el.setAttribute("aria-hidden", "true"); // said in the live region instead
    container.append(el);
  }
  el.dataset.t = "ui.live.go"; // a language chosen while it shows relabels it with the view (translate)
  el.textContent = t("ui.live.go");
  el.hidden = false;
  el.classList.remove("show");
  void el.offsetWidth; // restart the animation
  el.classList.add("show");
  clearTimeout(el.timer);
  const shown = el;
  el.timer = setTimeout(() => (shown.hidden = true), GO_MS);
  announce(t("ui.live.go"));
  return el;
}

/** Take "Go!" off `container` at once (a racer whose own game is over before it faded sees their result).
 * @param {Element} container
 */
export function hideGo(container) {
  /** @type {(HTMLElement & {timer?: ReturnType<typeof setTimeout>}) | null} */
  const el = container.querySelector(":scope > .go-notice");
  if (!el || el.hidden) return;
  clearTimeout(el.timer);
  el.classList.remove("show");
  el.hidden = true;
}

/** The line for a racer who has just finished ("Player 2 finished: Won, 350 points"), the name isolated
 * (a Latin name in a Hebrew sentence, or the other way round, keeps the sentence in order).
 * @param {{name?: string | null, seat?: number | null, status?: string, score?: number | null}} racer
 * @returns {string}
 */
export function finishedText(racer) {
  return t("ui.live.finished", { name: isolatedText(racerName(racer)), status: statusText(racer.status), score: racer.score ?? 0 });
}
