// @ts-check
// The results table of a finished race, shared by the race view (a racer's) and the watch view (a
// spectator's): rank, name, status, score, time, moves and undos, with par for the deal.
import { t } from "./i18n.js";
import { racerName } from "./names.js";
import { el, isolated, translate } from "./ui.js";
import { clock, statusText } from "./format.js";

/** The columns from this one on (moves, undos) are the first to go on a narrow screen. */
const MORE = 5;
/** The words a row may carry beyond its status, in the order their notes are listed under the table. */
const NOTES = ["stuck", "review", "late"];

/**
 * A row's extra word (`ui.results_marks.<name>`): the row carries it as `data-<attr>`, its note is listed.
 * @param {HTMLElement} tr
 * @param {Set<string>} notes
 * @param {string} name
 * @param {string} attr
 */
function word(tr, notes, name, attr, value = "1") {
  tr.dataset[attr] = value;
  notes.add(name);
  return t(`ui.results_marks.${name}`);
}

/** The panel: its heading, par, the table, and an empty `.dlg-actions` for the view's own buttons. */
export function createResults() {
  const panel = el(`
    <div class="panel results" hidden>
      <h2 data-t="ui.results"></h2>
      <p class="par"></p>
      <p class="unranked-why" hidden></p>
      <div class="table-wrap"><table class="results-table"><thead><tr>
        <th>#</th><th data-t="ui.name"></th><th data-t="ui.status_label"></th><th data-t="ui.score"></th><th data-t="ui.time"></th><th class="col-more" data-t="ui.moves"></th><th class="col-more" data-t="ui.undos"></th>
      </tr></thead><tbody></tbody></table></div>
      <ul class="results-notes" hidden></ul>
      <div class="dlg-actions"></div>
    </div>`);
  translate(panel);
  return panel;
}

/**
 * Show `race`'s results in `panel` (hidden until the race is finished); the row of `mySeat` is marked. A row
 * also says when its score counts as a stuck game's (the server's `scored_as_stuck`), and what `marks` (by
 * seat) know of it: held for review, or a daily attempt that ended after its day; each such word is explained
 * once under the table.
 * @param {HTMLElement} panel
 * @param {any} race
 * @param {number | null} [mySeat]
 * @param {Record<number, {review?: string | null, late?: boolean}>} [marks]
 */
export function paintResults(panel, race, mySeat = null, marks = {}) {
  const done = race?.phase === "finished";
  panel.hidden = !done;
  if (!done) return;
  const list = race.results ?? [];
  const notes = new Set();
  const rows = list.map((r) => {
    const tr = document.createElement("tr");
    if (mySeat != null && r.seat === mySeat) tr.className = "me";
    const status = [statusText(r.status)];
    const mark = marks[r.seat] ?? {};
    // a stuck game says so already; a game stopped early (resigned, out of time, taken out) is scored as one
    if (r.scored_as_stuck && r.status !== "stuck") status.push(word(tr, notes, "stuck", "scoredAsStuck"));
    if (mark.review) status.push(word(tr, notes, "review", "review", mark.review));
    if (mark.late) status.push(word(tr, notes, "late", "late"));
    const values = [r.rank, racerName(r), status.join(" · "), r.score, clock(r.elapsed, { final: true }), r.moves, r.undos];
    values.forEach((value, i) => {
      const td = document.createElement("td");
      if (i === 1) td.append(isolated(String(value))); // the name: its own direction, in the column's
      else td.textContent = String(value);
      if (i >= MORE) td.className = "col-more"; // moves and undos: left out on a phone
      tr.append(td);
    });
    return tr;
  });
  panel.querySelector("tbody").replaceChildren(...rows);
  const noteList = /** @type {HTMLElement} */ (panel.querySelector(".results-notes"));
  noteList.replaceChildren(
    ...NOTES.filter((n) => notes.has(n)).map((n) => {
      const li = document.createElement("li");
      li.dataset.note = n;
      li.textContent = t(`ui.results_notes.${n}`);
      return li;
    }),
  );
  noteList.hidden = notes.size === 0;
  panel.querySelector(".par").textContent = race.par == null ? "" : t("ui.par", { n: race.par });
  // a finish that reaches no leaderboard says so, and why
  const why = /** @type {HTMLElement} */ (panel.querySelector(".unranked-why"));
  why.hidden = Boolean(race.ranked);
  why.textContent = race.ranked ? "" : `${t("ui.unranked")}: ${t(unrankedReason(race))}`;
}

/** Why a race ranks nobody: a typed code (a known deal), or a daily attempt after the day's first. */
export function unrankedReason(race) {
  return race.daily ? "ui.unranked_practice" : "ui.unranked_typed";
}
