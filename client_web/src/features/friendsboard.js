// @ts-check
// The friends' board of today's daily (Wordle's friends board): the public daily board cut down to the
// accounts one follows and oneself, with each one's public rank. Shown in the Friends view and, for a
// signed-in page, under the Daily view's card; the server sends `friends_daily` when asked.
import { t } from "../ui/i18n.js";
import { clock } from "../ui/format.js";
import { el, isolated, translate } from "../ui/ui.js";

/** @typedef {import("../net/messages.js").WireDailyRow} DailyRow */

/** The board's elements (a heading, the empty line, the table): `paint(entries)` fills them. */
export function createFriendsBoard(headingTag = "h2") {
  const root = el(`<div class="friends-board">
    <${headingTag} data-t="ui.friends.daily_title"></${headingTag}>
    <p class="empty friends-daily-empty" data-t="ui.friends.daily_empty" hidden></p>
    <div class="table-wrap"><table class="friends-daily" hidden><thead><tr>
      <th data-t="ui.friends.rank"></th><th data-t="ui.name"></th><th data-t="ui.score"></th><th data-t="ui.time"></th>
    </tr></thead><tbody></tbody></table></div>
  </div>`);
  translate(root);
  /** @type {DailyRow[] | null} */
  let shown = null;

  function row(/** @type {DailyRow} */ r) {
    const tr = document.createElement("tr");
    if (r.you) tr.className = "me";
    const cells = [String(r.rank), null, String(r.score), clock(r.elapsed, { final: true })];
    for (const text of cells) {
      const td = document.createElement("td");
      if (text === null) {
        td.append(isolated(r.name || r.username));
        if (r.you) td.append(` (${t("ui.friends.you")})`);
      } else td.append(isolated(text, "ltr"));
      tr.append(td);
    }
    return tr;
  }

  /** @param {DailyRow[] | null} entries  null: not known yet */
  function paint(entries = shown) {
    shown = entries;
    translate(root);
    const table = /** @type {HTMLElement} */ (root.querySelector(".friends-daily"));
    /** @type {HTMLTableSectionElement} */ (table.querySelector("tbody")).replaceChildren(...(entries ?? []).map(row));
    table.hidden = !entries?.length;
    /** @type {HTMLElement} */ (root.querySelector(".friends-daily-empty")).hidden = entries === null || entries.length > 0;
  }

  return { root, paint };
}
