// @ts-check
// Leaderboards: per day (the daily challenge) and per game code, with your own rank highlighted.
// Its state and the changes per message are leaderboards_state.js; here: listeners feed it, the effects
// (fetch a page, follow a board) are read from the state before and after, and `render` paints it.
import { errorText, t } from "../i18n.js";
import { entryName } from "../names.js";
import { el, isolated, translate } from "../ui.js";
import { clock } from "../format.js";
import { initial, reduce, today } from "./leaderboards_state.js";

const LIMIT = 20;
const CODE_EXAMPLE = "GO1-E-ABCDEFG";

/** @param {import("./app.js").App} app @returns {import("./app.js").View} */
export function createLeaderboardsView(app) {
  const root = el(`
    <section class="view boards-view">
      <div class="panel">
        <h1 data-t="ui.nav_leaderboards"></h1>
        <form class="board-form row" novalidate>
          <label class="select-field"><span data-t="ui.board_kind"></span>
            <select name="kind"><option value="daily" data-t="ui.by_day"></option><option value="code" data-t="ui.by_code"></option></select>
          </label>
          <input name="key" dir="ltr" autocomplete="off" spellcheck="false">
          <button type="submit" class="btn primary" data-t="ui.show"></button>
        </form>
        <p class="field-error board-error" role="alert" hidden></p>
        <div class="table-wrap"><table class="board-table"><thead><tr>
          <th>#</th><th data-t="ui.name"></th><th data-t="ui.score"></th><th data-t="ui.time"></th><th data-t="ui.moves"></th>
        </tr></thead><tbody></tbody></table></div>
        <p class="empty" data-t="ui.no_entries" hidden></p>
      </div>
    </section>`);
  const q = (s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const form = /** @type {HTMLFormElement} */ (q(".board-form"));
  const kindField = /** @type {HTMLSelectElement} */ (form.elements.namedItem("kind"));
  const keyField = /** @type {HTMLInputElement} */ (form.elements.namedItem("key"));

  function row(entry, mine) {
    const time = clock(entry.elapsed, { final: true }); // a result: with tenths, as the ranking compares them
    const tr = document.createElement("tr");
    if (mine) tr.className = "me";
    const name = [isolated(entryName(entry)), mine ? ` (${t("ui.you")})` : ""]; // the name in its own direction
    for (const value of [entry.rank, name, entry.score, time, entry.moves]) {
      const td = document.createElement("td");
      if (Array.isArray(value)) td.append(...value);
      else td.textContent = String(value);
      tr.append(td);
    }
    return tr;
  }

  let view = initial();

  /** @param {import("./leaderboards_state.js").Msg} msg */
  function update(msg) {
    const before = view;
    view = reduce(view, msg);
    if (view === before) return;
    effects(before, view);
    render(view);
  }

  /** What a change leads to: the board followed live, and the page fetched (again).
   * @param {import("./leaderboards_state.js").BoardsState} before
   * @param {import("./leaderboards_state.js").BoardsState} after */
  function effects(before, after) {
    if (after.watched !== before.watched) {
      if (before.watched) app.conn.send({ t: "board_unwatch", board: before.watched });
      if (after.watched) app.conn.send({ t: "board_watch", board: after.watched }); // before the handshake: sent on "ready"
    } else if (after.connections !== before.connections && after.watched) {
      app.conn.send({ t: "board_watch", board: after.watched }); // a new connection follows nothing
    }
    if (after.path && after.loads !== before.loads) {
      const n = after.loads;
      fetchPage(after.path).then((answer) => update({ t: "page", n, ...answer }));
    }
    if (after.path && after.refreshes !== before.refreshes) {
      const [n, r] = [after.loads, after.refreshes];
      fetchPage(after.path).then((answer) => answer.data && update({ t: "refreshed", n, r, data: answer.data }));
    }
  }

  async function fetchPage(at) {
    const token = app.conn.token;
    const res = await fetch(`/api/leaderboards/${at}?limit=${LIMIT}`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    }).catch(() => null);
    const data = res ? await res.json().catch(() => null) : null;
    return res?.ok && data ? { data } : { error: data?.error ? errorText(data.error) : t("ui.offline") };
  }

  /** @type {import("./leaderboards_state.js").BoardsState} */
  let painted = initial();
  /** @param {import("./leaderboards_state.js").BoardsState} s */
  function render(s) {
    const was = painted;
    painted = s;
    const error = q(".board-error");
    error.hidden = !s.error;
    if (s.error && s.error !== was.error) {
      // only the error: no table, no "No entries yet."
      error.textContent = s.error.key ? t(s.error.key) : s.error.text;
      q(".board-table tbody").replaceChildren();
      q(".empty").hidden = true;
      root.dataset.loaded = "";
    }
    if (s.shown && s.shown !== was.shown) paint(s.shown.entries ?? [], s.shown.you, s.shown.board);
  }

  function paint(entries, you, name) {
    const me = app.player();
    const body = q(".board-table tbody");
    const extra = you && !entries.some((e) => e.player === me) ? { ...you.entry, rank: you.rank } : null;
    body.replaceChildren(...entries.map((e) => row(e, e.player === me)));
    if (extra) body.append(row(extra, true));
    q(".empty").hidden = entries.length > 0;
    root.dataset.loaded = name;
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = `#/leaderboards/${kindField.value}/${encodeURIComponent(keyField.value.trim())}`;
  });
  /** The key field's label and placeholder: a date or a game code, in the page's language. */
  function labelKey() {
    const input = keyField;
    const daily = kindField.value === "daily";
    input.dataset.tAria = daily ? "ui.date_label" : "ui.code_label";
    if (daily) input.dataset.tPh = "ui.date_format";
    else delete input.dataset.tPh;
    input.placeholder = daily ? t("ui.date_format") : CODE_EXAMPLE;
    translate(form);
  }
  kindField.addEventListener("change", () => {
    keyField.value = kindField.value === "daily" ? today() : "";
    labelKey();
  });

  const offs = [];
  return {
    root,
    title: "ui.nav_leaderboards",
    mount(params) {
      translate(root);
      const kind = params?.kind === "code" ? "code" : "daily";
      const key = params?.key ? decodeURIComponent(params.key) : kind === "daily" ? today() : "";
      kindField.value = kind;
      keyField.value = key;
      labelKey();
      offs.push(
        app.conn.on("board", (m) => update(m)),
        app.conn.on("ready", () => update({ t: "ready" })),
      );
      if (key) update({ t: "load", kind, key });
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      update({ t: "leave" });
    },
    relabel() {
      translate(root);
    },
  };
}
