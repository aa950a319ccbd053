// @ts-check
// The results table of a finished race, shared by the race view (a racer's) and the watch view (a
// spectator's): rank, name, status, score, time, moves and undos, with par for the deal.
import { t } from "./i18n.js";
import { racerName } from "./names.js";
import { el, translate } from "./ui.js";
import { clocks, statusText } from "./format.js";

/** The columns from this one on (moves, undos) are the first to go on a narrow screen. */
const MORE = 5;

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
      <div class="dlg-actions"></div>
    </div>`);
  translate(panel);
  return panel;
}

/** Show `race`'s results in `panel` (hidden until the race is finished); the row of `mySeat` is marked. */
export function paintResults(panel, race, mySeat = null) {
  const done = race?.phase === "finished";
  panel.hidden = !done;
  if (!done) return;
  const list = race.results ?? [];
  const times = clocks(list);
  const rows = list.map((r, index) => {
    const tr = document.createElement("tr");
    if (mySeat != null && r.seat === mySeat) tr.className = "me";
    const values = [r.rank, racerName(r), statusText(r.status), r.score, times[index], r.moves, r.undos];
    values.forEach((value, i) => {
      const td = document.createElement("td");
      td.textContent = String(value);
      if (i >= MORE) td.className = "col-more"; // moves and undos: left out on a phone
      tr.append(td);
    });
    return tr;
  });
  panel.querySelector("tbody").replaceChildren(...rows);
  panel.querySelector(".par").textContent = race.par == null ? "" : t("ui.par", { n: race.par });
  // a finish that reaches no leaderboard says so, and why
  const why = panel.querySelector(".unranked-why");
  why.hidden = Boolean(race.ranked);
  why.textContent = race.ranked ? "" : `${t("ui.unranked")}: ${t(unrankedReason(race))}`;
}

/** Why a race ranks nobody: a typed code (a known deal), or a daily attempt after the day's first. */
export function unrankedReason(race) {
  return race.daily ? "ui.unranked_practice" : "ui.unranked_typed";
}
