// @ts-check
// The in-page answer to a race that does not exist (never did, or expired): its message and the two ways
// on, "Create a race" and "Join another" (both lead to the Race tab). Shown by the race and watch views.
import { errorText } from "../ui/i18n.js";
import { el } from "../ui/ui.js";

export function createMissing() {
  return el(`
    <div class="panel race-missing" role="alert" hidden>
      <p class="race-missing-text"></p>
      <div class="dlg-actions">
        <a class="btn primary missing-create" href="#/race" data-t="ui.create_a_race"></a>
        <a class="btn missing-join" href="#/race" data-t="ui.join_another"></a>
      </div>
    </div>`);
}

/** Show `panel` with the text of the server's error `m` (hidden again by `panel.hidden = true`).
 * @param {HTMLElement} panel
 * @param {{code?: string, params?: object | null}} m
 */
export function showMissing(panel, m) {
  /** @type {HTMLElement} */ (panel.querySelector(".race-missing-text")).textContent = errorText(m.code, m.params);
  panel.hidden = false;
}
