// @ts-check
// A yes/no question in the page's own dialog style: Enter (the focused confirm button) says yes, Escape or
// Cancel says no.
import { t } from "./i18n.js";
import { el } from "./ui.js";

const YES = "yes";

/** Close an open question as "no" (its view is going away: the answer would act on a page no longer shown). */
export function dismissConfirm() {
  const open = /** @type {NodeListOf<HTMLDialogElement>} */ (document.querySelectorAll("dialog.confirm[open]"));
  for (const d of open) d.close("");
}

/** Ask `question` (a catalog path); resolves true when the player confirms with `confirmKey`'s button.
 * @param {string} question
 * @param {string} confirmKey
 * @returns {Promise<boolean>}
 */
export function confirmDialog(question, confirmKey) {
  return new Promise((/** @type {(yes: boolean) => void} */ resolve) => {
    const d = /** @type {HTMLDialogElement} */ (
      el(`
      <dialog class="dlg confirm" aria-labelledby="confirm-title">
        <form method="dialog">
          <h2 id="confirm-title"></h2>
          <div class="dlg-actions">
            <button type="submit" class="btn cancel" value=""></button>
            <button type="submit" class="btn primary ok" value="${YES}"></button>
          </div>
        </form>
      </dialog>`)
    );
    /** @type {HTMLElement} */ (d.querySelector("h2")).textContent = t(question);
    /** @type {HTMLElement} */ (d.querySelector(".cancel")).textContent = t("ui.cancel");
    /** @type {HTMLElement} */ (d.querySelector(".ok")).textContent = t(confirmKey);
    d.addEventListener("close", () => {
      d.remove();
      resolve(d.returnValue === YES);
    });
    document.body.append(d);
    d.showModal();
    /** @type {HTMLButtonElement} */ (d.querySelector(".ok")).focus();
  });
}
