// @ts-check
// The results table of a finished race, shared by the race view (a racer's) and the watch view (a
// spectator's): rank, name, status, score, time, moves and undos, with par for the deal.
import { t } from "../ui/i18n.js";
import { botBadge, racerName } from "../ui/names.js";
import { el, isolated, translate } from "../ui/ui.js";
import { clock, statusText } from "../ui/format.js";

/** The columns from this one on (moves, undos) are the first to go on a narrow screen. */
const MORE = 5;
/** The words a row may carry beyond its status, in the order their notes are listed under the table. */
const NOTES = ["stuck", "review", "knowledge", "pending", "late"];
/** The review verdicts with words of their own (any other, such as "too_fast", reads "held for review"). */
const REVIEWS = ["pending", "knowledge"];

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
 * @param {(((seat: number, button: HTMLButtonElement) => void) & {followed?: Set<number>}) | null} [follow]  a
 * signed-in page: a "Follow" button beside each other racer's name (friends: ``followseat.js``), "Followed"
 * once its seat is in `follow.followed`
 */
export function paintResults(panel, race, mySeat = null, marks = {}, follow = null) {
  const done = race?.phase === "finished";
  panel.hidden = !done;
  if (!done) return;
  const list = race.results ?? [];
  const notes = new Set();
  const rows = list.map((/** @type {import("../net/messages.js").WireResult} */ r) => {
    const tr = document.createElement("tr");
    if (mySeat != null && r.seat === mySeat) tr.className = "me";
    const status = [statusText(r.status)];
    const mark = marks[r.seat] ?? {};
    // a stuck game says so already; a game stopped early (resigned, out of time, taken out) is scored as one
    if (r.scored_as_stuck && r.status !== "stuck") status.push(word(tr, notes, "stuck", "scoredAsStuck"));
    // pending: the knowledge review of a result near the top of a board has not ended; knowledge: it held it
    if (mark.review) status.push(word(tr, notes, REVIEWS.includes(mark.review) ? mark.review : "review", "review", mark.review));
    if (mark.late) status.push(word(tr, notes, "late", "late"));
    const values = [r.rank, racerName(r), status.join(" · "), r.score, clock(r.elapsed, { final: true }), r.moves, r.undos];
    values.forEach((value, i) => {
      const td = document.createElement("td");
      if (i === 1) {
        td.append(isolated(String(value))); // the name: its own direction, in the column's
        if (r.bot != null) td.append(" ", botBadge());
        if (follow && r.seat !== mySeat) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "btn follow-racer";
          button.dataset.seat = String(r.seat);
          if (race.race) button.dataset.race = String(race.race); // its answer finds a repainted button
          const already = follow.followed?.has(r.seat) ?? false;
          button.textContent = t(already ? "ui.friends.followed" : "ui.friends.follow_racer");
          button.setAttribute("aria-label", `${t("ui.friends.follow_racer")}: ${value}`);
          button.disabled = already;
          button.addEventListener("click", () => follow(r.seat, button));
          td.append(" ", button);
        }
      } else if (i === 3 && race.code != null && r.game) td.append(analyseLink(r, String(value)));
      else td.textContent = String(value);
      if (i >= MORE) td.className = "col-more"; // moves and undos: left out on a phone
      tr.append(td);
    });
    return tr;
  });
  /** @type {HTMLTableSectionElement} */ (panel.querySelector("tbody")).replaceChildren(...rows);
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
  /** @type {HTMLElement} */ (panel.querySelector(".par")).textContent = race.par == null ? "" : t("ui.par", { n: race.par });
  // a finish that reaches no leaderboard says so, and why
  const why = /** @type {HTMLElement} */ (panel.querySelector(".unranked-why"));
  why.hidden = Boolean(race.ranked);
  why.textContent = race.ranked ? "" : `${t("ui.unranked")}: ${t(unrankedReason(race))}`;
}

/** A score that opens its game's analysis (views/analysis.js), once the code is public: the server gives
 * it to anyone then, and refuses it (code_hidden) before. Its name starts with the score it shows.
 * @param {{game: string, name?: string | null, seat?: number | null}} r
 * @param {string} score
 */
function analyseLink(r, score) {
  const a = document.createElement("a");
  a.className = "analyse-score";
  a.href = `#/analysis/${encodeURIComponent(r.game)}`;
  a.textContent = score;
  a.setAttribute("aria-label", `${score}, ${t("ui.analysis.open")}: ${racerName(r)}`);
  return a;
}

/** Whether a race would rank an account: ranked, or a random deal that is casual only because a guest made it
 * (fair play 19.2) — where a guest is told that signing up ranks.
 * @param {{ranked?: boolean, typed?: boolean, daily?: string | null}} race
 * @returns {boolean}
 */
export function rankable(race) {
  return Boolean(race.ranked) || (race.typed === false && !race.daily);
}

/** Why a race ranks nobody: a typed code (a known deal), a daily attempt after the day's first, a guest's
 * daily attempt (the guests' deal), or a casual random race (guests race there; fair play 19.1, 19.2).
 * @param {{typed?: boolean, daily?: string | null, guest_deal?: boolean}} race
 * @returns {string} a catalog path
 */
export function unrankedReason(race) {
  if (race.daily) return race.guest_deal ? "ui.unranked_guest_daily" : "ui.unranked_practice";
  return race.typed === false ? "ui.unranked_guest_race" : "ui.unranked_typed";
}
