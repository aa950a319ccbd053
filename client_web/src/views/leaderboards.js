// Leaderboards: per day (the daily challenge) and per game code, with your own rank highlighted.
import { checkCode } from "../codes.js";
import { errorText, t } from "../i18n.js";
import { entryName } from "../names.js";
import { el, translate } from "../ui.js";
import { clocks } from "../format.js";

const LIMIT = 20;
const CODE_EXAMPLE = "GO1-E-ABCDEFG";

export function today() {
  return new Date().toISOString().slice(0, 10);
}

/** Whether a live `board` update shows the same top entries as the page on screen. */
export function sameTop(page, update) {
  const key = (e) => `${e.player}|${e.score}|${e.elapsed}|${e.moves}|${e.finished_at}`;
  const top = (page.entries ?? []).slice(0, update.entries?.length ?? 0).map(key).join();
  return page.total === update.total && top === (update.entries ?? []).map(key).join();
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
  const q = (s) => root.querySelector(s);
  const form = q(".board-form");

  function row(entry, mine, time) {
    const tr = document.createElement("tr");
    if (mine) tr.className = "me";
    const name = entryName(entry);
    for (const value of [entry.rank, mine ? `${name} (${t("ui.you")})` : name, entry.score, time, entry.moves]) {
      const td = document.createElement("td");
      td.textContent = String(value);
      tr.append(td);
    }
    return tr;
  }

  let watched = null; // the board this page follows live: one board_watch per shown board
  let shown = null; // the last page fetched over HTTP: {board, total, entries, you}
  let path = null; // its address under /api/leaderboards/
  let loads = 0; // answers of an older load (or after unmount) are dropped
  let refreshes = 0; // and of an older refresh

  async function fetchPage(at) {
    const token = app.conn.token;
    const res = await fetch(`/api/leaderboards/${at}?limit=${LIMIT}`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    }).catch(() => null);
    const data = res ? await res.json().catch(() => null) : null;
    return res?.ok && data ? { data } : { error: data?.error ? errorText(data.error) : t("ui.offline") };
  }

  function watch(name) {
    if (watched === name) return;
    unwatch();
    watched = name;
    app.conn.send({ t: "board_watch", board: name }); // before the handshake: sent on "ready"
  }

  function unwatch() {
    if (watched) app.conn.send({ t: "board_unwatch", board: watched });
    watched = null;
  }

  /** Only the error: no table, no "No entries yet.", and no board followed. */
  function showError(text) {
    const error = q(".board-error");
    error.textContent = text;
    error.hidden = false;
    q(".board-table tbody").replaceChildren();
    q(".empty").hidden = true;
    unwatch();
    shown = null;
    root.dataset.loaded = "";
  }

  async function load(kind, key) {
    q(".board-error").hidden = true;
    const n = ++loads;
    if (kind === "code") {
      const r = checkCode(key);
      if (!r.ok) {
        showError(t(`ui.code_errors.${r.part}`));
        return;
      }
      path = `code/${encodeURIComponent(r.code)}`;
    } else {
      path = `daily/${encodeURIComponent(key || today())}`;
    }
    const answer = await fetchPage(path);
    if (n !== loads) return;
    if (answer.error) {
      showError(answer.error);
      return;
    }
    show(answer.data);
    watch(answer.data.board);
  }

  /** A live update of the watched board: fetch the page again (your rank, LIMIT rows) if its top moved. */
  async function refresh(update) {
    if (update.board !== watched || !shown || update.board !== shown.board || sameTop(shown, update)) return;
    const [n, r] = [loads, ++refreshes];
    const answer = await fetchPage(path);
    if (n === loads && r === refreshes && answer.data?.board === watched) show(answer.data);
  }

  function show(data) {
    shown = data;
    paint(data.entries ?? [], data.you, data.board);
  }

  function paint(entries, you, name) {
    const me = app.player();
    const body = q(".board-table tbody");
    const extra = you && !entries.some((e) => e.player === me) ? { ...you.entry, rank: you.rank } : null;
    const times = clocks(extra ? [...entries, extra] : entries); // tenths where two rows would read the same
    body.replaceChildren(...entries.map((e, i) => row(e, e.player === me, times[i])));
    if (extra) body.append(row(extra, true, times[entries.length]));
    q(".empty").hidden = entries.length > 0;
    root.dataset.loaded = name;
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = `#/leaderboards/${form.elements.kind.value}/${encodeURIComponent(form.elements.key.value.trim())}`;
  });
  /** The key field's label and placeholder: a date or a game code, in the page's language. */
  function labelKey() {
    const input = form.elements.key;
    const daily = form.elements.kind.value === "daily";
    input.dataset.tAria = daily ? "ui.date_label" : "ui.code_label";
    if (daily) input.dataset.tPh = "ui.date_format";
    else delete input.dataset.tPh;
    input.placeholder = daily ? t("ui.date_format") : CODE_EXAMPLE;
    translate(form);
  }
  form.elements.kind.addEventListener("change", () => {
    form.elements.key.value = form.elements.kind.value === "daily" ? today() : "";
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
      form.elements.kind.value = kind;
      form.elements.key.value = key;
      labelKey();
      offs.push(
        app.conn.on("board", (m) => refresh(m)),
        // a new connection follows nothing: watch the shown board again
        app.conn.on("ready", () => watched && app.conn.send({ t: "board_watch", board: watched })),
      );
      if (key) load(kind, key);
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      loads += 1;
      unwatch();
      shown = null;
    },
    relabel() {
      translate(root);
    },
  };
}
