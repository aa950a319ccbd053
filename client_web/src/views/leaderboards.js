// @ts-check
// Leaderboards: per day (the daily challenge), per game code and the nine-deal course's (per course code,
// and the weekend's daily course per day: strokes, fewer first), with your own rank highlighted.
// Its state and the changes per message are leaderboards_state.js; here: listeners feed it, the effects
// (fetch a page, follow a board) are read from the state before and after, and `render` paints it.
import { errorText, t } from "../ui/i18n.js";
import { entryName, usernameMark } from "../ui/names.js";
import { el, isolated, translate } from "../ui/ui.js";
import { clock } from "../ui/format.js";
import { initial, reduce, today } from "./leaderboards_state.js";
import { loop } from "../ui/loop.js";
import { createRatingBoards } from "../features/ratings.js";

const LIMIT = 20;
const CODE_EXAMPLE = "GO1-E-ABCDEFG";
const COURSE_EXAMPLE = "GC1-E-ABCDEFG";
const KINDS = ["daily", "code", "course", "course-day"];
/** @param {string} kind */
const byDay = (kind) => kind === "daily" || kind === "course-day";

/** @typedef {import("./leaderboards_state.js").BoardsState} BoardsState */
/** @typedef {Record<string, any>} Entry a row of a page (an HTTP answer) or of a live `board` update */

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createLeaderboardsView(app) {
  const root = el(`
    <section class="view boards-view">
      <div class="panel">
        <h1 data-t="ui.nav_leaderboards"></h1>
        <form class="board-form row" novalidate>
          <label class="select-field"><span data-t="ui.board_kind"></span>
            <select name="kind"><option value="daily" data-t="ui.by_day"></option><option value="code" data-t="ui.by_code"></option><option value="course" data-t="ui.course.by_course"></option><option value="course-day" data-t="ui.course.by_course_day"></option></select>
          </label>
          <input name="key" dir="ltr" autocomplete="off" spellcheck="false">
          <button type="submit" class="btn primary" data-t="ui.show"></button>
        </form>
        <p class="field-error board-error" role="alert" hidden></p>
        <div class="table-wrap" tabindex="0" role="region" data-t-aria="ui.nav_leaderboards"><table class="board-table"><thead><tr>
          <th>#</th><th data-t="ui.name"></th><th class="score-head" data-t="ui.score"></th><th data-t="ui.time"></th><th data-t="ui.moves"></th>
        </tr></thead><tbody></tbody></table></div>
        <p class="empty" data-t="ui.no_entries" hidden></p>
        <p class="board-pending" hidden></p>
        <div class="dlg-actions board-links">
          <a class="btn board-ghost" data-t="ui.ghost.open" hidden></a>
          <a class="btn board-analyse" data-testid="board-analyse" data-t="ui.board_analyse_best" hidden></a>
          <a class="btn board-analyse-mine" data-testid="board-analyse-mine" data-t="ui.board_analyse_mine" hidden></a>
        </div>
      </div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const ratingBoards = createRatingBoards();
  root.append(ratingBoards.panel);
  const form = /** @type {HTMLFormElement} */ (q(".board-form"));
  const kindField = /** @type {HTMLSelectElement} */ (form.elements.namedItem("kind"));
  const keyField = /** @type {HTMLInputElement} */ (form.elements.namedItem("key"));

  /** @param {Entry} entry @param {boolean} mine */
  function row(entry, mine) {
    const time = clock(entry.elapsed, { final: true }); // a result: with tenths, as the ranking compares them
    const tr = document.createElement("tr");
    if (mine) tr.className = "me";
    const name = [isolated(entryName(entry)), mine ? ` (${t("ui.you")})` : ""]; // the name in its own direction
    const handle = usernameMark(entry);
    if (handle) name.splice(1, 0, handle); // fair play 19.6: the account's username, apart from its name
    for (const value of [entry.rank, name, entry.score ?? entry.strokes, time, entry.moves]) {
      const td = document.createElement("td");
      if (Array.isArray(value)) td.append(...value);
      else td.textContent = String(value);
      tr.append(td);
    }
    return tr;
  }

  const v = loop({ initial: initial(), reduce, effects, render });

  /** What a change leads to: the board followed live, and the page fetched (again).
   * @param {BoardsState} before @param {BoardsState} after */
  function effects(before, after) {
    if (after.watched !== before.watched) {
      if (before.watched) app.conn.send({ t: "board_unwatch", board: before.watched });
      if (after.watched) app.conn.send({ t: "board_watch", board: after.watched }); // before the handshake: sent on "ready"
    } else if (after.connections !== before.connections && after.watched) {
      app.conn.send({ t: "board_watch", board: after.watched }); // a new connection follows nothing
    }
    if (after.path && after.loads !== before.loads) {
      const n = after.loads;
      fetchPage(after.path).then((answer) => v.update({ t: "page", n, ...answer }));
    }
    if (after.path && after.refreshes !== before.refreshes) {
      const [n, r] = [after.loads, after.refreshes];
      fetchPage(after.path).then((answer) => answer.data && v.update({ t: "refreshed", n, r, data: answer.data }));
    }
  }

  /** A page of the board at `at` under /api/leaderboards/: `{data}`, or `{error}` in words.
   * @param {string} at @returns {Promise<{data?: Record<string, any>, error?: string}>} */
  async function fetchPage(at) {
    const res = await fetch(`/api/leaderboards/${at}?limit=${LIMIT}`, {
      headers: await app.conn.authHeaders(),
    }).catch(() => null);
    const data = res ? await res.json().catch(() => null) : null;
    return res?.ok && data ? { data } : { error: data?.error ? errorText(data.error) : t("ui.offline") };
  }

  /** @type {BoardsState} */
  let painted = initial();
  /** @param {BoardsState} s */
  function render(s) {
    const was = painted;
    painted = s;
    const error = q(".board-error");
    error.hidden = !s.error;
    if (s.error && s.error !== was.error) {
      // only the error: no table, no "No entries yet."
      error.textContent = s.error.key ? t(s.error.key) : (s.error.text ?? "");
      q(".board-table tbody").replaceChildren();
      q(".empty").hidden = true;
      root.dataset.loaded = "";
      for (const sel of [".board-ghost", ".board-analyse", ".board-analyse-mine"]) q(sel).hidden = true;
    }
    if (s.shown && s.shown !== was.shown) {
      paint(s.shown.entries ?? [], s.shown.you, s.shown.board);
      paintPending(s.shown.pending ?? null);
    }
  }

  /** My result waiting for its knowledge review: said under the table, on no row of it (fair play). */
  function paintPending(/** @type {{score: number} | null} */ pending) {
    const line = q(".board-pending");
    line.hidden = !pending;
    line.textContent = pending ? t("ui.board_pending", { score: pending.score }) : "";
  }

  /** @param {Entry[]} entries @param {{entry: Entry, rank: number} | null | undefined} you @param {string | undefined} name */
  function paint(entries, you, name) {
    const me = app.player();
    const course = /^course(-day)?:/.test(String(name ?? "")); // a course's board: strokes, fewer first
    const head = course ? "ui.course.strokes" : "ui.score";
    q(".score-head").dataset.t = head;
    q(".score-head").textContent = t(head);
    const body = q(".board-table tbody");
    const extra = you && !entries.some((e) => e.player === me) ? { ...you.entry, rank: you.rank } : null;
    body.replaceChildren(...entries.map((e) => row(e, e.player === me)));
    if (extra) body.append(row(extra, true));
    q(".empty").hidden = entries.length > 0;
    root.dataset.loaded = name;
    // a ghost race on this deal (views/ghost.js); a day's leader once the day is over
    const ghost = /** @type {HTMLAnchorElement} */ (q(".board-ghost"));
    const key = String(name ?? "").replace(/^(code|daily):/, "");
    const past = String(name ?? "").startsWith("code:") || (String(name ?? "").startsWith("daily:") && key < today());
    ghost.hidden = !(entries.length > 0 && past);
    ghost.href = `#/ghost/${encodeURIComponent(key)}`;
    // a past day's games may be analysed (their code is public once the day is over): the winner's, and mine
    const pastDay = String(name ?? "").startsWith("daily:") && key < today();
    const links = [[".board-analyse", entries[0]?.game], [".board-analyse-mine", you?.entry?.game]];
    for (const [sel, game] of links) {
      const a = /** @type {HTMLAnchorElement} */ (q(sel));
      a.hidden = !(pastDay && game && (sel === ".board-analyse" || game !== entries[0]?.game));
      if (game) a.href = `#/analysis/${encodeURIComponent(game)}`;
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = `#/leaderboards/${kindField.value}/${encodeURIComponent(keyField.value.trim())}`;
  });
  /** The key field's label and placeholder: a date, a game code or a course code, in the page's language. */
  function labelKey() {
    const input = keyField;
    const daily = byDay(kindField.value);
    const course = kindField.value === "course";
    input.dataset.tAria = daily ? "ui.date_label" : course ? "ui.course.board_code" : "ui.code_label";
    if (daily) input.dataset.tPh = "ui.date_format";
    else delete input.dataset.tPh;
    input.placeholder = daily ? t("ui.date_format") : course ? COURSE_EXAMPLE : CODE_EXAMPLE;
    translate(form);
  }
  kindField.addEventListener("change", () => {
    keyField.value = byDay(kindField.value) ? today() : "";
    labelKey();
  });

  /** @type {(() => void)[]} */
  const offs = [];
  return {
    root,
    title: "ui.nav_leaderboards",
    mount(params) {
      translate(root);
      ratingBoards.load(); // quick races' rating boards, beside the per-deal and daily ones
      const kind = params?.kind && KINDS.includes(params.kind) ? params.kind : "daily";
      const key = params?.key ? decodeURIComponent(params.key) : byDay(kind) ? today() : "";
      kindField.value = kind;
      keyField.value = key;
      labelKey();
      offs.push(
        app.conn.on("board", (/** @type {import("../net/messages.js").BoardMessage} */ m) => v.update(m)),
        app.conn.on("ready", () => v.update({ t: "ready" })),
      );
      if (key) v.update({ t: "load", kind, key });
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      v.update({ t: "leave" });
    },
    relabel() {
      ratingBoards.load();
      translate(root);
    },
  };
}
