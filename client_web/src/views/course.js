// @ts-check
// The nine-deal course, solo (issue 22.3, docs/course.md): one course code, nine deals in a row, each an
// ordinary solo game of its hole's code (course.js derives them); a scorecard like golf's (each hole, par,
// strokes, the running total) and, after the ninth hole, the share text. A hole is over when its deal is
// (cleared or stuck); its strokes are the cards left on the tableau. The card is kept in this browser, and
// each finished hole is named to the server (POST /api/courses/<code>/holes), which checks it against its
// stored game and, after the ninth, puts the course on its board (an account's). A post that gets no answer
// (the network, a server's 5xx) is sent again, 1 s, 2 s, 4 s … later (at most 15 s apart), in order, and the
// page says so (`data-post`: sending, retrying, saved, failed); the server records a hole's game once, so a
// post sent again after a lost answer never counts twice, and this page queues each hole once.
// `#/course/daily`: the weekend's daily course, dealt hole by hole by the server (POST
// /api/course/daily/next) as games whose code no frame carries; its card is the server's.
import { Board } from "../ui/board.js";
import { checkCourse, HOLE_PAR, HOLES, holeCodes, PAR, randomCourse, running, shareOf, toPar, toParText, total } from "../game/course.js";
import { describeState } from "../ui/describe.js";
import { errorText, locale, t } from "../ui/i18n.js";
import { boardKeys } from "../ui/keys.js";
import { GameSession } from "../features/session.js";
import { settings } from "../ui/settings.js";
import { safeStorage } from "../net/storage.js";
import { announce, el, shareText, toast, translate } from "../ui/ui.js";
import { cardsLeft, currentHole, initial, reduce, retryDelay, transient } from "./course_state.js";
import { loop } from "../ui/loop.js";
import { RULE } from "../net/messages.js";

const KEY = "golfrace.course";
const UNSENT = "golfrace.course.unsent";

/** The holes named to the server and not answered yet, kept across a reload: `[{code, n, game}]`.
 * @returns {{code: string, n: number, game: string}[]} */
function loadUnsent() {
  try {
    const list = JSON.parse(safeStorage()?.getItem(UNSENT) ?? "[]");
    const ok = (/** @type {any} */ u) => u && typeof u.code === "string" && Number.isInteger(u.n) && typeof u.game === "string";
    return Array.isArray(list) ? list.filter(ok) : [];
  } catch {
    return [];
  }
}

/** @param {{code: string, n: number, game: string}[]} list */
function saveUnsent(list) {
  try {
    if (list.length) safeStorage()?.setItem(UNSENT, JSON.stringify(list));
    else safeStorage()?.removeItem(UNSENT);
  } catch {
    // storage full or off: the posts live as long as the page
  }
}

/** @typedef {import("./course_state.js").CourseCard} CourseCard */
/** @typedef {import("./course_state.js").CourseState} CourseState */
/** @typedef {import("./course_state.js").Msg} Msg */

/** @returns {CourseCard | null} */
function loadCard() {
  try {
    const raw = safeStorage()?.getItem(KEY);
    const c = raw ? JSON.parse(raw) : null;
    if (!c || !checkCourse(c.code).ok || !Array.isArray(c.holes) || c.holes.length > HOLES) return null;
    if (!c.holes.every((/** @type {any} */ s) => Number.isInteger(s) && s >= 0 && s <= 35)) return null;
    return { code: c.code, holes: c.holes, game: typeof c.game === "string" ? c.game : null };
  } catch {
    return null;
  }
}

/** @param {CourseCard | null} card */
function saveCard(card) {
  try {
    const s = safeStorage();
    if (!s || card?.daily) return; // the daily course's card is the server's
    if (card) s.setItem(KEY, JSON.stringify(card));
    else s.removeItem(KEY);
  } catch {
    // storage full or off: the card lives as long as the page
  }
}


/**
 * A request to the course's API as this player (token, and the account's session cookie): `{data}` or
 * `{error}` (a code of the server's, or "unavailable"), with the HTTP `status` (0: no answer at all).
 * @param {{authHeaders(): Promise<Record<string, string>>}} conn @param {string} path @param {object} [body] a POST's JSON
 * @returns {Promise<{data?: any, error?: string, status: number}>}
 */
export async function courseApi(conn, path, body) {
  /** @type {RequestInit} */
  const init = { headers: await conn.authHeaders(), cache: "no-store" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers = { ...init.headers, "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init).catch(() => null);
  const data = res ? await res.json().catch(() => null) : null;
  return res?.ok && data ? { data, status: res.status } : { error: data?.error ?? "unavailable", status: res?.status ?? 0 };
}

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createCourseView(app) {
  const root = el(`
    <section class="view course" aria-labelledby="course-title">
      <h1 id="course-title" data-t="ui.course.title"></h1>
      <form class="course-start" novalidate>
        <p class="help" data-t="ui.course.lead"></p>
        <label class="field-label" for="course-code" data-t="ui.course.code_label"></label>
        <input id="course-code" name="code" dir="ltr" autocomplete="off" autocapitalize="characters" spellcheck="false"
               placeholder="GC1-E-ABCDEFG" aria-describedby="course-help course-error">
        <p id="course-help" class="help" data-t="ui.course.code_help"></p>
        <p id="course-error" class="field-error" role="alert" hidden></p>
        <button type="submit" class="btn primary course-go" data-t="ui.course.start"></button>
        <p class="course-race-line"><a class="btn course-race-new" href="#/course/race" data-testid="course-race-new" data-t="ui.course.race_new"></a></p>
      </form>
      <div class="course-play" hidden>
        <div class="hud">
          <div class="code-box">
            <span class="label" data-t="ui.course.code_label"></span>
            <bdi class="code course-code" dir="ltr" data-testid="course-code">—</bdi>
          </div>
          <span class="badge hole-badge" data-testid="hole"></span>
          <div class="actions">
            <button type="button" class="btn draw-btn" aria-keyshortcuts="D"><span data-t="ui.bar_draw"></span></button>
            <button type="button" class="btn undo"><span data-t="ui.undo"></span></button>
            <button type="button" class="btn primary next-hole" data-testid="next-hole" hidden><span data-t="ui.course.next"></span></button>
            <button type="button" class="btn course-new" data-t="ui.course.start"></button>
          </div>
        </div>
        <div class="board-slot"></div>
        <p class="course-post" role="status" data-testid="course-post" hidden><span class="course-post-text"></span>
          <button type="button" class="btn small course-post-retry" data-t="ui.course.post.retry_now" hidden></button></p>
        <p class="course-result" role="status" data-testid="course-result" hidden></p>
        <p class="course-rank" role="status" data-testid="course-rank" hidden></p>
        <div class="dlg-actions course-done" hidden>
          <button type="button" class="btn primary share-course" data-testid="share-course" data-t="ui.share"></button>
        </div>
        <p class="course-board-line"><a class="btn small course-board-link" data-testid="course-board-link" data-t="ui.course.board"></a></p>
        <div class="scorecard-wrap" tabindex="0" role="region" aria-labelledby="scorecard-caption">
          <table class="scorecard" data-testid="scorecard">
            <caption id="scorecard-caption" data-t="ui.course.scorecard"></caption>
            <thead><tr class="sc-holes"></tr></thead>
            <tbody><tr class="sc-par"></tr><tr class="sc-strokes"></tr><tr class="sc-running"></tr></tbody>
          </table>
        </div>
        <p class="keys-hint" data-t="ui.course.keys"></p>
        <p id="course-board-desc" class="sr-only"></p>
      </div>
    </section>`);

  const q = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
  const v = loop({ initial: initial(loadCard()), reduce, effects, render });
  let daily = false; // the route: #/course/daily
  /** @type {Record<string, any> | null} the server's answer to the ninth hole: the board's place */
  let posted = null;

  /** A request to the course's API as this player. @param {string} path @param {object} [body] */
  const api = (path, body) => courseApi(app.conn, path, body);

  /**
   * The posts that record a hole, sent one at a time in order, each until the server answers it (a refusal
   * included); one that gets no answer is sent again later (`retryDelay`).
   * @typedef {{key: string, n: number, send: () => Promise<{data?: any, error?: string, status: number}>,
   *   done: (data: any) => void, attempt: number, once: boolean}} Post
   */
  /** @type {Post[]} */
  const posts = [];
  const queued = new Set(); // each hole's post once from this page
  /** @type {{state: string, n: number, at: number, reason: string, again?: boolean}} */
  let postState = { state: "", n: 0, at: 0, reason: "" };
  let retryTimer = 0;
  let tickTimer = 0;

  /**
   * Queue a post (none twice with the same `key`: while it waits, and for good when `once`).
   * @param {string} key @param {number} n @param {Post["send"]} send @param {Post["done"]} done @param {boolean} once
   */
  function persist(key, n, send, done, once) {
    if (queued.has(key)) return;
    queued.add(key);
    posts.push({ key, n, send, done, attempt: 0, once });
    if (posts.length === 1) sendFirst();
  }

  async function sendFirst() {
    const post = posts[0];
    if (!post) return;
    clearTimeout(retryTimer);
    setPost({ state: "sending", n: post.n, at: 0, reason: "", again: post.attempt > 0 });
    const answer = await post.send();
    if (posts[0] !== post) return; // the course was begun again meanwhile
    if (!answer.data && transient(answer.status)) {
      const wait = retryDelay(post.attempt++);
      setPost({ state: "retrying", n: post.n, at: Date.now() + wait, reason: "" });
      retryTimer = window.setTimeout(sendFirst, wait);
      return;
    }
    posts.shift();
    if (!post.once) queued.delete(post.key);
    if (answer.data) {
      setPost({ state: "saved", n: post.n, at: 0, reason: "" });
      post.done(answer.data);
    } else {
      setPost({ state: "failed", n: post.n, at: 0, reason: errorText(answer.error) });
      toast(errorText(answer.error), "error");
      if (answer.error === "account_required" || answer.error === "not_weekend") app.navigate("#/daily");
    }
    sendFirst();
  }

  function dropPosts() {
    for (const post of posts.splice(0)) if (!post.once) queued.delete(post.key);
    clearTimeout(retryTimer);
    setPost({ state: "", n: 0, at: 0, reason: "" });
  }

  /** @param {typeof postState} next */
  function setPost(next) {
    postState = next;
    clearInterval(tickTimer);
    if (next.state === "retrying") tickTimer = window.setInterval(paintPost, 1000);
    paintPost();
  }

  function paintPost() {
    const { state, n, at, reason, again } = postState;
    const line = q(".course-post");
    root.dataset.post = state;
    line.hidden = !(state === "retrying" || state === "failed" || (state === "sending" && again)); // a first send: no flicker
    /** @type {Record<string, () => string>} */
    const texts = {
      sending: () => t("ui.course.post.sending", { n }),
      retrying: () => t("ui.course.post.retrying", { n, s: Math.max(0, Math.ceil((at - Date.now()) / 1000)) }),
      failed: () => t("ui.course.post.failed", { n, reason }),
      saved: () => t("ui.course.post.saved", { n }),
    };
    q(".course-post-text").textContent = texts[state]?.() ?? "";
    line.classList.toggle("field-error", state === "failed");
    /** @type {HTMLButtonElement} */ (q(".course-post-retry")).hidden = state !== "retrying";
  }

  /** Name the hole just over to the server, in order (the ninth answers with the board's place).
   * @param {string} code @param {number} n @param {string} game */
  function recordHole(code, n, game) {
    const path = `/api/courses/${encodeURIComponent(code)}/holes`;
    const unsent = loadUnsent();
    if (!unsent.some((u) => u.code === code && u.n === n && u.game === game)) saveUnsent([...unsent, { code, n, game }]);
    const send = async () => {
      const answer = await api(path, { hole: n, game });
      if (answer.data || !transient(answer.status)) saveUnsent(loadUnsent().filter((u) => !(u.code === code && u.n === n && u.game === game)));
      return answer;
    };
    persist(`${code}|${n}|${game}`, n, send, (data) => {
      if (data.board && v.state().card?.code === code) {
        posted = data.board;
        paint();
      }
    }, true);
  }

  /** Send again the holes of this course a page before this one named and heard no answer for (a reload
   * while a post was failing); the others' (a course since left) are dropped. */
  function resendUnsent() {
    const { card } = v.state();
    const code = card && !card.daily ? card.code : null;
    const unsent = loadUnsent();
    const mine = unsent.filter((u) => u.code === code);
    if (mine.length !== unsent.length) saveUnsent(mine);
    for (const u of mine.sort((a, b) => a.n - b.n)) recordHole(u.code, u.n, u.game);
  }

  /** The daily course: the server's card and the hole to play (dealt now if it is the next one). The same
   * request again deals nothing new: the server answers the hole being played, or records it when over. */
  function dailyNext() {
    const { card } = v.state();
    const n = (card?.daily ? card.holes.length : 0) + 1;
    const game = card?.daily ? card.game ?? "" : "";
    persist(`daily|${n}|${game}`, n, () => api(`/api/course/daily/next?lang=${locale()}`, {}), (d) => {
      if (d.hole == null) posted = d;
      v.update({ t: "daily", day: d.date, holes: d.card.holes, game: d.game ?? null });
    }, false);
  }

  const board = new Board({
    onTap: (col, row) => session.act("tap", col, row),
    onDraw: () => session.act("draw"),
  });
  q(".board-slot").append(board.el);
  board.el.setAttribute("aria-describedby", "course-board-desc");

  const session = new GameSession(app.conn, {
    onChange: (next, change, diff) => v.update({ t: "shown", state: next, change, diff }),
  });

  /** What a change leads to beyond the page: the card stored (not one just loaded: the stored one, or none
   * for the daily course, whose card is the server's) and the hole dealt.
   * @param {CourseState} before @param {CourseState} after @param {Msg} msg */
  function effects(before, after, msg) {
    if (after.card !== before.card && msg.t !== "load") saveCard(after.card);
    if (after.deals !== before.deals) playHole();
  }

  /** @param {CourseState} after @param {CourseState} before @param {Msg} msg */
  function render(after, before, msg) {
    const next = after.game;
    if (next && next !== before.game) {
      const shown = msg.t === "shown" ? msg : null;
      board.render(next, shown?.change ?? "snapshot", shown?.diff ?? null, locale());
      q("#course-board-desc").textContent = describeState(next, locale());
      const was = before.game;
      if (was && was.game === next.game && was.status === "playing" && next.status !== "playing") {
        const card = /** @type {CourseCard} */ (after.card); // a shown game is a hole of the card
        announce(`${t("ui.course.hole", { n: card.holes.length + 1 })}: ${t("ui.course.strokes")} ${cardsLeft(next)}`);
      }
    }
    paint();
  }

  /** Deal the current hole, or open its game again if the server still has it for us. */
  function playHole() {
    const { card } = v.state();
    const i = currentHole(v.state());
    if (!card || i == null) return;
    if (card.daily) {
      if (card.game) session.open(card.game, "player");
      return;
    }
    const mine = Array.isArray(app.conn.welcome?.games) ? app.conn.welcome.games : [];
    if (card.game && mine.includes(card.game)) session.open(card.game, "player");
    else session.newGame({ code: holeCodes(card.code)[i] }).catch(() => {});
  }

  /** @param {string} code */
  const begin = (code) => {
    posted = null;
    dropPosts();
    saveUnsent([]);
    v.update({ t: "begin", code });
  };
  function nextHole() {
    const { card, game } = v.state();
    if (!card) return;
    if (card.daily) {
      if (game && game.status !== "playing") dailyNext();
      return;
    }
    const before = v.state();
    v.update({ t: "next" });
    if (v.state() !== before && card.game) recordHole(card.code, card.holes.length + 1, card.game);
  }

  function paint() {
    const { card, game: shown } = v.state();
    const playing = Boolean(card);
    q(".course-start").hidden = playing || daily;
    q(".course-play").hidden = !playing;
    if (!card) return;
    const i = currentHole(v.state());
    q(".course-code").textContent = card.daily ? `${t("ui.course.daily_title")} ${card.daily}` : card.code;
    q(".hole-badge").textContent = i == null ? t("ui.course.total") : t("ui.course.hole_of", { n: i + 1, total: HOLES });
    root.dataset.hole = String(i == null ? HOLES : i + 1);
    root.dataset.holeCode = i == null || card.daily ? "" : holeCodes(card.code)[i];
    root.dataset.daily = card.daily ?? "";
    root.dataset.status = shown?.status ?? "";
    root.dataset.v = String(shown?.v ?? "");
    const over = Boolean(shown && shown.status !== "playing");
    /** @type {HTMLButtonElement} */ (q(".next-hole")).hidden = !over || i == null;
    q(".next-hole span").textContent = i === HOLES - 1 ? t("ui.course.scorecard") : t("ui.course.next");
    /** @type {HTMLButtonElement} */ (q(".undo")).disabled = !shown?.can_undo;
    /** @type {HTMLButtonElement} */ (q(".draw-btn")).disabled = !shown || shown.status !== "playing";
    board.el.hidden = i == null;
    paintScorecard();
    const done = i == null;
    q(".course-done").hidden = !done;
    const result = q(".course-result");
    result.hidden = !done;
    if (done) result.textContent = t("ui.course.finished", { strokes: total(card.holes), to_par: toParText(toPar(card.holes), t) });
    const link = /** @type {HTMLAnchorElement} */ (q(".course-board-link"));
    link.href = card.daily ? `#/leaderboards/course-day/${card.daily}` : `#/leaderboards/course/${encodeURIComponent(card.code)}`;
    paintRank(done);
  }

  /** The course's place on its board once the ninth hole is recorded, or why it is on none.
   * @param {boolean} done */
  function paintRank(done) {
    const line = q(".course-rank");
    const you = posted?.you;
    line.hidden = !(done && posted);
    if (!done || !posted) return;
    if (posted.posted && you) line.textContent = t("ui.course.your_rank", { rank: you.rank, total: posted.total });
    else line.textContent = posted.reason ? t(`ui.course.not_posted.${posted.reason}`) : "";
    root.dataset.rank = you ? String(you.rank) : "";
  }

  function paintScorecard() {
    const { card } = v.state();
    if (!card) return;
    const holes = card.holes;
    const run = running(holes);
    /** A row of the card: its head `first`, a cell per hole, and the total `last`.
     * @param {"th" | "td"} tag @param {string} cls @param {string} first @param {string[]} values @param {string} last */
    const cells = (tag, cls, first, values, last) => {
      const row = q(cls);
      row.replaceChildren();
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = first;
      row.append(head);
      for (const v of values) {
        const c = document.createElement(tag);
        c.textContent = v;
        c.dir = "ltr"; // "−3" keeps its minus on the left in Hebrew too
        if (tag === "th") /** @type {HTMLTableCellElement} */ (c).scope = "col";
        row.append(c);
      }
      const end = document.createElement(tag === "th" ? "th" : "td");
      end.className = "sc-total";
      end.dir = "ltr";
      end.textContent = last;
      row.append(end);
    };
    const nine = [...Array(HOLES).keys()];
    cells("th", ".sc-holes", t("ui.course.holes"), nine.map((n) => String(n + 1)), t("ui.course.total"));
    cells("td", ".sc-par", t("ui.course.par"), nine.map(() => String(HOLE_PAR)), String(PAR));
    cells("td", ".sc-strokes", t("ui.course.strokes"), nine.map((n) => (n < holes.length ? String(holes[n]) : "")), holes.length ? String(total(holes)) : "");
    cells("td", ".sc-running", t("ui.course.to_par_label"), nine.map((n) => (n < run.length ? signed(run[n] - HOLE_PAR * (n + 1)) : "")), holes.length ? signed(toPar(holes)) : "");
    const current = holes.length < HOLES ? holes.length : -1;
    for (const row of root.querySelectorAll(".scorecard tr")) {
      [...row.children].forEach((c, k) => c.classList.toggle("sc-current", current >= 0 && k === current + 1));
    }
  }

  /** "−3", "+2", "0" (a typographic minus). @param {number} n */
  const signed = (n) => (n < 0 ? `\u2212${-n}` : n > 0 ? `+${n}` : "0");

  const form = /** @type {HTMLFormElement} */ (q(".course-start"));
  const input = /** @type {HTMLInputElement} */ (q("#course-code"));
  const error = q("#course-error");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return begin(randomCourse(settings.rules === RULE.CLASSIC ? RULE.CLASSIC : RULE.EASY));
    const r = checkCourse(text);
    if (!r.ok) {
      error.textContent = r.part === "prefix" ? t("ui.course.code_help") : t(`ui.code_errors.${r.part}`);
      error.hidden = false;
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    error.hidden = true;
    input.setAttribute("aria-invalid", "false");
    begin(/** @type {string} */ (r.code)); // a checked code
  });
  q(".next-hole").addEventListener("click", () => nextHole());
  q(".course-post-retry").addEventListener("click", () => sendFirst());
  window.addEventListener("online", () => postState.state === "retrying" && sendFirst());
  q(".undo").addEventListener("click", () => session.act("undo"));
  q(".draw-btn").addEventListener("click", () => session.act("draw"));
  q(".course-new").addEventListener("click", () => {
    if (daily) {
      app.navigate("#/course");
      return;
    }
    dropPosts();
    saveUnsent([]);
    v.update({ t: "reset" });
    input.focus();
  });
  q(".share-course").addEventListener("click", async () => {
    const { card } = v.state();
    if (!card || card.holes.length < HOLES) return;
    const text = shareOf(card.daily ? { day: card.daily } : { code: card.code }, card.holes, t);
    const how = await shareText(text);
    if (how === "copied") toast(t("ui.copied"));
  });

  const onKey = boardKeys({
    tap: (col) => session.act("tap", col),
    draw: () => session.act("draw"),
    undo: () => session.act("undo"),
    read: () => {
      const { game } = v.state();
      if (game) announce(describeState(game, locale()));
    },
  });
  let started = false;
  const offReady = app.conn.on("ready", () => {
    if (daily) {
      dailyNext(); // the daily card is the server's: asked for once the connection is the account's
      return;
    }
    resendUnsent();
    if (!started && currentHole(v.state()) != null) {
      started = true;
      playHole();
    }
  });
  void offReady;

  return {
    root,
    title: "ui.course.title",
    mount(params) {
      document.addEventListener("keydown", onKey);
      translate(root);
      const wasDaily = daily;
      daily = Boolean(params?.daily);
      if (daily !== wasDaily) {
        posted = null;
        dropPosts();
        v.update({ t: "load", card: daily ? null : loadCard() });
        started = false;
      }
      paint();
      if (daily) {
        if (app.conn.ready) dailyNext();
        return;
      }
      if (app.conn.ready) resendUnsent();
      if (!started && app.conn.ready && currentHole(v.state()) != null) {
        started = true;
        playHole();
      }
    },
    unmount() {
      document.removeEventListener("keydown", onKey);
    },
    relabel() {
      translate(root);
      paint();
      if (v.state().game) board.relabel(locale());
    },
  };
}
