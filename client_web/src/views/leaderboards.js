// Leaderboards: per day (the daily challenge) and per game code, with your own rank highlighted.
import { checkCode } from "../codes.js";
import { errorText, t } from "../i18n.js";
import { el, translate } from "../ui.js";
import { clock } from "./race.js";

const LIMIT = 20;

export function today() {
  return new Date().toISOString().slice(0, 10);
}

export function createLeaderboardsView(app) {
  const root = el(`
    <section class="view boards-view">
      <div class="panel">
        <h1 data-t="ui.nav_leaderboards"></h1>
        <form class="board-form row" novalidate>
          <label class="select-field"><span data-t="ui.board_kind"></span>
            <select name="kind"><option value="daily" data-t="ui.by_day"></option><option value="code" data-t="ui.by_code"></option></select>
          </label>
          <input name="key" dir="ltr" autocomplete="off" spellcheck="false" aria-label="key">
          <button type="submit" class="btn primary" data-t="ui.show"></button>
        </form>
        <p class="field-error board-error" role="alert" hidden></p>
        <div class="table-wrap"><table class="board-table"><thead><tr>
          <th>#</th><th data-t="ui.name"></th><th data-t="ui.score"></th><th data-t="ui.time"></th><th data-t="ui.moves"></th>
        </tr></thead><tbody></tbody></table></div>
        <p class="empty" data-t="ui.no_entries" hidden></p>
      </div>
    </section>`);
  const q = (s) => root.querySelector(s);
  const form = q(".board-form");
  let board = null;

  function row(entry, mine) {
    const tr = document.createElement("tr");
    if (mine) tr.className = "me";
    const name = entry.name || entry.player;
    for (const value of [entry.rank, mine ? `${name} (${t("ui.you")})` : name, entry.score, clock(entry.elapsed), entry.moves]) {
      const td = document.createElement("td");
      td.textContent = String(value);
      tr.append(td);
    }
    return tr;
  }

  async function load(kind, key) {
    const error = q(".board-error");
    error.hidden = true;
    let path;
    if (kind === "code") {
      const r = checkCode(key);
      if (!r.ok) {
        error.textContent = t(`ui.code_errors.${r.part}`);
        error.hidden = false;
        return;
      }
      path = `code/${encodeURIComponent(r.code)}`;
    } else {
      path = `daily/${encodeURIComponent(key || today())}`;
    }
    const token = app.conn.token;
    const res = await fetch(`/api/leaderboards/${path}?limit=${LIMIT}`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    }).catch(() => null);
    const data = res ? await res.json().catch(() => null) : null;
    if (!res?.ok || !data) {
      error.textContent = data?.error ? errorText(data.error) : t("ui.offline");
      error.hidden = false;
      return;
    }
    if (board) app.conn.send({ t: "board_unwatch", board });
    board = data.board;
    app.conn.send({ t: "board_watch", board });
    paint(data.entries ?? [], data.you);
  }

  function paint(entries, you) {
    const me = app.player();
    const body = q(".board-table tbody");
    body.replaceChildren(...entries.map((e) => row(e, e.player === me)));
    if (you && !entries.some((e) => e.player === me)) body.append(row({ ...you.entry, rank: you.rank }, true));
    q(".empty").hidden = entries.length > 0;
    root.dataset.loaded = board ?? "";
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = `#/leaderboards/${form.elements.kind.value}/${encodeURIComponent(form.elements.key.value.trim())}`;
  });
  form.elements.kind.addEventListener("change", () => {
    form.elements.key.value = form.elements.kind.value === "daily" ? today() : "";
    form.elements.key.placeholder = form.elements.kind.value === "daily" ? "YYYY-MM-DD" : "GO1-E-ABCDEFG";
  });

  let off = null;
  return {
    root,
    title: "ui.nav_leaderboards",
    mount(params) {
      translate(root);
      const kind = params?.kind === "code" ? "code" : "daily";
      const key = params?.key ? decodeURIComponent(params.key) : kind === "daily" ? today() : "";
      form.elements.kind.value = kind;
      form.elements.key.value = key;
      off = app.conn.on("board", (m) => {
        if (m.board === board) load(form.elements.kind.value, form.elements.key.value.trim());
      });
      if (key) load(kind, key);
    },
    unmount() {
      off?.();
      if (board) app.conn.send({ t: "board_unwatch", board });
      board = null;
    },
    relabel() {
      translate(root);
    },
  };
}
