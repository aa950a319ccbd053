// @ts-check
// Watch: every racer's board live, the watcher count, and the replay once the race is over.
// An id that is not a race is a single game, watched with `open` as a watcher.
// The view's state and its changes are watch_state.js; this module only wires them to the page.
import { Board } from "../ui/board.js";
import { errorText, locale, t } from "../ui/i18n.js";
import { racerName } from "../ui/names.js";
import { createMissing, showMissing } from "../features/missing.js";
import { createResults, paintResults } from "../features/results.js";
import { seatFollower } from "../features/followseat.js";
import { GameSession } from "../features/session.js";
import { el, isolated, metaLine, toast, translate } from "../ui/ui.js";
import { TABLEAU, progressLine } from "../ui/format.js";
import { phaseAt } from "./race_state.js";
import { finishedText, showGo } from "../ui/notices.js";
import { finishedBetween, initial, reduce, replayGames } from "./watch_state.js";
import { RULE } from "../net/messages.js";
import { loop } from "../ui/loop.js";

/**
 * @typedef {import("./watch_state.js").WatchState} WatchState
 * @typedef {import("./watch_state.js").Msg} Msg
 * @typedef {import("./watch_state.js").Shown} Shown
 * @typedef {import("./watch_state.js").Seat} Seat
 * @typedef {import("./watch_state.js").WatchedRace} WatchedRace
 * @typedef {import("./watch_state.js").Replay} Replay
 * @typedef {import("./watch_state.js").WireBoard} WireBoard
 * @typedef {import("./watch_state.js").RaceWatchMsg} RaceWatchMsg
 * @typedef {import("./watch_state.js").BoardMsg} BoardMsg
 * @typedef {import("./watch_state.js").ProgressMsg} ProgressMsg
 * @typedef {import("./watch_state.js").RaceMsg} RaceMsg
 * @typedef {import("./watch_state.js").WatchersMsg} WatchersMsg
 * @typedef {import("./watch_state.js").ErrorMsg} ErrorMsg
 * @typedef {import("./race_state.js").Race} Race
 * @typedef {import("../ui/app.js").App} App
 */

const REPLAY_STEP_MS = 260; // one move per seat at 1×
const SPEEDS = [0.5, 1, 2, 4];

/** @param {App} app @returns {import("../ui/app.js").View} */
export function createWatchView(app) {
  // the replay's transport (back, play, forward, the scrubber) is left to right in every language, as media
  // controls are: time runs from the left, also on a Hebrew page (its labels are translated all the same)
  const root = el(`
    <section class="view watch-view">
      <div class="panel race-head">
        <div><h1 class="watch-title" data-t="ui.watch_title"></h1><p class="race-meta"></p></div>
        <div class="watchers"><span class="label" data-t="ui.watching"></span><b class="watch-n" dir="ltr">0</b></div>
        <button type="button" class="btn primary replay" data-t="ui.replay" hidden></button>
      </div>
      <div class="panel replay-bar" role="group" data-t-aria="ui.replay" hidden>
        <div class="r-transport" dir="ltr">
          <button type="button" class="btn icon-btn r-back" data-t-aria="ui.live.back"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/></svg></button>
          <button type="button" class="btn icon-btn r-toggle"><svg viewBox="0 0 24 24" aria-hidden="true"><path class="i-pause" d="M6 5h4v14H6zM14 5h4v14h-4z" fill="currentColor"/><path class="i-play" d="M7 5v14l12-7z" fill="currentColor"/></svg></button>
          <button type="button" class="btn icon-btn r-forward" data-t-aria="ui.live.forward"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/></svg></button>
          <input type="range" class="r-scrub" min="0" max="0" value="0" step="1" data-t-aria="ui.live.scrubber">
        </div>
        <span class="r-pos" dir="auto"></span>
        <label class="select-field r-speed"><span data-t="ui.live.speed"></span>
          <select name="speed">${SPEEDS.map((x) => `<option value="${x}"${x === 1 ? " selected" : ""}>${x}×</option>`).join("")}</select>
        </label>
      </div>
      <div class="seats"></div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const results = createResults();
  const rematch = /** @type {HTMLAnchorElement} */ (el(`<a class="btn primary watch-rematch" data-t="ui.watch_rematch" hidden></a>`));
  /** @type {HTMLElement} */ (results.querySelector(".dlg-actions")).append(rematch);
  q(".race-head").after(results);
  const missing = createMissing(); // an id that is neither a race nor a game
  root.prepend(missing);
  /**
   * The seats on the page (DOM only), each with the board state it last painted.
   * @type {Map<number, {box: HTMLElement, board: Board, painted: Shown | null}>}
   */
  let boxes = new Map();
  let builtFor = 0; // the race_watch the seats' boxes were built for
  /** @type {WatchState["race"]} */
  let headFor = null; // the race the header last painted
  /** @type {WatchState["marks"] | null} */
  let marksFor = null; // and the results' marks
  /** @type {GameSession | null} */
  let single = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let replayTimer = null;
  let timerSpeed = 1;
  /** @type {string | null} */
  let shownPhase = null; // the phase the header last showed: "Go!" when a countdown turns into the race
  /** @type {ReturnType<typeof setTimeout> | null} */
  let startTimer = null; // the header turns from "Starting" to "Running" at starts_at
  /** @type {ReturnType<typeof setInterval> | null} */
  let clockTimer = null; // the seats' times run while the race does
  /** @type {(() => void)[]} */
  const offs = [];
  const bar = q(".replay-bar");
  const scrub = /** @type {HTMLInputElement} */ (q(".r-scrub"));

  /** Every message goes through the one loop: the new state, what it asks for (`follow`), then the page. A
   * new route (`view/mount`) asks for nothing and paints nothing: `mount` clears the page itself. */
  /** @type {import("../ui/loop.js").Loop<WatchState, Msg>} */
  const view = loop({
    initial: initial(),
    reduce,
    effects: follow,
    render,
    quiet: (msg) => msg.t === "view/mount",
  });
  const update = view.update;

  /** What a change of state asks for beyond the page: watch again, open the game, go to one's own race, tell. */
  function follow(/** @type {WatchState} */ before, /** @type {WatchState} */ after) {
    if (after.rewatches !== before.rewatches) start(); // the deal: a fresh race_watch has the boards
    if (after.games !== before.games) watchGame();
    if (after.own && after.own !== before.own) app.redirect(`#/race/${after.own}`);
    if (after.error && after.error !== before.error) toast(errorText(after.error.code, after.error.params), "error");
    for (const r of finishedBetween(before, after)) toast(finishedText(r));
    syncReplayTimer();
  }

  function seatBox(/** @type {number} */ seat) {
    const known = boxes.get(seat);
    if (known) return known;
    const box = el(`<article class="seat panel"><header><b class="seat-name"></b><span class="seat-score" dir="ltr"></span></header><p class="seat-sub"></p></article>`);
    const board = new Board({ interactive: false, compact: true });
    board.el.hidden = true; // until the deal
    box.append(board.el);
    box.dataset.seat = String(seat);
    // in seat order: a racer who joins the lobby later may take a seat another left
    const after = [...boxes.entries()].filter(([s]) => s > seat).sort(([a], [b]) => a - b)[0];
    q(".seats").insertBefore(box, after ? after[1].box : null);
    const seatView = { box, board, painted: /** @type {Shown | null} */ (null) };
    boxes.set(seat, seatView);
    return seatView;
  }

  /** The page from the state: the header, each seat (its board only when it changed), the replay's bar. */
  function render() {
    const state = view.state();
    if (state.mode === "missing") {
      // not a race, and not a game either: the page says so instead of an empty "Watching the race"
      q(".race-head").hidden = true;
      showMissing(missing, { code: "race_not_found", params: {} });
    }
    if (state.watches !== builtFor) {
      builtFor = state.watches; // a fresh race_watch: every seat again
      q(".seats").replaceChildren();
      boxes = new Map();
    }
    renderSeats();
    if (state.race !== headFor || state.marks !== marksFor) renderHead(); // (its timer paints it again when the countdown ends)
    if (state.replay) paintBar(state.replay);
  }

  function renderSeats() {
    const state = view.state();
    const runs = new Map((state.replay?.runs ?? []).map((run) => [run.seat, run]));
    const wanted = new Set([...state.seats.map((s) => s.seat), ...runs.keys()]);
    for (const [seat, seatView] of [...boxes]) {
      if (wanted.has(seat)) continue;
      seatView.box.remove();
      boxes.delete(seat);
    }
    for (const s of state.seats) paintSeat(s.seat, s.progress);
    for (const seat of wanted) {
      const seatView = seatBox(seat);
      const run = runs.get(seat);
      const s = state.seats.find((x) => x.seat === seat);
      const shown = run ? run.state : (s?.board ?? null);
      if (!shown || shown === seatView.painted) continue;
      seatView.painted = shown;
      seatView.board.el.hidden = false;
      if (run) seatView.board.render(shown, run.change, run.diff, locale());
      else {
        const { diff } = /** @type {Seat} */ (s); // a board shown without a replay is a seat's
        seatView.board.render(shown, diff ? (diff.a ?? "tap") : "snapshot", diff, locale());
      }
      if (state.mode === "game") seatView.board.el.dataset.v = String(shown.v);
    }
  }

  function paintSeat(/** @type {number} */ seat, /** @type {Seat["progress"]} */ progress) {
    const state = view.state();
    const seatView = seatBox(seat);
    const lobby = state.race?.phase === "lobby";
    seatView.box.dataset.status = lobby ? "ready" : progress.status;
    const part = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (seatView.box.querySelector(sel));
    const name = part(".seat-name"); // the name in its own direction, the line in the page's
    const text = racerName({ ...progress, seat });
    if (name.textContent !== text) name.replaceChildren(isolated(text));
    setText(part(".seat-score"), lobby ? "" : String(progress.score ?? 0));
    setText(part(".seat-sub"), seatSub(progress));
  }

  /** A text changed only when it differs (every seat is painted on every message). */
  function setText(/** @type {Element} */ node, /** @type {string} */ text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function seatSub(/** @type {Seat["progress"]} */ progress) {
    const state = view.state();
    if (state.race?.phase === "lobby") return t("ui.ready");
    return progressLine(state.race, progress, app.conn.serverNow()); // a single game (no race): its time as sent
  }

  /** Every second of a running race: the times of the racers still playing run between their moves. */
  function tickSeats() {
    const state = view.state();
    for (const s of state.seats) {
      const sub = boxes.get(s.seat)?.box.querySelector(".seat-sub");
      if (sub) setText(sub, seatSub(s.progress));
    }
  }

  function stopClock() {
    clearInterval(clockTimer ?? undefined);
    clockTimer = null;
  }

  function renderHead() {
    const state = view.state();
    const race = /** @type {(Race & {boards?: WireBoard[]}) | null} */ (state.race);
    if (!race?.boards) return; // race_watch is still to come (or this is a single game)
    headFor = race;
    marksFor = state.marks;
    const phase = phaseAt(race, app.conn.serverNow());
    if (shownPhase === "countdown" && phase === "running") showGo(root);
    shownPhase = phase;
    clearTimeout(startTimer ?? undefined);
    if (phase === "countdown" && race.starts_at) {
      startTimer = setTimeout(renderHead, race.starts_at - app.conn.serverNow());
    }
    if (phase === "running") clockTimer ??= setInterval(tickSeats, 1000);
    else stopClock(); // a lobby, a countdown, a finished race: no time runs
    const bits = [t(race.rules === RULE.CLASSIC ? "ui.rules_classic" : "ui.rules_easy"), t(`ui.phase.${phase}`)];
    metaLine(q(".race-meta"), bits, race.code);
    q(".watch-n").textContent = String(race.watchers ?? 0);
    q(".replay").hidden = race.phase !== "finished";
    paintResults(results, race, null, state.marks, seatFollower(app.conn, race.race));
    rematch.hidden = !race.rematch; // the racers' next race: a spectator follows it too
    if (race.rematch) rematch.href = `#/watch/${race.rematch}`;
    root.dataset.phase = phase;
  }

  function listen() {
    offs.push(
      app.conn.on("race_watch", (/** @type {RaceWatchMsg} */ m) => update({ ...m, t: "race_watch" })),
      app.conn.on("race_board", (/** @type {BoardMsg} */ m) => update({ ...m, t: "race_board" })),
      app.conn.on("race_progress", (/** @type {ProgressMsg} */ m) => update({ ...m, t: "race_progress" })),
      app.conn.on("race", (/** @type {RaceMsg} */ m) => update({ ...m, t: "race" })),
      app.conn.on("watchers", (/** @type {WatchersMsg} */ m) => update({ ...m, t: "watchers" })),
      app.conn.on("error", (/** @type {ErrorMsg} */ m) => update({ ...m, t: "error" })),
      app.conn.on("ready", () => start()),
    );
  }

  function start() {
    const { id } = view.state();
    if (id && app.conn.ready) app.conn.send({ t: "watch", race: id });
  }

  function watchGame() {
    single?.dispose();
    single = new GameSession(app.conn, {
      onError: (m) => m.ref === "open" && update({ t: "view/game_missing" }),
      onChange: (shown, _change, diff) => {
        const removed = TABLEAU - shown.columns.flat().length;
        const progress = { seat: 1, name: shown.code ?? "", score: shown.score, status: shown.status, removed };
        update({ t: "view/game", progress, state: shown, diff });
      },
    });
    single.open(view.state().id, "watcher");
  }

  // --- the replay: every seat's record from /api/games, moved together one move at a time ----------------
  function paintBar(/** @type {Replay} */ replay) {
    const { pos, total, playing } = replay;
    bar.hidden = replay.runs.length === 0;
    scrub.max = String(total);
    scrub.value = String(pos);
    const position = t("ui.live.position", { n: pos, total });
    q(".r-pos").textContent = position;
    scrub.setAttribute("aria-valuetext", position);
    const toggle = q(".r-toggle");
    toggle.setAttribute("aria-label", t(playing ? "ui.live.pause" : "ui.live.play"));
    toggle.dataset.playing = playing ? "1" : "";
    /** @type {HTMLButtonElement} */ (q(".r-back")).disabled = pos === 0;
    /** @type {HTMLButtonElement} */ (q(".r-forward")).disabled = pos >= total;
    root.dataset.replay = pos >= total ? "done" : playing ? "running" : "paused";
    root.dataset.replayPos = String(pos);
  }

  /** The replay's timer runs while the state says playing, at its speed. */
  function syncReplayTimer() {
    const state = view.state();
    const playing = Boolean(state.replay?.playing);
    if (playing && replayTimer !== null && timerSpeed === state.speed) return;
    clearInterval(replayTimer ?? undefined);
    replayTimer = null;
    if (!playing) return;
    timerSpeed = state.speed;
    replayTimer = setInterval(() => update({ t: "replay/tick" }), REPLAY_STEP_MS / state.speed);
  }

  async function replay() {
    update({ t: "replay/pause" });
    const { id, race } = view.state();
    const records = await Promise.all(
      // the Replay button shows for a finished race only
      replayGames(/** @type {WatchedRace} */ (race)).map(([seat, game]) =>
        fetch(`/api/games/${game}`)
          .then((r) => (r.ok ? r.json() : null))
          .then((rec) => /** @type {[number, any]} */ ([seat, rec]))
          .catch(() => /** @type {[number, any]} */ ([seat, null])),
      ),
    );
    if (view.state().id !== id) return;
    update({ t: "replay/loaded", records });
    // the results step below the seats (data-replay), and the replay's bar and boards come into view
    if (!bar.hidden) bar.scrollIntoView({ block: "nearest" });
  }
  q(".r-toggle").addEventListener("click", () => update({ t: view.state().replay?.playing ? "replay/pause" : "replay/play" }));
  q(".r-back").addEventListener("click", () => update({ t: "replay/seek", n: (view.state().replay?.pos ?? 0) - 1, animate: false }));
  q(".r-forward").addEventListener("click", () => update({ t: "replay/seek", n: (view.state().replay?.pos ?? 0) + 1, animate: true }));
  scrub.addEventListener("input", () => update({ t: "replay/seek", n: Number(scrub.value), animate: false }));
  q(".r-speed select").addEventListener("change", (e) => {
    update({ t: "replay/speed", speed: Number(/** @type {HTMLSelectElement} */ (e.target).value) });
  });
  q(".replay").addEventListener("click", () => replay());

  return {
    root,
    title: "ui.watch_title",
    mount(params) {
      translate(root);
      update({ t: "view/mount", id: params?.id ?? null });
      boxes = new Map();
      builtFor = 0;
      headFor = null;
      q(".seats").replaceChildren();
      results.hidden = true;
      missing.hidden = true;
      // nothing of the previous race stays on screen while this one loads
      q(".race-head").hidden = false;
      q(".race-meta").textContent = "";
      q(".watch-n").textContent = "0";
      q(".replay").hidden = true;
      bar.hidden = true;
      shownPhase = null;
      rematch.hidden = true;
      delete root.dataset.phase;
      delete root.dataset.replay;
      delete root.dataset.replayPos;
      stopClock();
      listen();
      start();
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      const { id, race } = view.state();
      if (id && race) app.conn.send({ t: "unwatch", race: id });
      single?.dispose();
      single = null;
      update({ t: "replay/pause" }); // and its timer stops
      syncReplayTimer();
      clearTimeout(startTimer ?? undefined);
      stopClock();
    },
    relabel() {
      translate(root);
      const state = view.state();
      if (state.replay) paintBar(state.replay);
      renderHead();
      for (const s of state.seats) paintSeat(s.seat, s.progress);
      for (const seatView of boxes.values()) seatView.board.relabel(locale());
    },
  };
}
