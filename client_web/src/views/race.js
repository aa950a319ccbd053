// Race: create one, the lobby with its share link, the countdown, your board and everyone's progress, the
// results with par, and the rematch. The daily challenge is a one-seat race and is played here too.
// Your board is your seat, an ordinary game (`<race>-<seat>`) played through the same GameSession as Play:
// open, act with seq, resync, and a move made while offline is sent again once the connection is back.
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
import { finishWatcher, finishedText, showGo } from "../notices.js";
import { createResults, paintResults } from "../results.js";
import { SeatLock } from "../seatlock.js";
import { GameSession } from "../session.js";
import { announce, copyText, el, hideToast, toast, translate } from "../ui.js";
import { safeStorage as storage } from "../storage.js";

/** The idle warning shows in the last minute before the server takes a racer out for not moving (a move
 * pushes `out_at` back, and the warning goes away). */
const IDLE_WARN_MS = 60_000;
const NAME_KEY = "golfrace.name";

export function raceLink(id) {
  return `${location.origin}/r/${id}`;
}

/** A race's phase at server time `now`: the server sends `race` at the start of the countdown, not when it
 * runs out, so "running" is derived from `starts_at`. */
export function phaseAt(race, now) {
  if (race.phase === "countdown" && race.starts_at && now >= race.starts_at) return "running";
  return race.phase;
}

export function playerName() {
  return storage()?.getItem(NAME_KEY) ?? "";
}

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
  const q = (s) => root.querySelector(s);
  const form = q(".race-create");
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
  let raceId = null;
  let race = null;
  let mine = null; // my board state
  let shownPhase = null; // the phase last painted: "Go!" when it turns from countdown to running
  const finishes = finishWatcher();
  let timer = null;
  let lastDialogFor = null;
  let lastTapped = null;
  let pendingWatchers = null;

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
    onChange: (state, change, diff) => showBoard(state, change, diff),
    onRefused: (m) => refused(m),
    onError: (m) => seatError(m) && toast(errorText(m.code, m.params), "error"),
  });
  const lock = new SeatLock(app.conn, q(".race-board"), seat);

  // --- create -------------------------------------------------------------------------------------------
  form.elements.name.value = playerName();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = form.elements.name.value.trim();
    storage()?.setItem(NAME_KEY, name);
    const codeText = form.elements.code.value.trim();
    const error = q("#race-code-error");
    const msg = { t: "race_new", undo: form.elements.undo.checked, limit: Number(form.elements.limit.value) };
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
      msg.rules = form.querySelector("input[name=rules]:checked").value;
    }
    error.hidden = true;
    createCount += 1;
    msg.rid = `c${createCount}`;
    awaitingCreate = msg.rid;
    app.conn.sendSoon(msg);
  });
  // what we wait for after Create or Rematch: the `race` echoing our rid, or the race after `rematch:<id>`
  let awaitingCreate = null;
  let createCount = 0;
  const answersCreate = (m) =>
    Boolean(awaitingCreate && m.you && m.race !== raceId) &&
    (m.rid === awaitingCreate || awaitingCreate === `rematch:${m.previous}`);

  // --- join by link or id ----------------------------------------------------------------------------------
  const joinForm = q(".race-join");
  joinForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const input = joinForm.elements.race;
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
    if (!raceId || !app.conn.ready) return;
    const msg = { t: "race_join", race: raceId };
    const name = playerName();
    if (name) msg.name = name;
    app.conn.send(msg);
  }

  // a racer in the lobby may name themselves (a guest who came by link has no name yet): race_join again
  // with the name, which the server takes as a rename of the seat
  const rename = q(".rename");
  rename.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = rename.elements.name.value.trim();
    if (!name || !raceId) return;
    storage()?.setItem(NAME_KEY, name);
    form.elements.name.value = name;
    app.conn.send({ t: "race_join", race: raceId, name });
  });

  function renderRename(lobby) {
    rename.hidden = !lobby || !race.you;
    const me = myProgress();
    if (!rename.hidden && document.activeElement !== rename.elements.name) rename.elements.name.value = me?.name ?? "";
  }

  function act(a, col = null, row = null) {
    if (!raceId || !race || race.phase === "lobby" || !seat.gameId) return; // the board may still be on its way
    if (!lock.allows()) return; // offline with a move already waiting: the board is locked
    seat.act(a, col, row);
    lock.paint();
  }

  /** The race has started: follow my seat (once; a reconnect opens it again by itself). */
  function openSeat() {
    const game = race?.you?.game;
    if (!game || race.phase === "lobby" || seat.gameId === game) return;
    seat.switchTo(game, "player");
    seat.open(game, "player");
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
    if (!seat.gameId || !raceId) return false;
    return typeof m.ref === "number" || (["open", "resync"].includes(m.ref) && m.params?.game === seat.gameId);
  }

  function refused(m) {
    if (!settings.interactive) return;
    toast(errorText(m.code, m.params), "refusal");
    if (lastTapped) board.shake(lastTapped);
    lastTapped = null;
  }

  const offs = [];
  function listen() {
    offs.push(
      app.conn.on("race", (m) => {
        if (answersCreate(m)) {
          awaitingCreate = null;
          app.navigate(`#/race/${m.race}`);
          return;
        }
        if (m.race !== raceId) return;
        race = pendingWatchers == null ? m : { ...m, watchers: m.watchers ?? pendingWatchers };
        pendingWatchers = null;
        openSeat();
        render();
      }),
      app.conn.on("race_progress", (m) => {
        if (m.race !== raceId || !race) return;
        race.racers = race.racers.map((r) => (r.seat === m.racer.seat ? m.racer : r));
        noticeFinishes();
        renderRacers();
        renderControls();
      }),
      app.conn.on("watchers", (m) => {
        if (m.race !== raceId) return;
        if (!race) {
          pendingWatchers = m.n; // before the race itself: kept for it
          return;
        }
        race.watchers = m.n;
        renderHead();
      }),
      app.conn.on("error", (m) => {
        if (m.ref === "race_join" && m.code === "race_started" && m.params?.race === raceId) {
          app.redirect(`#/watch/${raceId}`); // not one of its racers: follow it as a spectator
          return;
        }
        if (m.code === "race_not_found" && raceId && !race && (m.params?.race ?? raceId) === raceId) {
          showMissingRace(m); // a dead link or a mistyped id: say so in the page, with the ways on
          return;
        }
        if (!String(m.ref ?? "").startsWith("race") && !awaitingCreate) return;
        awaitingCreate = null;
        toast(errorText(m.code, m.params), "error");
      }),
      app.conn.on("ready", () => join()),
      lock.listen(),
    );
  }

  function showBoard(state, change, diff) {
    const before = mine;
    mine = state;
    lock.paint();
    board.render(state, change, diff, locale());
    q(".score").textContent = String(state.score);
    q(".moves").textContent = String(state.moves);
    renderControls(); // the board may come before or after the race's own message: both re-check
    room.dataset.v = String(state.v);
    room.dataset.status = state.status;
    if (change !== "snapshot") {
      // only what changed; B reads the whole board
      announce(describeChange(before, state, diff, locale()) ?? describeState(state, locale()));
      hideToast("refusal"); // an explanation of an earlier refusal is stale once a move went through
    }
    if (state.status !== "playing" && lastDialogFor !== `${raceId}@${state.v}` && change !== "snapshot") {
      lastDialogFor = `${raceId}@${state.v}`;
      toast(state.status === "stuck" ? t("stuck") : statusText(state.status));
    }
  }

  function render() {
    if (!race) return;
    noticeFinishes();
    renderHead();
    renderRacers();
    const host = race.host === app.player();
    const lobby = race.phase === "lobby";
    q(".lobby-actions").hidden = !lobby;
    q(".start").hidden = !host;
    q(".waiting").hidden = host;
    rankedNotice(q(".lobby-actions .ranked-slot"), { ranked: race.ranked && lobby });
    renderRename(lobby);
    renderControls();
    tickCountdown();
    clearInterval(timer);
    if (race.phase === "countdown" || race.phase === "running") timer = setInterval(tickCountdown, 200);
    renderResults();
  }

  /** The board, HUD, Undo and Resign from what is known now: called after every `race` and every board
   * update, since the race message and the snapshot of the racer's seat may arrive in either order. */
  function renderControls() {
    const me = race?.you;
    const lobby = !race || race.phase === "lobby";
    const playing = stillPlaying();
    // my game over while the others play: no big empty tableau between me and their progress
    const waiting = Boolean(mine) && !playing && race?.phase !== "finished";
    q(".board-slot").hidden = Boolean(race) && (lobby || !me || waiting);
    q(".race-hud").hidden = lobby || !me || !mine;
    q(".resign").hidden = !me || !mine || !playing;
    q(".undo").hidden = !playing; // nothing left to undo once my game is over
    q(".undo").disabled = !mine?.can_undo || !(race?.options?.undo ?? true) || !playing;
    renderClock();
    renderMyEnd();
    renderIdle();
  }

  /** A racer still playing whom the server will take out for not moving: a warning with the time left, in
   * the last minute; once taken out, a line that says why. */
  function renderIdle() {
    const me = myProgress();
    q(".idle-out").hidden = me?.status !== "abandoned";
    const warn = q(".idle-warn");
    const left = me?.out_at == null ? null : me.out_at - app.conn.serverNow();
    const show = left != null && left <= IDLE_WARN_MS && stillPlaying();
    warn.hidden = !show;
    if (!show) return;
    const text = t("ui.idle_warning", { time: clock(Math.ceil(Math.max(0, left) / 1000) * 1000) });
    if (warn.textContent !== text) warn.textContent = text;
  }

  /** My own game is over while the race goes on: my result, and that we wait for the others (whose
   * progress stays live beside it) until the results table comes. */
  function renderMyEnd() {
    const box = q(".my-end");
    const me = myProgress() ?? mine; // a resignation changes my progress, not my board
    const done = Boolean(race?.you && me && me.status !== "playing");
    box.hidden = !done || race.phase === "finished";
    if (box.hidden) return;
    const bits = [statusText(me.status), `${t("ui.score")} ${me.score ?? 0}`, `${t("ui.moves")} ${me.moves ?? 0}`];
    q(".my-end-line").textContent = bits.join(" · ");
  }

  /** No such race (never was, or expired): the message in place of the empty room. */
  function showMissingRace(m) {
    room.hidden = true;
    showMissing(missing, m);
  }

  /** Nothing of the previous race stays on screen while the next one loads. */
  function clearRoom() {
    clearInterval(timer);
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
    app.highlight(race.daily ? "daily" : "race");
    app.retitle(race.daily ? "ui.daily_title" : "ui.nav_race");
    const kind = race.daily ? t("ui.daily_title") : t("ui.race");
    q(".race-title").textContent = race.daily ? `${kind} · ${race.daily}` : kind;
    const bits = [t(race.rules === "classic" ? "ui.rules_classic" : "ui.rules_easy")];
    bits.push(race.ranked ? t("ui.ranked") : t("ui.casual"));
    if (race.code) bits.push(race.code);
    if (race.options?.limit) bits.push(`${t("ui.time_limit")} ${clock(race.options.limit * 1000)}`);
    q(".race-meta").textContent = bits.join(" · ");
    const share = q(".share");
    share.hidden = race.phase !== "lobby" || Boolean(race.daily);
    q(".share .link").textContent = raceLink(race.race);
    q(".watchers").hidden = race.watchers == null;
    q(".watch-n").textContent = String(race.watchers ?? 0);
  }

  function renderRacers() {
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
      li.querySelector(".racer-name").textContent = r.player === race.host ? `${name} ★` : name;
      li.querySelector(".racer-score").textContent = race.phase === "lobby" ? "" : String(r.score ?? 0);
      li.querySelector(".bar").setAttribute("aria-label", `${name}: ${r.removed ?? 0}/${TABLEAU}`);
      li.querySelector(".racer-sub").textContent = racerSub(r);
      list.append(li);
    }
  }

  function racerSub(r) {
    if (race.phase === "lobby") return "";
    return progressLine(race, r, app.conn.serverNow());
  }

  /** The times of the racers still playing run between their moves. */
  function tickRacers() {
    for (const r of race.racers ?? []) {
      const sub = q(`.racer[data-seat="${r.seat}"] .racer-sub`);
      const text = racerSub(r);
      if (sub && sub.textContent !== text) sub.textContent = text;
    }
  }

  const phaseNow = () => phaseAt(race, app.conn.serverNow());
  const myProgress = () => race?.racers?.find((r) => race.you && r.seat === race.you.seat) ?? null;

  /** An opponent who was playing is done: a notice (my own end has its own; none for finishes missed). */
  function noticeFinishes() {
    const mySeat = race.racers.find((r) => r.player === app.player())?.seat ?? null;
    for (const r of finishes(race.racers, mySeat)) toast(finishedText(r));
  }

  function tickCountdown() {
    const box = q(".countdown");
    if (!race) return;
    const now = app.conn.serverNow();
    const phase = phaseNow();
    if (shownPhase === "countdown" && phase === "running") showGo(room); // "Go!" as the countdown ends
    shownPhase = phase;
    room.dataset.phase = phase;
    if (phaseNow() === "countdown") {
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

  /** My game goes on: my board and my progress both say playing (a resignation or a forfeit changes my
   * progress first), and the race is not over. */
  function stillPlaying() {
    const status = myProgress()?.status ?? "playing";
    return mine?.status === "playing" && status === "playing" && race?.phase !== "finished";
  }

  /** The HUD's time: running while I play, else my final time from my progress (as the results show it). */
  function renderClock() {
    if (!race?.starts_at || !mine) return;
    let elapsed = stillPlaying() ? Math.max(0, app.conn.serverNow() - race.starts_at) : myProgress()?.elapsed;
    if (elapsed != null && race.deadline) elapsed = Math.min(elapsed, race.deadline - race.starts_at);
    q(".elapsed").textContent = clock(elapsed);
  }

  function renderResults() {
    paintResults(results, race, race.you?.seat ?? null);
    if (race.phase !== "finished") return;
    clearInterval(timer);
    q(".rematch").hidden = !race.you || Boolean(race.daily);
    q(".rematch").textContent = race.rematch ? t("ui.join_rematch") : t("ui.rematch");
    q(".watch-replay").href = `#/watch/${race.race}`;
    rankedNotice(resultNotice, { ranked: race.ranked });
  }

  let focusOnMount = null; // the field the missing race's link leads to
  q(".missing-create").addEventListener("click", () => (focusOnMount = "#race-name"));
  q(".missing-join").addEventListener("click", () => (focusOnMount = "#race-join-id"));

  q(".copy-link").addEventListener("click", async () => {
    if (race && (await copyText(raceLink(race.race)))) toast(t("ui.copied"));
  });
  q(".start").addEventListener("click", () => app.conn.sendSoon({ t: "race_start", race: raceId }));
  q(".leave").addEventListener("click", () => {
    app.conn.send({ t: "race_leave", race: raceId });
    app.navigate("#/race");
  });
  q(".undo").addEventListener("click", () => act("undo"));
  q(".resign").addEventListener("click", async () => {
    const id = raceId;
    if (!(await confirmDialog("ui.resign_confirm", "ui.resign"))) return;
    if (id === raceId && race?.phase !== "finished") app.conn.sendSoon({ t: "race_resign", race: id });
  });
  q(".rematch").addEventListener("click", () => {
    if (race?.rematch) app.navigate(`#/race/${race.rematch}`);
    else {
      awaitingCreate = `rematch:${raceId}`;
      app.conn.sendSoon({ t: "race_rematch", race: raceId });
    }
  });

  const onKey = boardKeys({
    tap: (col) => {
      lastTapped = board.columns[col - 1].lastElementChild;
      act("tap", col);
    },
    draw: () => act("draw"),
    undo: () => act("undo"),
    read: () => mine && announce(describeState(mine, locale())),
  });

  return {
    root,
    title: "ui.nav_race",
    mount(params) {
      translate(root);
      listen();
      document.addEventListener("keydown", onKey);
      const next = params?.id ?? null;
      if (raceId && raceId !== next) app.conn.send({ t: "unwatch", race: raceId }); // stop following it
      if (raceId !== next) leaveSeat();
      raceId = next;
      race = null;
      mine = null;
      pendingWatchers = null;
      lastDialogFor = null;
      clearRoom();
      form.hidden = Boolean(raceId);
      joinForm.hidden = Boolean(raceId);
      q("#race-join-error").hidden = true;
      room.hidden = !raceId;
      if (raceId) join();
      else if (focusOnMount) q(focusOnMount).focus();
      focusOnMount = null;
    },
    unmount() {
      dismissConfirm(); // "Resign?" must not outlive the race view (Back while it is open)
      if (raceId) app.conn.send({ t: "unwatch", race: raceId }); // a connection follows at most 16 races
      leaveSeat();
      for (const off of offs.splice(0)) off();
      document.removeEventListener("keydown", onKey);
      clearInterval(timer);
    },
    relabel() {
      translate(root);
      if (race) render();
      if (mine) board.relabel(locale());
    },
  };
}
