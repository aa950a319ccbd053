// @ts-check
// Race: create one, the lobby with its share link, the countdown, your board and everyone's progress, the
// results with par, and the rematch. The daily challenge is a one-seat race and is played here too.
// Your board is your seat, an ordinary game (`<race>-<seat>`) played through the same GameSession as Play:
// open, act with seq, resync, and a move made while offline is sent again once the connection is back.
// The view's state and its changes are race_state.js; this module only wires them to the page.
import { rankedNotice } from "../account.js";
import { Board } from "../board.js";
import { checkCode } from "../codes.js";
import { describeChange } from "../announce.js";
import { describeState } from "../describe.js";
import { TABLEAU, clock, progressLine, statusText } from "../format.js";
import { errorText, locale, t } from "../i18n.js";
import { boardKeys } from "../keys.js";
import { settings } from "../settings.js";
import { racerName } from "../names.js";
import { confirmDialog, dismissConfirm } from "../confirm.js";
import { raceIdFrom } from "../raceid.js";
import { createMissing, showMissing } from "../missing.js";
import { finishedText, showGo } from "../notices.js";
import { createResults, paintResults } from "../results.js";
import { SeatLock } from "../seatlock.js";
import { GameSession } from "../session.js";
import { announce, copyText, el, hideToast, isolated, metaLine, toast, translate } from "../ui.js";
import { safeStorage as storage } from "../storage.js";
import { fetchReview } from "../reviews.js";
import { finishedBetween, initial, myProgress, phaseAt, reduce, seatGame, stillPlaying, toReview } from "./race_state.js";

export { phaseAt };

/**
 * @typedef {import("./race_state.js").RaceState} RaceState
 * @typedef {import("./race_state.js").Race} Race
 * @typedef {import("./race_state.js").Racer} Racer
 * @typedef {import("./race_state.js").SeatBoard} SeatBoard
 * @typedef {import("./race_state.js").Msg} Msg
 * @typedef {import("./app.js").App} App
 */

/** The idle warning shows in the last minute before the server takes a racer out for not moving (a move
 * pushes `out_at` back, and the warning goes away). */
const IDLE_WARN_MS = 60_000;
const NAME_KEY = "golfrace.name";

/** @param {string} id */
export function raceLink(id) {
  return `${location.origin}/r/${id}`;
}

export function playerName() {
  return storage()?.getItem(NAME_KEY) ?? "";
}

/** @param {App} app @returns {import("./app.js").View} */
export function createRaceView(app) {
  const root = el(`
    <section class="view race-view">
      <form class="panel race-create" novalidate>
        <h1 data-t="ui.race_create_title"></h1>
        <label class="field-label" for="race-name" data-t="ui.your_name"></label>
        <input id="race-name" name="name" maxlength="24" autocomplete="nickname">
        <label class="field-label" for="race-code" data-t="ui.code_label"></label>
        <input id="race-code" name="code" dir="ltr" autocomplete="off" spellcheck="false" placeholder="GO1-E-ABCDEFG" aria-describedby="race-code-help race-code-error">
        <p id="race-code-help" class="help" data-t="ui.race_code_help"></p>
        <p id="race-code-error" class="field-error" role="alert" hidden></p>
        <fieldset class="rules-choice">
          <legend data-t="ui.rules_label"></legend>
          <label class="choice"><input type="radio" name="rules" value="easy" checked><span><b data-t="ui.rules_easy"></b><small data-t="ui.rules_easy_hint"></small></span></label>
          <label class="choice"><input type="radio" name="rules" value="classic"><span><b data-t="ui.rules_classic"></b><small data-t="ui.rules_classic_hint"></small></span></label>
        </fieldset>
        <div class="row">
          <label class="switch"><input type="checkbox" name="undo" checked><span><b data-t="ui.race_undo"></b></span></label>
          <label class="select-field"><span data-t="ui.time_limit"></span>
            <select name="limit"><option value="0" data-t="ui.no_limit"></option><option value="180">3:00</option><option value="300">5:00</option><option value="600">10:00</option></select>
          </label>
        </div>
        <div class="dlg-actions"><button type="submit" class="btn primary create" data-t="ui.create_race"></button></div>
      </form>
      <form class="panel race-join" novalidate>
        <h2 data-t="ui.join_title"></h2>
        <label class="field-label" for="race-join-id" data-t="ui.join_label"></label>
        <div class="share-row">
          <input id="race-join-id" name="race" dir="ltr" autocomplete="off" spellcheck="false" aria-describedby="race-join-error">
          <button type="submit" class="btn primary" data-t="ui.join"></button>
        </div>
        <p id="race-join-error" class="field-error" role="alert" hidden></p>
      </form>
      <div class="race-room" hidden>
        <div class="panel race-head">
          <div>
            <h1 class="race-title"></h1>
            <p class="race-meta"></p>
          </div>
          <div class="share" hidden>
            <span class="label" data-t="ui.share_link"></span>
            <div class="share-row"><bdi class="code link" dir="ltr"></bdi><button type="button" class="btn copy-link" data-t="ui.copy_link"></button></div>
          </div>
          <div class="watchers" hidden><span class="label" data-t="ui.watching"></span><b class="watch-n" dir="ltr">0</b></div>
        </div>
        <div class="countdown" aria-live="assertive" hidden></div>
        <p class="panel idle-out" role="status" data-t="ui.idle_out" hidden></p>
        <div class="race-body">
          <ol class="racers" aria-live="off"></ol>
          <div class="race-board">
            <div class="hud race-hud" hidden>
              <div class="stats">
                <div class="stat"><span class="label" data-t="ui.score"></span><span class="value score" dir="ltr">0</span></div>
                <div class="stat"><span class="label" data-t="ui.moves"></span><span class="value moves" dir="ltr">0</span></div>
                <div class="stat"><span class="label" data-t="ui.time"></span><span class="value elapsed" dir="ltr">0:00</span></div>
              </div>
              <div class="actions">
                <button type="button" class="btn undo"><span data-t="ui.undo"></span></button>
                <button type="button" class="btn resign" data-t="ui.resign"></button>
              </div>
            </div>
            <p class="idle-warn" role="alert" dir="auto" hidden></p>
            <div class="my-end panel" role="status" hidden>
              <h2 data-t="ui.your_result"></h2>
              <p class="my-end-line"></p>
              <p class="my-end-wait" data-t="ui.waiting_others"></p>
            </div>
            <div class="board-slot"></div>
            <div class="lobby-actions" hidden>
              <form class="rename" novalidate hidden>
                <label class="field-label" for="race-rename" data-t="ui.your_name"></label>
                <div class="share-row"><input id="race-rename" name="name" maxlength="24" autocomplete="nickname"><button type="submit" class="btn" data-t="ui.set_name"></button></div>
              </form>
              <div class="ranked-slot" hidden></div>
              <p class="waiting" data-t="ui.waiting_host"></p>
              <button type="button" class="btn primary start" data-t="ui.start"></button>
              <button type="button" class="btn leave" data-t="ui.leave"></button>
            </div>
          </div>
        </div>
      </div>
    </section>`);
  const q = (s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const form = /** @type {HTMLFormElement} */ (q(".race-create"));
  const field = (/** @type {HTMLFormElement} */ f, /** @type {string} */ name) =>
    /** @type {HTMLInputElement} */ (f.elements.namedItem(name));
  const results = createResults();
  results.querySelector(".dlg-actions").append(
    el(`<button type="button" class="btn rematch" data-t="ui.rematch"></button>`),
    el(`<a class="btn watch-replay" data-t="ui.replay"></a>`),
  );
  const resultNotice = el(`<div class="ranked-slot" hidden></div>`); // accounts: only accounts are ranked
  results.querySelector(".dlg-actions").before(resultNotice);
  q(".race-room").append(results);
  const room = q(".race-room");
  const missing = createMissing(); // in the room's place, for a race that does not exist
  room.before(missing);
  /** @type {RaceState} */
  let state = initial();
  /** What the page last painted (DOM only): the board, the race, and the phase ("Go!" when it turns). */
  const painted = {
    mine: /** @type {SeatBoard | null} */ (null),
    race: /** @type {Race | null} */ (null),
    marks: /** @type {RaceState["marks"] | null} */ (null),
    phase: null,
  };
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  /** @type {Element | null} */
  let lastTapped = null;

  const board = new Board({
    onTap: (col, row, cardEl) => {
      lastTapped = cardEl;
      act("tap", col, row);
    },
    onDraw: () => act("draw"),
  });
  q(".board-slot").append(board.el);
  // my seat: an ordinary game, opened once the race has started (the lobby has no seat games)
  const seat = new GameSession(app.conn, {
    onChange: (shown, change, diff) => update({ t: "view/seat", state: shown, change, diff }),
    onRefused: (m) => refused(m),
    onError: (m) => seatError(m) && toast(errorText(m.code, m.params), "error"),
  });
  const lock = new SeatLock(app.conn, q(".race-board"), seat);

  /** Every message goes through here: the new state, what it asks for, then the page. */
  function update(/** @type {Msg} */ msg) {
    const before = state;
    state = reduce(state, msg);
    if (state === before) return;
    follow(before, state);
    render();
  }

  /** What a change of state asks for beyond the page itself: go somewhere, open the seat, tell something. */
  function follow(/** @type {RaceState} */ before, /** @type {RaceState} */ after) {
    if (after.created && after.created !== before.created) app.navigate(`#/race/${after.created}`);
    if (after.spectator && !before.spectator) app.redirect(`#/watch/${after.raceId}`);
    if (after.error && after.error !== before.error) toast(errorText(after.error.code, after.error.params), "error");
    const game = seatGame(after);
    if (game && seat.gameId !== game) {
      seat.switchTo(game, "player"); // once; a reconnect opens it again by itself
      seat.open(game, "player");
    }
    const mySeat = after.race?.racers.find((r) => r.player === app.player())?.seat ?? null;
    for (const r of finishedBetween(before, after, mySeat)) toast(finishedText(r));
    if (after.mine !== before.mine && after.mineChange?.change !== "snapshot") {
      // only what changed; B reads the whole board
      announce(describeChange(before.mine, after.mine, after.mineChange.diff, locale()) ?? describeState(after.mine, locale()));
      hideToast("refusal"); // an explanation of an earlier refusal is stale once a move went through
    }
    if (after.ended !== before.ended) toast(after.mine.status === "stuck" ? t("stuck") : statusText(after.mine.status));
    // a ranked race's end: whether my result is held for review (my record's verdict; one request per racer,
    // not one per row and page). A daily attempt's verdict, and whether it came late, are in the day's status:
    // its end dialog asks for it when this page saw the attempt played; asked here when the page came later.
    const mySeatNo = after.race?.you?.seat;
    const rows = toReview(before.race, after.race).filter(([s]) => s === mySeatNo);
    if (rows.length && after.race.daily) {
      if (!before.race) app.conn.send({ t: "daily" });
    } else {
      const race = after.race?.race;
      for (const [seatNo, game] of rows) {
        fetchReview(game).then((review) => review !== undefined && update({ t: "view/review", race, seat: seatNo, review }));
      }
    }
  }

  // --- create -------------------------------------------------------------------------------------------
  field(form, "name").value = playerName();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = field(form, "name").value.trim();
    storage()?.setItem(NAME_KEY, name);
    const codeText = field(form, "code").value.trim();
    const error = q("#race-code-error");
    /** @type {Record<string, any>} */
    const msg = { t: "race_new", undo: field(form, "undo").checked, limit: Number(field(form, "limit").value) };
    if (name) msg.name = name;
    if (codeText) {
      const r = checkCode(codeText);
      if (!r.ok) {
        error.textContent = t(`ui.code_errors.${r.part}`);
        error.hidden = false;
        return;
      }
      msg.code = r.code;
    } else {
      msg.rules = /** @type {HTMLInputElement} */ (form.querySelector("input[name=rules]:checked")).value;
    }
    error.hidden = true;
    update({ t: "view/create" });
    msg.rid = state.awaiting;
    app.conn.sendSoon(msg);
  });

  // --- join by link or id ----------------------------------------------------------------------------------
  const joinForm = /** @type {HTMLFormElement} */ (q(".race-join"));
  joinForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const input = field(joinForm, "race");
    const id = raceIdFrom(input.value);
    const error = q("#race-join-error");
    error.hidden = Boolean(id);
    input.setAttribute("aria-invalid", id ? "false" : "true");
    if (!id) {
      error.textContent = t("ui.join_error");
      input.focus();
      return;
    }
    input.value = "";
    app.navigate(`#/race/${id}`);
  });

  // --- the room -----------------------------------------------------------------------------------------
  function join() {
    if (!state.raceId || !app.conn.ready) return;
    /** @type {Record<string, any>} */
    const msg = { t: "race_join", race: state.raceId };
    const name = playerName();
    if (name) msg.name = name;
    app.conn.send(msg);
  }

  // a racer in the lobby may name themselves (a guest who came by link has no name yet): race_join again
  // with the name, which the server takes as a rename of the seat
  const rename = /** @type {HTMLFormElement} */ (q(".rename"));
  const renameField = field(rename, "name");
  rename.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = renameField.value.trim();
    if (!name || !state.raceId) return;
    storage()?.setItem(NAME_KEY, name);
    field(form, "name").value = name;
    app.conn.send({ t: "race_join", race: state.raceId, name });
  });

  function renderRename(/** @type {boolean} */ lobby) {
    rename.hidden = !lobby || !state.race.you;
    const me = myProgress(state);
    if (!rename.hidden && document.activeElement !== renameField) renameField.value = me?.name ?? "";
  }

  function act(/** @type {string} */ a, col = null, row = null) {
    if (!state.raceId || !state.race || state.race.phase === "lobby" || !seat.gameId) return; // the board may still be on its way
    if (!lock.allows()) return; // offline with a move already waiting: the board is locked
    seat.act(a, col, row);
    lock.paint();
  }

  function leaveSeat() {
    if (seat.gameId) app.conn.send({ t: "close", game: seat.gameId });
    seat.gameId = null;
    seat.state = null;
    seat.pending.clear();
    seat.resends.clear();
    lock.paint();
  }

  /** An error about my seat (a move, or opening or resyncing it); the session sees every error. */
  function seatError(m) {
    if (!seat.gameId || !state.raceId) return false;
    return typeof m.ref === "number" || (["open", "resync"].includes(m.ref) && m.params?.game === seat.gameId);
  }

  /** A refused move: the reason, and the tapped card shakes (feedback on the tap, no state of the view). */
  function refused(m) {
    if (!settings.interactive) return;
    toast(errorText(m.code, m.params), "refusal");
    if (lastTapped) board.shake(lastTapped);
    lastTapped = null;
  }

  /** @type {(() => void)[]} */
  const offs = [];
  function listen() {
    offs.push(
      app.conn.on("race", (m) => update({ ...m, t: "race" })),
      app.conn.on("race_progress", (m) => update({ ...m, t: "race_progress" })),
      app.conn.on("watchers", (m) => update({ ...m, t: "watchers" })),
      app.conn.on("error", (m) => update({ ...m, t: "error" })),
      app.conn.on("daily", (m) => update({ ...m, t: "daily" })),
      app.conn.on("ready", () => join()),
      lock.listen(),
    );
  }

  /** The page from the state: my board when it changed, the race's parts when the race did, the rest always. */
  function render() {
    if (state.mine !== painted.mine) paintBoard();
    const { race } = state;
    if (state.missing) {
      room.hidden = true; // a dead link or a mistyped id: say so in the page, with the ways on
      showMissing(missing, state.missing);
    }
    if (race && (race !== painted.race || state.marks !== painted.marks)) {
      painted.race = race;
      painted.marks = state.marks;
      renderHead();
      renderRacers();
      const host = race.host === app.player();
      const lobby = race.phase === "lobby";
      q(".lobby-actions").hidden = !lobby;
      q(".start").hidden = !host;
      q(".waiting").hidden = host;
      rankedNotice(q(".lobby-actions .ranked-slot"), { ranked: race.ranked && lobby });
      renderRename(lobby);
      renderResults();
    }
    if (!race && !state.mine) return; // nothing to show yet (or no such race)
    renderControls(); // the board may come before or after the race's own message: both re-check
    if (!race) return;
    tickCountdown();
    const ticking = race.phase === "countdown" || race.phase === "running";
    if (ticking && timer === null) timer = setInterval(tickCountdown, 200);
    if (!ticking) stopTimer();
  }

  function stopTimer() {
    clearInterval(timer);
    timer = null;
  }

  function paintBoard() {
    const { mine, mineChange } = state;
    painted.mine = mine;
    lock.paint();
    if (!mine) return;
    board.render(mine, mineChange?.change ?? "snapshot", mineChange?.diff ?? null, locale());
    q(".score").textContent = String(mine.score);
    q(".moves").textContent = String(mine.moves);
    room.dataset.v = String(mine.v);
    room.dataset.status = mine.status;
  }

  /** The board, HUD, Undo and Resign from what is known now. */
  function renderControls() {
    const { race, mine } = state;
    const me = race?.you;
    const lobby = !race || race.phase === "lobby";
    const playing = stillPlaying(state);
    // my game over while the others play: no big empty tableau between me and their progress
    const waiting = Boolean(mine) && !playing && race?.phase !== "finished";
    q(".board-slot").hidden = Boolean(race) && (lobby || !me || waiting);
    q(".race-hud").hidden = lobby || !me || !mine;
    q(".resign").hidden = !me || !mine || !playing;
    q(".undo").hidden = !playing; // nothing left to undo once my game is over
    /** @type {HTMLButtonElement} */ (q(".undo")).disabled = !mine?.can_undo || !(race?.options?.undo ?? true) || !playing;
    renderClock();
    renderMyEnd();
    renderIdle();
  }

  /** A racer still playing whom the server will take out for not moving: a warning with the time left, in
   * the last minute; once taken out, a line that says why. */
  function renderIdle() {
    const me = myProgress(state);
    q(".idle-out").hidden = me?.status !== "abandoned";
    const warn = q(".idle-warn");
    const left = me?.out_at == null ? null : me.out_at - app.conn.serverNow();
    const show = left != null && left <= IDLE_WARN_MS && stillPlaying(state);
    warn.hidden = !show;
    if (!show) return;
    const text = t("ui.idle_warning", { time: clock(Math.ceil(Math.max(0, left) / 1000) * 1000) });
    if (warn.textContent !== text) warn.textContent = text;
  }

  /** My own game is over while the race goes on: my result, and that we wait for the others (whose
   * progress stays live beside it) until the results table comes. */
  function renderMyEnd() {
    const box = q(".my-end");
    const { race } = state;
    const me = myProgress(state) ?? state.mine; // a resignation changes my progress, not my board
    const done = Boolean(race?.you && me && me.status !== "playing");
    box.hidden = !done || race.phase === "finished";
    if (box.hidden) return;
    const bits = [statusText(me.status), `${t("ui.score")} ${me.score ?? 0}`, `${t("ui.moves")} ${me.moves ?? 0}`];
    q(".my-end-line").textContent = bits.join(" · ");
  }

  /** Nothing of the previous race stays on screen while the next one loads. */
  function clearRoom() {
    stopTimer();
    painted.race = null;
    painted.mine = null;
    q(".results").hidden = true;
    q(".my-end").hidden = true;
    q(".idle-warn").hidden = true;
    q(".idle-out").hidden = true;
    q(".board-slot").hidden = true;
    q(".race-hud").hidden = true;
    q(".elapsed").textContent = clock(0);
    q(".racers").replaceChildren();
    q(".race-title").textContent = "";
    q(".race-meta").textContent = "";
    q(".share").hidden = true;
    q(".countdown").hidden = true;
    q(".race-missing").hidden = true;
    room.removeAttribute("data-phase");
    room.removeAttribute("data-v");
  }

  function renderHead() {
    const { race } = state;
    app.highlight(race.daily ? "daily" : "race");
    app.retitle(race.daily ? "ui.daily_title" : "ui.nav_race");
    const kind = race.daily ? t("ui.daily_title") : t("ui.race");
    q(".race-title").textContent = race.daily ? `${kind} · ${race.daily}` : kind;
    const bits = [t(race.rules === "classic" ? "ui.rules_classic" : "ui.rules_easy")];
    bits.push(race.ranked ? t("ui.ranked") : t("ui.casual"));
    if (race.options?.limit) bits.push(`${t("ui.time_limit")} ${clock(race.options.limit * 1000)}`);
    metaLine(q(".race-meta"), bits, race.code);
    const share = q(".share");
    share.hidden = race.phase !== "lobby" || Boolean(race.daily);
    q(".share .link").textContent = raceLink(race.race);
    q(".watchers").hidden = race.watchers == null;
    q(".watch-n").textContent = String(race.watchers ?? 0);
  }

  function renderRacers() {
    const { race } = state;
    const list = q(".racers");
    list.replaceChildren();
    for (const r of race.racers ?? []) {
      const li = document.createElement("li");
      li.className = "racer";
      if (race.you && r.seat === race.you.seat) li.classList.add("me");
      li.dataset.seat = String(r.seat);
      li.dataset.status = r.status;
      const pct = Math.round((100 * (r.removed ?? 0)) / TABLEAU);
      const name = racerName(r);
      li.innerHTML = `
        <div class="racer-line"><span class="racer-name"></span><span class="racer-score" dir="ltr"></span></div>
        <div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="${TABLEAU}" aria-valuenow="${r.removed ?? 0}"><span style="width:${pct}%"></span></div>
        <div class="racer-sub"></div>`;
      li.querySelector(".racer-name").replaceChildren(isolated(name), r.player === race.host ? " ★" : "");
      li.querySelector(".racer-score").textContent = race.phase === "lobby" ? "" : String(r.score ?? 0);
      li.querySelector(".bar").setAttribute("aria-label", `${name}: ${r.removed ?? 0}/${TABLEAU}`);
      li.querySelector(".racer-sub").textContent = racerSub(r);
      list.append(li);
    }
  }

  function racerSub(/** @type {Racer} */ r) {
    if (state.race.phase === "lobby") return "";
    return progressLine(state.race, r, app.conn.serverNow());
  }

  /** The times of the racers still playing run between their moves. */
  function tickRacers() {
    for (const r of state.race.racers ?? []) {
      const sub = q(`.racer[data-seat="${r.seat}"] .racer-sub`);
      const text = racerSub(r);
      if (sub && sub.textContent !== text) sub.textContent = text;
    }
  }

  function tickCountdown() {
    const box = q(".countdown");
    const { race } = state;
    if (!race) return;
    const now = app.conn.serverNow();
    const phase = phaseAt(race, now);
    if (painted.phase === "countdown" && phase === "running") showGo(room); // "Go!" as the countdown ends
    painted.phase = phase;
    room.dataset.phase = phase;
    if (phase === "countdown") {
      const n = Math.max(1, Math.ceil((race.starts_at - now) / 1000));
      box.hidden = false;
      const text = t("ui.starting_in", { n });
      if (box.textContent !== text) box.textContent = text;
    } else {
      box.hidden = true;
    }
    renderClock();
    renderIdle();
    tickRacers();
  }

  /** The HUD's time: running while I play, else my final time from my progress (as the results show it). */
  function renderClock() {
    const { race, mine } = state;
    if (!race?.starts_at || !mine) return;
    let elapsed = stillPlaying(state) ? Math.max(0, app.conn.serverNow() - race.starts_at) : myProgress(state)?.elapsed;
    if (elapsed != null && race.deadline) elapsed = Math.min(elapsed, race.deadline - race.starts_at);
    q(".elapsed").textContent = clock(elapsed, { final: !stillPlaying(state) });
  }

  function renderResults() {
    const { race } = state;
    paintResults(results, race, race.you?.seat ?? null, state.marks);
    if (race.phase !== "finished") return;
    q(".rematch").hidden = !race.you || Boolean(race.daily);
    q(".rematch").textContent = race.rematch ? t("ui.join_rematch") : t("ui.rematch");
    const replay = /** @type {HTMLAnchorElement} */ (q(".watch-replay"));
    replay.href = `#/watch/${race.race}`;
    // a replay reads the seats' records, which the server gives once the code is public (a daily attempt's
    // only after its day): before that the link would lead to a replay with nothing to play
    replay.hidden = race.code == null;
    rankedNotice(resultNotice, { ranked: race.ranked });
  }

  let focusOnMount = null; // the field the missing race's link leads to
  q(".missing-create").addEventListener("click", () => (focusOnMount = "#race-name"));
  q(".missing-join").addEventListener("click", () => (focusOnMount = "#race-join-id"));

  q(".copy-link").addEventListener("click", async () => {
    const { race } = state;
    if (race && (await copyText(raceLink(race.race)))) toast(t("ui.copied"));
  });
  q(".start").addEventListener("click", () => app.conn.sendSoon({ t: "race_start", race: state.raceId }));
  q(".leave").addEventListener("click", () => {
    app.conn.send({ t: "race_leave", race: state.raceId });
    app.navigate("#/race");
  });
  q(".undo").addEventListener("click", () => act("undo"));
  q(".resign").addEventListener("click", async () => {
    const id = state.raceId;
    if (!(await confirmDialog("ui.resign_confirm", "ui.resign"))) return;
    if (id === state.raceId && state.race?.phase !== "finished") app.conn.sendSoon({ t: "race_resign", race: id });
  });
  q(".rematch").addEventListener("click", () => {
    if (state.race?.rematch) app.navigate(`#/race/${state.race.rematch}`);
    else {
      update({ t: "view/rematch" });
      app.conn.sendSoon({ t: "race_rematch", race: state.raceId });
    }
  });

  const onKey = boardKeys({
    tap: (col) => {
      lastTapped = board.columns[col - 1].lastElementChild;
      act("tap", col);
    },
    draw: () => act("draw"),
    undo: () => act("undo"),
    read: () => state.mine && announce(describeState(state.mine, locale())),
  });

  return {
    root,
    title: "ui.nav_race",
    mount(params) {
      translate(root);
      listen();
      document.addEventListener("keydown", onKey);
      const next = params?.id ?? null;
      const { raceId } = state;
      if (raceId && raceId !== next) app.conn.send({ t: "unwatch", race: raceId }); // stop following it
      if (raceId !== next) leaveSeat();
      state = reduce(state, { t: "view/mount", race: next });
      clearRoom();
      form.hidden = Boolean(next);
      joinForm.hidden = Boolean(next);
      q("#race-join-error").hidden = true;
      room.hidden = !next;
      if (next) join();
      else if (focusOnMount) q(focusOnMount).focus();
      focusOnMount = null;
    },
    unmount() {
      dismissConfirm(); // "Resign?" must not outlive the race view (Back while it is open)
      if (state.raceId) app.conn.send({ t: "unwatch", race: state.raceId }); // a connection follows at most 16 races
      leaveSeat();
      for (const off of offs.splice(0)) off();
      document.removeEventListener("keydown", onKey);
      stopTimer();
    },
    relabel() {
      translate(root);
      painted.race = null; // every text again, in the new language
      if (state.race) render();
      if (state.mine) board.relabel(locale());
    },
  };
}
