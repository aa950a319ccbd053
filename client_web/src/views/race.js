// @ts-check
// Race: create one, the lobby with its share link, the countdown, your board and everyone's progress, the
// results with par, and the rematch. The daily challenge is a one-seat race and is played here too.
// Your board is your seat, an ordinary game (`<race>-<seat>`) played through the same GameSession as Play:
// open, act with seq, resync, and a move made while offline is sent again once the connection is back.
// The view's state and its changes are race_state.js; this module only wires them to the page.
import { rankedNotice } from "../features/account.js";
import { Board } from "../ui/board.js";
import { checkCode } from "../game/codes.js";
import { describeChange } from "../ui/announce.js";
import { describeState } from "../ui/describe.js";
import { TABLEAU, clock, progressLine, statusText } from "../ui/format.js";
import { errorText, locale, t } from "../ui/i18n.js";
import { boardKeys } from "../ui/keys.js";
import { settings } from "../ui/settings.js";
import { botBadge, racerName } from "../ui/names.js";
import { quickRaceBar } from "../features/quickrace.js";
import { confirmDialog, dismissConfirm } from "../ui/confirm.js";
import { raceIdFrom } from "../net/raceid.js";
import { createMissing, showMissing } from "../features/missing.js";
import { finishedText, hideGo, showGo } from "../ui/notices.js";
import { createResults, paintResults, rankable } from "../features/results.js";
import { seatFollower } from "../features/followseat.js";
import { createRivals } from "./rivals.js";
import { SeatLock } from "../ui/seatlock.js";
import { GameSession } from "../features/session.js";
import { announce, copyText, el, hideToast, isolated, metaLine, toast, translate } from "../ui/ui.js";
import { safeStorage as storage } from "../net/storage.js";
import { fetchReview } from "../features/reviews.js";

/** How often (ms) and how many times a result pending its knowledge review is asked about again. */
const PENDING_MS = 3000;
const PENDING_TRIES = 60;
import { finishedBetween, initial, myProgress, phaseAt, reduce, seatGame, stillPlaying, toReview } from "./race_state.js";
import { RULE } from "../net/messages.js";
import { loop } from "../ui/loop.js";

export { phaseAt };

/**
 * @typedef {import("./race_state.js").RaceState} RaceState
 * @typedef {import("./race_state.js").Race} Race
 * @typedef {import("./race_state.js").Racer} Racer
 * @typedef {import("./race_state.js").SeatBoard} SeatBoard
 * @typedef {import("./race_state.js").Msg} Msg
 * @typedef {import("../ui/app.js").App} App
 * @typedef {import("../net/messages.js").ErrorMessage} ErrorMessage
 * @typedef {import("../features/session.js").Message} SessionMessage
 * @typedef {import("../net/messages.js").RaceMessage} RaceMessage
 * @typedef {import("../net/messages.js").RaceProgressMessage} RaceProgressMessage
 * @typedef {import("../net/messages.js").RaceWatchMessage} RaceWatchMessage
 * @typedef {import("../net/messages.js").RaceBoardMessage} RaceBoardMessage
 * @typedef {import("../net/messages.js").WatchersMessage} WatchersMessage
 * @typedef {import("../net/messages.js").DailyMessage} DailyMessage
 * @typedef {import("../net/messages.js").PoolResultMessage} PoolResultMessage
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

/** The name this player races under, kept for the next race. @param {string} name */
export function savePlayerName(name) {
  storage()?.setItem(NAME_KEY, name);
}

/** @param {App} app @returns {import("../ui/app.js").View} */
export function createRaceView(app) {
  const root = el(`
    <section class="view race-view">
      <form class="panel race-create" novalidate>
        <h1 data-t="ui.race_create_title"></h1>
        <label class="field-label" for="race-name" data-t="ui.your_name"></label>
        <input id="race-name" name="name" data-bound="name_max" autocomplete="nickname">
        <label class="field-label" for="race-code" data-t="ui.code_label"></label>
        <input id="race-code" name="code" dir="ltr" autocomplete="off" spellcheck="false" placeholder="GO1-E-ABCDEFG" aria-describedby="race-code-help race-code-error">
        <p id="race-code-help" class="help" data-t="ui.race_code_help"></p>
        <p id="race-code-error" class="field-error" role="alert" hidden></p>
        <fieldset class="rules-choice">
          <legend data-t="ui.rules_label"></legend>
          <label class="choice"><input type="radio" name="rules" value="${RULE.EASY}" checked><span><b data-t="ui.rules_easy"></b><small data-t="ui.rules_easy_hint"></small></span></label>
          <label class="choice"><input type="radio" name="rules" value="${RULE.CLASSIC}"><span><b data-t="ui.rules_classic"></b><small data-t="ui.rules_classic_hint"></small></span></label>
        </fieldset>
        <p class="help race-ranked-help" data-t="ui.race_ranked_help"></p>
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
        <p class="panel idle-out" role="status" data-t="ui.idle_out" hidden></p>
        <div class="race-body">
          <ol class="racers" aria-live="off"></ol>
          <div class="race-board">
            <div class="hud race-hud" hidden>
              <div class="countdown" aria-live="assertive" hidden></div>
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
                <div class="share-row"><input id="race-rename" name="name" data-bound="name_max" autocomplete="nickname"><button type="submit" class="btn" data-t="ui.set_name"></button></div>
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
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const form = /** @type {HTMLFormElement} */ (q(".race-create"));
  const field = (/** @type {HTMLFormElement} */ f, /** @type {string} */ name) =>
    /** @type {HTMLInputElement} */ (f.elements.namedItem(name));
  const results = createResults();
  const resultActions = /** @type {HTMLElement} */ (results.querySelector(".dlg-actions"));
  resultActions.append(
    el(`<button type="button" class="btn rematch" data-t="ui.rematch"></button>`),
    el(`<a class="btn watch-replay" data-t="ui.replay"></a>`),
    el(`<a class="btn analyse-seat" data-t="ui.analysis.open"></a>`),
  );
  const resultNotice = el(`<div class="ranked-slot" hidden></div>`); // accounts: only accounts are ranked
  resultActions.before(resultNotice);
  // quick races: the rating change, then "Race again"; other races: "Race now" with strangers
  const ratingLine = el(`<p class="rating-change" data-testid="rating-change" role="status" hidden></p>`);
  const againSlot = el(`<div class="qr-slot"></div>`);
  resultActions.before(ratingLine);
  resultActions.after(againSlot);
  /** @type {string | null} the race whose rating line and bar are painted */
  let ratedFor = null;
  q(".race-room").append(results);
  const room = q(".race-room");
  const rivals = createRivals(); // the others' boards once my game is over and theirs go on
  q(".my-end").after(rivals.root);
  let watchAsked = false; // `watch` sent for those boards (again after a reconnect: race_join replaces it)
  const missing = createMissing(); // in the room's place, for a race that does not exist
  room.before(missing);
  /** What the page last painted (DOM only): the board, the race, and the phase ("Go!" when it turns). */
  const painted = {
    mine: /** @type {SeatBoard | null} */ (null),
    race: /** @type {Race | null} */ (null),
    marks: /** @type {RaceState["marks"] | null} */ (null),
    phase: /** @type {string | null} */ (null),
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

  /** Every message goes through the one loop: the new state, what it asks for (`follow`), then the page. A
   * new route (`view/mount`) asks for nothing and paints nothing: `mount` clears the page itself. */
  /** @type {import("../ui/loop.js").Loop<RaceState, Msg>} */
  const view = loop({
    initial: initial(),
    reduce,
    effects: follow,
    render,
    quiet: (msg) => msg.t === "view/mount",
  });
  const update = view.update;

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
    // my game is over (as the server says: my progress) and the others play on: their boards, live
    const progress = myProgress(after);
    const over = progress && progress.status !== "playing";
    if (over && after.race?.phase === "running" && !watchAsked && app.conn.ready) {
      watchAsked = app.conn.send({ t: "watch", race: after.raceId });
    }
    if (after.mine !== before.mine && after.mineChange?.change !== "snapshot") {
      // only what changed; B reads the whole board (a board shown comes with how it changed: never one alone)
      const mine = /** @type {SeatBoard} */ (after.mine);
      const { diff } = /** @type {NonNullable<RaceState["mineChange"]>} */ (after.mineChange);
      announce(describeChange(before.mine, mine, diff, locale()) ?? describeState(mine, locale()));
      hideToast("refusal"); // an explanation of an earlier refusal is stale once a move went through
    }
    if (after.ended !== before.ended) {
      const { status } = /** @type {SeatBoard} */ (after.mine); // an end is told of a board shown
      toast(status === "stuck" ? t("stuck") : statusText(status));
    }
    // a ranked race's end: whether my result is held for review (my record's verdict; one request per racer,
    // not one per row and page). A daily attempt's verdict, and whether it came late, are in the day's status:
    // its end dialog asks for it when this page saw the attempt played; asked here when the page came later.
    const mySeatNo = after.race?.you?.seat;
    const rows = toReview(before.race, after.race).filter(([s]) => s === mySeatNo);
    if (rows.length && after.race?.daily) {
      if (!before.race) app.conn.send({ t: "daily" });
    } else {
      const race = /** @type {string} */ (after.race?.race); // rows to review: a race there
      for (const [seatNo, game] of rows) askReview(race, seatNo, game, 0);
    }
    // a result pending its knowledge review: ask again until it has a verdict
    const mark = mySeatNo == null ? null : after.marks[mySeatNo];
    if (mark?.review === "pending" && !(before.marks[/** @type {number} */ (mySeatNo)] ?? {}).review && after.race?.daily) {
      pendingDaily(0);
    }
  }

  /** My record's review verdict, asked again every `PENDING_MS` while it is pending (at most `PENDING_TRIES`). */
  function askReview(/** @type {string} */ race, /** @type {number} */ seatNo, /** @type {string} */ game, tries = 0) {
    fetchReview(game).then((review) => {
      if (review === undefined) return;
      update({ t: "view/review", race, seat: seatNo, review });
      if (review === "pending" && tries < PENDING_TRIES && view.state().race?.race === race) {
        setTimeout(() => askReview(race, seatNo, game, tries + 1), PENDING_MS);
      }
    });
  }

  /** The day's status asked again while my ranked attempt's result is pending its review. */
  function pendingDaily(tries = 0) {
    setTimeout(() => {
      const state = view.state();
      const mySeatNo = state.race?.you?.seat;
      if (mySeatNo == null || state.marks[mySeatNo]?.review !== "pending" || tries >= PENDING_TRIES) return;
      app.conn.send({ t: "daily" });
      pendingDaily(tries + 1);
    }, PENDING_MS);
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
    msg.rid = view.state().awaiting;
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
    const state = view.state();
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
    const state = view.state();
    if (!name || !state.raceId) return;
    storage()?.setItem(NAME_KEY, name);
    field(form, "name").value = name;
    app.conn.send({ t: "race_join", race: state.raceId, name });
  });

  function renderRename(/** @type {Race} */ race, /** @type {boolean} */ lobby) {
    const state = view.state();
    rename.hidden = !lobby || !race.you;
    const me = myProgress(state);
    if (!rename.hidden && document.activeElement !== renameField) renameField.value = me?.name ?? "";
  }

  function act(/** @type {string} */ a, /** @type {number | null} */ col = null, /** @type {number | null} */ row = null) {
    const state = view.state();
    if (!state.raceId || !state.race || state.race.phase === "lobby" || !seat.gameId) return; // the board may still be on its way
    if (!lock.allows()) {
      // offline with a move already waiting: the board is locked, and says so (never a silent drop)
      toast(t("ui.offline_one_move"), "refusal");
      announce(t("ui.offline_one_move"));
      return;
    }
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
  function seatError(/** @type {SessionMessage} */ m) {
    if (!seat.gameId || !view.state().raceId) return false;
    return typeof m.ref === "number" || (["open", "resync"].includes(m.ref) && m.params?.game === seat.gameId);
  }

  /** A refused move: the reason, and the tapped card shakes (feedback on the tap, no state of the view). */
  function refused(/** @type {SessionMessage} */ m) {
    if (!settings.interactive) return;
    toast(errorText(m.code, m.params), "refusal");
    if (lastTapped) board.shake(lastTapped);
    lastTapped = null;
  }

  /** @type {(() => void)[]} */
  const offs = [];
  function listen() {
    offs.push(
      app.conn.on("race", (/** @type {RaceMessage} */ m) => {
        rivals.update({ ...m, t: "race" });
        update({ ...m, t: "race" });
      }),
      app.conn.on("race_progress", (/** @type {RaceProgressMessage} */ m) => {
        if (rivals.update({ ...m, t: "race_progress" })) renderRivals();
        update({ ...m, t: "race_progress" });
      }),
      app.conn.on("race_watch", (/** @type {RaceWatchMessage} */ m) => rivals.update({ ...m, t: "race_watch" }) && renderRivals()),
      app.conn.on("race_board", (/** @type {RaceBoardMessage} */ m) => rivals.update({ ...m, t: "race_board" }) && renderRivals()),
      app.conn.on("watchers", (/** @type {WatchersMessage} */ m) => update({ ...m, t: "watchers" })),
      app.conn.on("error", (/** @type {ErrorMessage} */ m) => update({ ...m, t: "error" })),
      app.conn.on("daily", (/** @type {DailyMessage} */ m) => update({ ...m, t: "daily" })),
      app.conn.on("pool_result", (/** @type {PoolResultMessage} */ m) => ratingResult(m)),
      app.conn.on("ready", () => {
        watchAsked = false;
        join();
      }),
      lock.listen(),
    );
  }

  /** The page from the state: my board when it changed, the race's parts when the race did, the rest always. */
  function render() {
    const state = view.state();
    if (state.mine !== painted.mine) paintBoard();
    const { race } = state;
    if (state.missing) {
      room.hidden = true; // a dead link or a mistyped id: say so in the page, with the ways on
      showMissing(missing, state.missing);
    }
    if (race && (race !== painted.race || state.marks !== painted.marks)) {
      painted.race = race;
      painted.marks = state.marks;
      renderHead(race);
      renderRacers(race);
      const host = race.host === app.player();
      const lobby = race.phase === "lobby";
      q(".lobby-actions").hidden = !lobby;
      q(".start").hidden = !host;
      q(".waiting").hidden = host;
      // a guest's random race is casual (fair play 19.2: ranked races seat accounts): it says so too
      rankedNotice(q(".lobby-actions .ranked-slot"), { ranked: rankable(race) && lobby });
      renderRename(race, lobby);
      renderResults(race);
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
    clearInterval(timer ?? undefined);
    timer = null;
  }

  function paintBoard() {
    const state = view.state();
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
    const state = view.state();
    const { race, mine } = state;
    const me = race?.you;
    const lobby = !race || race.phase === "lobby";
    const playing = stillPlaying(state);
    // my game over while the others play: no big empty tableau between me and their progress
    const waiting = Boolean(mine) && !playing && race?.phase !== "finished";
    q(".board-slot").hidden = Boolean(race) && (lobby || !me || waiting);
    // the HUD is there from the countdown on (the countdown shows over it): the board under it never moves
    // (and gone while I wait for the others: my result says the same, and their boards take the room)
    q(".race-hud").hidden = lobby || !me || (!mine && race?.phase !== "countdown") || waiting;
    q(".resign").hidden = !me || !mine || !playing;
    q(".undo").hidden = !playing; // nothing left to undo once my game is over
    /** @type {HTMLButtonElement} */ (q(".undo")).disabled = !mine?.can_undo || !(race?.options?.undo ?? true) || !playing;
    renderClock();
    renderMyEnd();
    renderIdle();
    renderRivals();
  }

  /** The others' boards while I wait for them (not in the results: the replay has them). */
  function renderRivals() {
    const state = view.state();
    const { race, mine } = state;
    const waiting = Boolean(mine && race?.you) && !stillPlaying(state) && race?.phase !== "finished";
    rivals.paint(waiting, race?.you?.seat ?? null, app.conn.serverNow());
  }

  /** A racer still playing whom the server will take out for not moving: a warning with the time left, in
   * the last minute; once taken out, a line that says why. */
  function renderIdle() {
    const state = view.state();
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
    const state = view.state();
    const box = q(".my-end");
    const { race } = state;
    const me = myProgress(state) ?? state.mine; // a resignation changes my progress, not my board
    const done = Boolean(race?.you && me && me.status !== "playing");
    box.hidden = !done || race?.phase === "finished";
    if (done || race?.phase === "finished") hideGo(room); // my result, not "Go!" over it
    if (box.hidden || !me) return; // (done: there is a race, and my line)
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

  function renderHead(/** @type {Race} */ race) {
    // the app sets both once its views exist (before any is painted)
    /** @type {NonNullable<App["highlight"]>} */ (app.highlight)(race.daily ? "daily" : "race");
    /** @type {NonNullable<App["retitle"]>} */ (app.retitle)(race.daily ? "ui.daily_title" : "ui.nav_race");
    const kind = race.daily ? t("ui.daily_title") : t("ui.race");
    q(".race-title").textContent = race.daily ? `${kind} · ${race.daily}` : kind;
    const bits = [t(race.rules === RULE.CLASSIC ? "ui.rules_classic" : "ui.rules_easy")];
    // a daily attempt after the day's first is practice, as its dialog says (not "casual")
    bits.push(race.ranked ? t("ui.ranked") : race.daily ? t("ui.practice") : t("ui.casual"));
    if (race.options?.limit) bits.push(`${t("ui.time_limit")} ${clock(race.options.limit * 1000)}`);
    metaLine(q(".race-meta"), bits, race.code);
    const share = q(".share");
    share.hidden = race.phase !== "lobby" || Boolean(race.daily);
    q(".share .link").textContent = raceLink(race.race);
    q(".watchers").hidden = race.watchers == null;
    q(".watch-n").textContent = String(race.watchers ?? 0);
  }

  function renderRacers(/** @type {Race} */ race) {
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
      const part = (/** @type {string} */ s) => /** @type {HTMLElement} */ (li.querySelector(s));
      part(".racer-name").replaceChildren(isolated(name), r.player === race.host && !race.pool ? " ★" : "");
      if (r.bot != null) part(".racer-name").append(" ", botBadge()); // a bot seat, never hidden
      part(".racer-score").textContent = race.phase === "lobby" ? "" : String(r.score ?? 0);
      part(".bar").setAttribute("aria-label", `${name}: ${r.removed ?? 0}/${TABLEAU}`);
      part(".racer-sub").textContent = racerSub(race, r);
      list.append(li);
    }
  }

  function racerSub(/** @type {Race} */ race, /** @type {Racer} */ r) {
    if (race.phase === "lobby") return "";
    return progressLine(race, r, app.conn.serverNow());
  }

  /** The times of the racers still playing run between their moves. */
  function tickRacers(/** @type {Race} */ race) {
    for (const r of race.racers ?? []) {
      const sub = q(`.racer[data-seat="${r.seat}"] .racer-sub`);
      const text = racerSub(race, r);
      if (sub && sub.textContent !== text) sub.textContent = text;
    }
  }

  function tickCountdown() {
    const state = view.state();
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
    tickRacers(race);
    renderRivals();
  }

  /** The HUD's time: running while I play, else my final time from my progress (as the results show it). */
  function renderClock() {
    const state = view.state();
    const { race, mine } = state;
    if (!race?.starts_at || !mine) return;
    let elapsed = stillPlaying(state) ? Math.max(0, app.conn.serverNow() - race.starts_at) : myProgress(state)?.elapsed;
    if (elapsed != null && race.deadline) elapsed = Math.min(elapsed, race.deadline - race.starts_at);
    q(".elapsed").textContent = clock(elapsed, { final: !stillPlaying(state) });
  }

  function renderResults(/** @type {Race} */ race) {
    paintResults(results, race, race.you?.seat ?? null, view.state().marks, seatFollower(app.conn, race.race));
    if (race.phase !== "finished") return;
    q(".rematch").hidden = !race.you || Boolean(race.daily) || Boolean(race.pool); // a quick race: Race again
    q(".rematch").textContent = race.rematch ? t("ui.join_rematch") : t("ui.rematch");
    const replay = /** @type {HTMLAnchorElement} */ (q(".watch-replay"));
    replay.href = `#/watch/${race.race}`;
    // a replay reads the seats' records, which the server gives once the code is public (a daily attempt's
    // only after its day): before that the link would lead to a replay with nothing to play
    replay.hidden = race.code == null;
    // the racer's own game with the solver beside it: also only once the code is public (code_hidden before)
    const analyse = /** @type {HTMLAnchorElement} */ (q(".analyse-seat"));
    analyse.hidden = race.code == null || !race.you;
    if (race.you) analyse.href = `#/analysis/${race.race}-${race.you.seat}`;
    rankedNotice(resultNotice, { ranked: rankable(race) });
    if (ratedFor !== race.race && race.you) {
      ratedFor = race.race;
      againSlot.replaceChildren(quickRaceBar({ compact: true, again: race.pool ? race.rules : null }));
      ratingLine.hidden = !race.pool;
      if (race.pool) askRating(race.race, 0);
    }
  }

  /** The quick race's rating change (+12), asked again while the server has not rated it yet. */
  function askRating(/** @type {string} */ id, /** @type {number} */ tries) {
    ratingLine.textContent = t("pool.pending");
    app.conn.send({ t: "pool_result", race: id });
    pendingRating = { id, tries };
  }
  /** @type {{id: string, tries: number} | null} */
  let pendingRating = null;
  function ratingResult(/** @type {PoolResultMessage} */ m) {
    if (!pendingRating || m.race !== pendingRating.id) return;
    const { id, tries } = pendingRating;
    if (m.state === "pending") {
      if (tries < 30) setTimeout(() => pendingRating?.id === id && askRating(id, tries + 1), 500);
      return;
    }
    pendingRating = null;
    if (m.state === "rated") {
      const change = /** @type {number} */ (m.delta); // a rated race has its change
      const delta = change > 0 ? `+${change}` : String(change);
      ratingLine.replaceChildren(
        document.createTextNode(t("pool.change", { rating: m.rating, delta })),
        m.provisional ? ` · ${t("pool.provisional")}` : "",
      );
      ratingLine.dataset.delta = String(change);
    } else if (m.state === "held") ratingLine.textContent = t("pool.held");
    else ratingLine.textContent = app.conn.welcome?.account ? t("pool.casual") : t("pool.guest");
    ratingLine.dataset.state = m.state;
  }

  /** @type {string | null} */
  let focusOnMount = null; // the field the missing race's link leads to
  q(".missing-create").addEventListener("click", () => (focusOnMount = "#race-name"));
  q(".missing-join").addEventListener("click", () => (focusOnMount = "#race-join-id"));

  q(".copy-link").addEventListener("click", async () => {
    const { race } = view.state();
    if (race && (await copyText(raceLink(race.race)))) toast(t("ui.copied"));
  });
  q(".start").addEventListener("click", () => app.conn.sendSoon({ t: "race_start", race: view.state().raceId }));
  q(".leave").addEventListener("click", () => {
    app.conn.send({ t: "race_leave", race: view.state().raceId });
    app.navigate("#/race");
  });
  q(".undo").addEventListener("click", () => act("undo"));
  q(".resign").addEventListener("click", async () => {
    const id = view.state().raceId;
    if (!(await confirmDialog("ui.resign_confirm", "ui.resign"))) return;
    const state = view.state();
    if (id === state.raceId && state.race?.phase !== "finished") app.conn.sendSoon({ t: "race_resign", race: id });
  });
  q(".rematch").addEventListener("click", () => {
    const { race } = view.state();
    if (race?.rematch) app.navigate(`#/race/${race.rematch}`);
    else {
      update({ t: "view/rematch" });
      app.conn.sendSoon({ t: "race_rematch", race: view.state().raceId });
    }
  });

  const onKey = boardKeys({
    tap: (/** @type {number} */ col) => {
      lastTapped = board.columns[col - 1].lastElementChild;
      act("tap", col);
    },
    draw: () => act("draw"),
    undo: () => act("undo"),
    read: () => {
      const { mine } = view.state();
      if (mine) announce(describeState(mine, locale()));
    },
  });

  return {
    root,
    title: "ui.nav_race",
    mount(params) {
      translate(root);
      listen();
      document.addEventListener("keydown", onKey);
      const next = params?.id ?? null;
      const { raceId } = view.state();
      if (raceId && raceId !== next) app.conn.send({ t: "unwatch", race: raceId }); // stop following it
      if (raceId !== next) leaveSeat();
      update({ t: "view/mount", race: next });
      rivals.reset(next);
      watchAsked = false;
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
      const { raceId } = view.state();
      if (raceId) app.conn.send({ t: "unwatch", race: raceId }); // a connection follows at most 16 races
      leaveSeat();
      for (const off of offs.splice(0)) off();
      document.removeEventListener("keydown", onKey);
      stopTimer();
    },
    relabel() {
      translate(root);
      painted.race = null; // every text again, in the new language
      const { race, mine } = view.state();
      if (race) render();
      if (mine) board.relabel(locale());
      rivals.relabel();
    },
  };
}
