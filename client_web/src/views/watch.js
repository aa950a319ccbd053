// Watch: every racer's board live, the watcher count, and the replay once the race is over.
// An id that is not a race is a single game, watched with `open` as a watcher.
import { Board } from "../board.js";
import { applyDiff } from "../gamestate.js";
import { errorText, locale, t } from "../i18n.js";
import { racerName } from "../names.js";
import { createMissing, showMissing } from "../missing.js";
import { createResults, paintResults } from "../results.js";
import { GameSession } from "../session.js";
import { el, toast, translate } from "../ui.js";
import { TABLEAU, progressLine } from "../format.js";
import { phaseAt } from "./race.js";
import { finishedText, showGo } from "../notices.js";

const REPLAY_STEP_MS = 260; // one move per seat at 1×
const SPEEDS = [0.5, 1, 2, 4];

/** A watcher's board as the shown state, or null before the deal (a racer in the lobby has no cards yet). */
function boardState(b) {
  if (!b.columns) return null;
  return {
    columns: b.columns,
    discard: b.discard ?? null,
    stock_count: b.stock ?? 0,
    score: b.score ?? 0,
    moves: b.moves ?? 0,
    status: b.status ?? "playing",
  };
}

export function createWatchView(app) {
  const root = el(`
    <section class="view watch-view">
      <div class="panel race-head">
        <div><h1 class="watch-title" data-t="ui.watch_title"></h1><p class="race-meta"></p></div>
        <div class="watchers"><span class="label" data-t="ui.watching"></span><b class="watch-n" dir="ltr">0</b></div>
        <button type="button" class="btn primary replay" data-t="ui.replay" hidden></button>
      </div>
      <div class="panel replay-bar" role="group" data-t-aria="ui.replay" hidden>
        <button type="button" class="btn icon-btn r-back" data-t-aria="ui.live.back"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 5h2v14H6zM19 5v14l-10-7z" fill="currentColor"/></svg></button>
        <button type="button" class="btn icon-btn r-toggle"><svg viewBox="0 0 24 24" aria-hidden="true"><path class="i-pause" d="M6 5h4v14H6zM14 5h4v14h-4z" fill="currentColor"/><path class="i-play" d="M7 5v14l12-7z" fill="currentColor"/></svg></button>
        <button type="button" class="btn icon-btn r-forward" data-t-aria="ui.live.forward"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M16 5h2v14h-2zM5 5v14l10-7z" fill="currentColor"/></svg></button>
        <input type="range" class="r-scrub" min="0" max="0" value="0" step="1" data-t-aria="ui.live.scrubber">
        <span class="r-pos" dir="auto"></span>
        <label class="select-field r-speed"><span data-t="ui.live.speed"></span>
          <select name="speed">${SPEEDS.map((x) => `<option value="${x}"${x === 1 ? " selected" : ""}>${x}×</option>`).join("")}</select>
        </label>
      </div>
      <div class="seats"></div>
    </section>`);
  const q = (s) => root.querySelector(s);
  const results = createResults();
  const rematch = el(`<a class="btn primary watch-rematch" data-t="ui.watch_rematch" hidden></a>`);
  results.querySelector(".dlg-actions").append(rematch);
  q(".race-head").after(results);
  const missing = createMissing(); // an id that is neither a race nor a game
  root.prepend(missing);
  let id = null;
  let race = null;
  let seats = new Map(); // seat -> {board, el, state, progress}
  let single = null;
  let replayTimer = null;
  let shownPhase = null; // the phase the header last showed: "Go!" when a countdown turns into the race
  const statuses = new Map(); // seat -> last status seen, for the notice when a racer finishes
  let startTimer = null; // the header turns from "Starting" to "Running" at starts_at
  let clockTimer = null; // the seats' times run while the race does
  const offs = [];

  function seatView(seat) {
    if (seats.has(seat)) return seats.get(seat);
    const box = el(`<article class="seat panel"><header><b class="seat-name"></b><span class="seat-score" dir="ltr"></span></header><p class="seat-sub"></p></article>`);
    const board = new Board({ interactive: false, compact: true });
    board.el.hidden = true; // until the deal
    box.append(board.el);
    box.dataset.seat = String(seat);
    // in seat order: a racer who joins the lobby later may take a seat another left
    const after = [...seats.entries()].filter(([s]) => s > seat).sort(([a], [b]) => a - b)[0];
    q(".seats").insertBefore(box, after ? after[1].box : null);
    const view = { box, board, progress: null, state: null };
    seats.set(seat, view);
    return view;
  }

  /** The seats are the race's racers: a racer who joins the lobby gets one, one who leaves it loses theirs. */
  function syncSeats(racers) {
    const present = new Set(racers.map((r) => r.seat));
    for (const [seat, view] of [...seats]) {
      if (present.has(seat)) continue;
      view.box.remove();
      seats.delete(seat);
    }
    for (const r of racers) paintSeat(r.seat, r, null, null);
  }

  /** A racer who was playing is done: say so (not for what was over before this page came). */
  function noticeFinish(seat, progress) {
    const before = statuses.get(seat);
    statuses.set(seat, progress.status);
    if (before === "playing" && progress.status && progress.status !== "playing" && race?.phase !== "lobby") {
      toast(finishedText({ ...progress, seat }));
    }
  }

  function paintSeat(seat, progress, state, diff) {
    if (progress?.status) noticeFinish(seat, progress);
    const view = seatView(seat);
    view.progress = progress;
    if (state) {
      view.state = state;
      view.board.el.hidden = false;
      view.board.render(state, diff ? diff.a ?? "tap" : "snapshot", diff, locale());
    }
    const lobby = race?.phase === "lobby";
    view.box.dataset.status = lobby ? "ready" : progress.status;
    view.box.querySelector(".seat-name").textContent = racerName({ ...progress, seat });
    view.box.querySelector(".seat-score").textContent = lobby ? "" : String(progress.score ?? 0);
    view.box.querySelector(".seat-sub").textContent = seatSub(progress);
  }

  function seatSub(progress) {
    if (race?.phase === "lobby") return t("ui.ready");
    return progressLine(race, progress, app.conn.serverNow()); // a single game (no race): its time as sent
  }

  /** Every second of a running race: the times of the racers still playing run between their moves. */
  function tickSeats() {
    for (const view of seats.values()) {
      if (!view.progress) continue;
      const sub = view.box.querySelector(".seat-sub");
      const text = seatSub(view.progress);
      if (sub.textContent !== text) sub.textContent = text;
    }
  }

  function stopClock() {
    clearInterval(clockTimer);
    clockTimer = null;
  }

  function renderHead() {
    if (!race) return;
    const phase = phaseAt(race, app.conn.serverNow());
    if (shownPhase === "countdown" && phase === "running") showGo(root);
    shownPhase = phase;
    clearTimeout(startTimer);
    if (phase === "countdown" && race.starts_at) {
      startTimer = setTimeout(renderHead, race.starts_at - app.conn.serverNow());
    }
    if (phase === "running") clockTimer ??= setInterval(tickSeats, 1000);
    else stopClock(); // a lobby, a countdown, a finished race: no time runs
    const bits = [t(race.rules === "classic" ? "ui.rules_classic" : "ui.rules_easy"), t(`ui.phase.${phase}`)];
    if (race.code) bits.push(race.code);
    q(".race-meta").textContent = bits.join(" · ");
    q(".watch-n").textContent = String(race.watchers ?? 0);
    q(".replay").hidden = race.phase !== "finished";
    paintResults(results, race);
    rematch.hidden = !race.rematch; // the racers' next race: a spectator follows it too
    if (race.rematch) rematch.href = `#/watch/${race.rematch}`;
    root.dataset.phase = phase;
  }

  function listen() {
    offs.push(
      app.conn.on("race_watch", (m) => {
        if (m.race !== id) return;
        race = { ...m, watchers: Math.max(m.watchers ?? 0, race?.watchers ?? 0) };
        q(".seats").replaceChildren();
        seats = new Map();
        for (const b of m.boards ?? []) paintSeat(b.seat, b, boardState(b), null);
        renderHead();
      }),
      app.conn.on("race_board", (m) => {
        if (m.race !== id) return;
        paintSeat(m.board.seat, m.board, boardState(m.board), m.diff ?? null);
      }),
      app.conn.on("race_progress", (m) => {
        if (m.race !== id) return;
        paintSeat(m.racer.seat, m.racer, null, null);
      }),
      app.conn.on("race", (m) => {
        if (m.race !== id) return;
        const was = race?.phase;
        race = { ...race, ...m };
        if (!race.boards) return; // race_watch (with the boards) is still to come
        syncSeats(m.racers ?? []);
        renderHead();
        // the deal: a `race` message carries no boards, a fresh race_watch does (watching again is harmless)
        if (was === "lobby" && m.phase !== "lobby") start();
      }),
      app.conn.on("watchers", (m) => {
        if (m.race !== id) return;
        race = { ...(race ?? {}), watchers: m.n }; // may come before race_watch: kept for it
        if (!race.race) return;
        renderHead();
      }),
      app.conn.on("error", (m) => {
        if (m.ref !== "watch") return;
        if (m.code === "race_not_found") return watchGame();
        if (m.code === "own_race") return app.redirect(`#/race/${m.params?.race ?? id}`); // your own seat
        toast(errorText(m.code, m.params), "error");
      }),
      app.conn.on("ready", () => start()),
    );
  }

  function start() {
    if (id && app.conn.ready) app.conn.send({ t: "watch", race: id });
  }

  function watchGame() {
    single?.dispose();
    single = new GameSession(app.conn, {
      onError: (m) => {
        // not a race, and not a game either: the page says so instead of an empty "Watching the race"
        if (m.ref !== "open") return;
        q(".race-head").hidden = true;
        showMissing(missing, { code: "race_not_found", params: {} });
      },
      onChange: (state, change, diff) => {
        const view = seatView(1);
        paintSeat(1, { name: state.code ?? "", score: state.score, status: state.status, removed: TABLEAU - state.columns.flat().length }, state, diff);
        view.board.el.dataset.v = String(state.v);
      },
    });
    single.open(id, "watcher");
  }

  // --- the replay: every seat's record from /api/games, moved together one move at a time ----------------
  let runs = [];
  let pos = 0; // moves shown per seat
  let total = 0; // the longest seat's moves
  let speed = 1;
  const bar = q(".replay-bar");
  const scrub = q(".r-scrub");

  /** A run's state after its first `n` steps (from the deal: scrubbing back replays from the start). */
  function stateAt(run, n) {
    let state = run.start;
    for (let i = 0; i < Math.min(n, run.steps.length); i++) {
      state = applyDiff(state, { ...run.steps[i], game: state.game, v: i + 1, from: i }).state;
    }
    return state;
  }

  function showAt(n, animate) {
    const next = Math.max(0, Math.min(total, n));
    for (const run of runs) {
      const step = run.steps[next - 1];
      if (animate && next === pos + 1 && step) {
        const diff = { ...step, game: run.state.game, v: next, from: next - 1 };
        run.state = applyDiff(run.state, diff).state;
        run.view.board.render(run.state, step.a, diff, locale());
      } else if (next !== pos || !animate) {
        run.state = stateAt(run, next);
        run.view.board.render(run.state, "snapshot", null, locale());
      }
    }
    pos = next;
    paintBar();
    if (pos >= total) pause();
  }

  function paintBar() {
    scrub.max = String(total);
    scrub.value = String(pos);
    const position = t("ui.live.position", { n: pos, total });
    q(".r-pos").textContent = position;
    scrub.setAttribute("aria-valuetext", position);
    const playing = replayTimer !== null;
    const toggle = q(".r-toggle");
    toggle.setAttribute("aria-label", t(playing ? "ui.live.pause" : "ui.live.play"));
    toggle.dataset.playing = playing ? "1" : "";
    q(".r-back").disabled = pos === 0;
    q(".r-forward").disabled = pos >= total;
    root.dataset.replay = pos >= total ? "done" : playing ? "running" : "paused";
    root.dataset.replayPos = String(pos);
  }

  function play() {
    if (pos >= total) showAt(0, false);
    clearInterval(replayTimer);
    replayTimer = setInterval(() => showAt(pos + 1, true), REPLAY_STEP_MS / speed);
    paintBar();
  }

  function pause() {
    clearInterval(replayTimer);
    replayTimer = null;
    paintBar();
  }

  async function replay() {
    pause();
    const games = (race.results ?? race.racers ?? []).map((r) => [r.seat, r.game]).filter(([, g]) => g);
    const records = await Promise.all(
      games.map(([seat, game]) =>
        fetch(`/api/games/${game}`)
          .then((r) => (r.ok ? r.json() : null))
          .then((rec) => [seat, rec])
          .catch(() => [seat, null]),
      ),
    );
    runs = [];
    for (const [seat, rec] of records) {
      if (!rec) continue;
      const start = {
        game: rec.game, v: 0, columns: rec.deal.columns, discard: rec.deal.discard, stock_count: rec.deal.stock.length,
        score: 0, moves: 0, undos: 0, status: "playing",
      };
      const view = seatView(seat);
      view.board.el.hidden = false;
      runs.push({ seat, start, state: start, steps: rec.steps ?? [], view });
    }
    total = Math.max(0, ...runs.map((r) => r.steps.length));
    pos = 0;
    bar.hidden = runs.length === 0;
    showAt(0, false);
    play();
  }
  q(".r-toggle").addEventListener("click", () => (replayTimer === null ? play() : pause()));
  q(".r-back").addEventListener("click", () => {
    pause();
    showAt(pos - 1, false);
  });
  q(".r-forward").addEventListener("click", () => {
    pause();
    showAt(pos + 1, true);
  });
  scrub.addEventListener("input", () => {
    const to = Number(scrub.value); // before pause() paints the bar at the old position
    pause();
    showAt(to, false);
  });
  q(".r-speed select").addEventListener("change", (e) => {
    speed = Number(e.target.value) || 1;
    if (replayTimer !== null) play();
  });
  q(".replay").addEventListener("click", () => replay());

  return {
    root,
    title: "ui.watch_title",
    mount(params) {
      translate(root);
      id = params?.id ?? null;
      race = null;
      seats = new Map();
      q(".seats").replaceChildren();
      results.hidden = true;
      missing.hidden = true;
      // nothing of the previous race stays on screen while this one loads
      q(".race-head").hidden = false;
      q(".race-meta").textContent = "";
      q(".watch-n").textContent = "0";
      q(".replay").hidden = true;
      bar.hidden = true;
      runs = [];
      shownPhase = null;
      statuses.clear();
      rematch.hidden = true;
      delete root.dataset.phase;
      stopClock();
      listen();
      start();
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      if (id && race) app.conn.send({ t: "unwatch", race: id });
      single?.dispose();
      single = null;
      pause();
      clearTimeout(startTimer);
      stopClock();
    },
    relabel() {
      translate(root);
      if (!bar.hidden) paintBar();
      renderHead();
      for (const [seat, view] of seats) {
        if (view.progress) paintSeat(seat, view.progress, null, null);
        view.board.relabel(locale());
      }
    },
  };
}
