// @ts-check
// The course as a race (issue 22.3, docs/course.md): friends race the same nine deals by a link, each at
// their own pace, the fewest strokes winning. `#/course/race` makes a race (its lobby, hosted by this
// player); `#/course/race/<id>` is the race: the lobby (join, the host starts), the caller's current hole
// (dealt by the server as a game whose code no frame carries; "Next hole" once it is over), and one
// scorecard row a racer, in the order of the standing, like a golf leaderboard: each hole's strokes, the
// total, to par and the time. Anyone with the link watches (the racers' holes and strokes, never a board or
// a code before the end); the course's code is shown once everyone is done. The race is read from the
// server (GET /api/course-races/<id>) every POLL_MS while it is on.
import { Board } from "../ui/board.js";
import { confirmDialog } from "../ui/confirm.js";
import { HOLE_PAR, HOLES, PAR, toParText } from "../game/course.js";
import { describeState } from "../ui/describe.js";
import { clock } from "../ui/format.js";
import { errorText, locale, t } from "../ui/i18n.js";
import { boardKeys } from "../ui/keys.js";
import { racerName } from "../ui/names.js";
import { GameSession } from "../features/session.js";
import { announce, el, toast, translate } from "../ui/ui.js";
import { courseApi } from "./course.js";
import { playerName, savePlayerName } from "./race.js";

const POLL_MS = 1500;

/**
 * A racer's line of a course race, as `GET /api/course-races/<id>` answers (in the standing's order).
 * @typedef {Object} CourseRacer
 * @property {number} seat
 * @property {string} name
 * @property {boolean} host
 * @property {number | null} hole  the hole they are on (null before the start)
 * @property {number} played  the holes they have over
 * @property {number[]} holes  each hole's strokes
 * @property {number} total
 * @property {number} to_par
 * @property {boolean} done
 * @property {boolean} resigned
 * @property {number} elapsed
 * @property {number | null} place  once the race is over
 * @property {string[]} [games]  their holes' games, once the race is over
 */

/**
 * A course race as this player is shown it (a watcher: `you` null, and no game).
 * @typedef {Object} CourseRace
 * @property {string} id
 * @property {"lobby" | "running" | "finished"} phase
 * @property {number} seats
 * @property {number | null} you  the caller's seat
 * @property {boolean} host  the caller is its host
 * @property {number | null} started_at
 * @property {number | null} ended_at
 * @property {number} par
 * @property {number} hole_par
 * @property {CourseRacer[]} racers
 * @property {string | null} game  the caller's current hole (dealt, and not yet recorded)
 * @property {string | null} code  the course's code, once the race is over
 * @property {string[] | null} hole_codes
 */

/** "−3", "+2", "0" (a typographic minus). @param {number} n */
const signed = (n) => (n < 0 ? `\u2212${-n}` : n > 0 ? `+${n}` : "0");

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createCourseRaceView(app) {
  const root = el(`
    <section class="view course course-race" aria-labelledby="crace-title">
      <h1 id="crace-title" data-t="ui.course.race_title"></h1>
      <p class="help" data-t="ui.course.race_lead"></p>
      <div class="crace-name-box" hidden>
        <label class="field-label" for="crace-name" data-t="ui.your_name"></label>
        <input id="crace-name" name="name" data-bound="name_max" autocomplete="nickname">
      </div>
      <div class="dlg-actions crace-new" hidden>
        <button type="button" class="btn primary crace-create" data-testid="crace-create" data-t="ui.course.race_new"></button>
      </div>
      <div class="crace-lobby" hidden>
        <p class="crace-link-line"><span data-t="ui.share_link"></span> <bdi class="code crace-link" dir="ltr"></bdi>
          <button type="button" class="btn small crace-copy" data-t="ui.copy_link"></button></p>
        <p class="crace-wait" data-t="ui.waiting_host"></p>
        <div class="dlg-actions">
          <button type="button" class="btn primary crace-join" data-testid="crace-join" data-t="ui.join" hidden></button>
          <button type="button" class="btn primary crace-start" data-testid="crace-start" data-t="ui.course.race_start" hidden></button>
        </div>
      </div>
      <div class="crace-play" hidden>
        <div class="hud">
          <span class="badge hole-badge" data-testid="crace-hole"></span>
          <div class="actions">
            <button type="button" class="btn draw-btn" aria-keyshortcuts="D"><span data-t="ui.bar_draw"></span></button>
            <button type="button" class="btn undo"><span data-t="ui.undo"></span></button>
            <button type="button" class="btn primary next-hole" data-testid="crace-next" hidden><span data-t="ui.course.next"></span></button>
            <button type="button" class="btn crace-resign" data-testid="crace-resign" data-t="ui.resign"></button>
          </div>
        </div>
        <div class="board-slot"></div>
        <p id="crace-board-desc" class="sr-only"></p>
      </div>
      <p class="crace-status" role="status" data-testid="crace-status" hidden></p>
      <p class="crace-code-line" hidden><span data-t="ui.course.code_label"></span> <bdi class="code crace-code" dir="ltr" data-testid="crace-code"></bdi></p>
      <div class="scorecard-wrap" tabindex="0" role="region" aria-labelledby="crace-caption" hidden>
        <table class="scorecard crace-card" data-testid="crace-scorecard">
          <caption id="crace-caption"></caption>
          <thead><tr class="sc-holes"></tr></thead>
          <tbody></tbody>
        </table>
      </div>
    </section>`);

  const q = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
  /** @type {string | null} */
  let raceId = null;
  /** @type {CourseRace | null} the race as the server last showed it to this player */
  let race = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let asking = false; // a `next` in flight: the hole is dealt once
  /** @type {import("../game/gamestate.js").GameState | null} the current hole's game as shown */
  let shown = null;

  const board = new Board({
    onTap: (col, row) => session.act("tap", col, row),
    onDraw: () => session.act("draw"),
  });
  q(".board-slot").append(board.el);
  board.el.setAttribute("aria-describedby", "crace-board-desc");
  const session = new GameSession(app.conn, {
    onChange: (next, change, diff) => {
      if (!race || next.game !== race.game) return; // not the current hole
      const was = shown;
      shown = next;
      board.render(next, change, diff, locale());
      q("#crace-board-desc").textContent = describeState(next, locale());
      if (was && was.game === next.game && was.status === "playing" && next.status !== "playing") {
        announce(`${t("ui.course.hole", { n: myHole() ?? HOLES })}: ${t("ui.course.strokes")} ${next.columns.reduce((/** @type {number} */ n, /** @type {string[]} */ c) => n + c.length, 0)}`);
      }
      paint();
    },
  });

  /** @param {string} path @param {object} [body] */
  async function call(path, body) {
    const answer = await courseApi(app.conn, path, body);
    if (answer.data) show(answer.data);
    else toast(errorText(answer.error ?? "unavailable"), "error");
    return answer;
  }

  const me = () => race?.racers.find((r) => r.seat === race?.you) ?? null;
  const myHole = () => me()?.hole ?? null;

  /** The race as the server shows it now; the current hole opened, or asked for once the race runs. */
  function show(/** @type {CourseRace} */ data) {
    if (data.id !== raceId) return;
    race = data;
    if (race.game && session.gameId !== race.game) {
      shown = null;
      session.open(race.game, "player");
    }
    // the first hole is dealt at once, and a hole to deal when there is no board to look at (a reload);
    // else the player looks at the hole just over until they ask for the next one
    const mine = me();
    if (race.phase === "running" && mine && !mine.done && !race.game && !asking && (!mine.played || !shown)) ask();
    paint();
  }

  /** The caller's hole: the one over recorded and the next dealt (after the ninth: the race as it stands). */
  async function ask() {
    if (!raceId) return;
    asking = true;
    await call(`/api/course-races/${raceId}/next`, {});
    asking = false;
  }

  let polling = false; // a read in flight: one at a time
  let mounted = false;
  async function poll() {
    timer = null;
    if (!raceId || polling) return;
    const id = raceId;
    polling = true;
    const answer = await courseApi(app.conn, `/api/course-races/${id}`);
    polling = false;
    if (id !== raceId || !mounted) return;
    if (answer.data) show(answer.data);
    else if (answer.error === "race_not_found") toast(errorText(answer.error), "error");
    if (race?.phase !== "finished" || !answer.data) timer = setTimeout(poll, POLL_MS);
  }

  function paint() {
    const phase = race?.phase ?? "";
    const mine = me();
    root.dataset.phase = phase;
    root.dataset.hole = String(mine?.hole ?? "");
    root.dataset.status = shown?.status ?? "";
    root.dataset.v = String(shown?.v ?? "");
    q(".crace-new").hidden = Boolean(raceId);
    q(".crace-name-box").hidden = Boolean(raceId) && !(phase === "lobby" && race?.you == null);
    q(".crace-lobby").hidden = phase !== "lobby";
    const link = `${location.origin}/#/course/race/${raceId ?? ""}`;
    q(".crace-link").textContent = link;
    q(".crace-join").hidden = !(phase === "lobby" && race?.you == null);
    q(".crace-start").hidden = !(phase === "lobby" && race?.host);
    q(".crace-wait").hidden = !(phase === "lobby" && !race?.host);
    const playing = phase === "running" && Boolean(mine && !mine.done);
    q(".crace-play").hidden = !playing;
    const hole = mine?.hole;
    q(".hole-badge").textContent = hole ? t("ui.course.hole_of", { n: hole, total: HOLES }) : "";
    const over = Boolean(shown && shown.status !== "playing");
    q(".next-hole").hidden = !over;
    q(".next-hole span").textContent = hole === HOLES ? t("ui.course.scorecard") : t("ui.course.next");
    /** @type {HTMLButtonElement} */ (q(".undo")).disabled = !shown?.can_undo;
    /** @type {HTMLButtonElement} */ (q(".draw-btn")).disabled = !shown || shown.status !== "playing";
    paintStatus(phase, mine);
    const code = q(".crace-code-line");
    code.hidden = !race?.code;
    q(".crace-code").textContent = race?.code ?? "";
    paintCard(phase);
  }

  function paintStatus(/** @type {string} */ phase, /** @type {CourseRacer | null} */ mine) {
    const line = q(".crace-status");
    let text = "";
    if (phase === "running" && mine?.done) text = t("ui.course.race_waiting");
    else if (phase === "running" && !mine) text = t("ui.watching");
    else if (phase === "finished" && race) {
      const first = race.racers[0];
      text = t("ui.course.race_won", { name: racerName(first), strokes: first.total, to_par: toParText(first.total - PAR, t) });
    }
    line.textContent = text;
    line.hidden = !text;
  }

  /** One row a racer, in the standing's order: place, name, each hole's strokes, total, to par, time. */
  function paintCard(/** @type {string} */ phase) {
    const wrap = q(".scorecard-wrap");
    wrap.hidden = !race;
    if (!race) return;
    q("#crace-caption").textContent = phase === "finished" ? t("ui.results") : t("ui.course.race_standing");
    const cell = (/** @type {string} */ tag, /** @type {string} */ text, cls = "") => {
      const c = document.createElement(tag);
      c.textContent = text;
      if (cls) c.className = cls;
      if (/^[\d\u2212+:.—-]*$/.test(text)) c.dir = "ltr";
      if (tag === "th") /** @type {HTMLTableCellElement} */ (c).scope = "col";
      return c;
    };
    const head = q(".crace-card .sc-holes");
    head.replaceChildren(
      cell("th", "#"),
      cell("th", t("ui.name")),
      ...[...Array(HOLES).keys()].map((n) => cell("th", String(n + 1))),
      cell("th", t("ui.course.total"), "sc-total"),
      cell("th", t("ui.course.to_par_label")),
      cell("th", t("ui.time")),
    );
    const par = document.createElement("tr");
    par.className = "sc-par";
    par.append(cell("td", ""), cell("th", t("ui.course.par")), ...[...Array(HOLES)].map(() => cell("td", String(HOLE_PAR))), cell("td", String(PAR), "sc-total"), cell("td", ""), cell("td", ""));
    /** @type {HTMLTableCellElement} */ (par.children[1]).scope = "row";
    const rows = race.racers.map((r, i) => {
      const tr = document.createElement("tr");
      tr.className = "crace-racer";
      tr.dataset.seat = String(r.seat);
      tr.dataset.done = r.done ? "1" : "";
      if (r.seat === race?.you) tr.classList.add("me");
      const name = cell("th", racerName(r));
      /** @type {HTMLTableCellElement} */ (name).scope = "row";
      if (r.resigned) name.append(" ", cell("span", `(${t("ui.status.resigned")})`, "crace-resigned"));
      const holes = [...Array(HOLES).keys()].map((n) => {
        const c = cell("td", n < r.holes.length ? String(r.holes[n]) : "");
        if (phase === "running" && r.hole === n + 1) c.classList.add("sc-current");
        return c;
      });
      const place = r.place ?? (phase === "running" ? "" : String(i + 1));
      const total = r.holes.length ? String(r.total) : "";
      const toPar = r.holes.length ? signed(r.to_par) : "";
      const time = r.elapsed ? clock(r.elapsed, { final: r.done }) : "";
      tr.append(cell("td", String(place)), name, ...holes, cell("td", total, "sc-total"), cell("td", toPar), cell("td", time));
      return tr;
    });
    q(".crace-card tbody").replaceChildren(par, ...rows);
  }

  const nameInput = /** @type {HTMLInputElement} */ (q("#crace-name"));
  nameInput.value = playerName();
  /** The name typed, kept for the next race. */
  const typedName = () => {
    const name = nameInput.value.trim();
    savePlayerName(name);
    return name;
  };
  q(".crace-create").addEventListener("click", async () => {
    const answer = await courseApi(app.conn, "/api/course-races", { name: typedName() });
    if (answer.data) app.navigate(`#/course/race/${answer.data.id}`);
    else toast(errorText(answer.error ?? "unavailable"), "error");
  });
  q(".crace-copy").addEventListener("click", async () => {
    await navigator.clipboard?.writeText(q(".crace-link").textContent ?? "").catch(() => {});
    toast(t("ui.copied"));
  });
  q(".crace-join").addEventListener("click", () => call(`/api/course-races/${raceId}/join`, { name: typedName() }));
  q(".crace-start").addEventListener("click", () => call(`/api/course-races/${raceId}/start`, {}));
  q(".next-hole").addEventListener("click", () => ask());
  q(".undo").addEventListener("click", () => session.act("undo"));
  q(".draw-btn").addEventListener("click", () => session.act("draw"));
  q(".crace-resign").addEventListener("click", async () => {
    if (!(await confirmDialog("ui.course.race_resign_confirm", "ui.resign"))) return;
    await call(`/api/course-races/${raceId}/resign`, {});
  });
  const onKey = boardKeys({
    tap: (/** @type {number} */ col) => session.act("tap", col),
    draw: () => session.act("draw"),
    undo: () => session.act("undo"),
    read: () => shown && announce(describeState(shown, locale())),
  });

  return {
    root,
    title: "ui.course.race_title",
    mount(params) {
      mounted = true;
      document.addEventListener("keydown", onKey);
      translate(root);
      const id = params?.id ?? null;
      if (id !== raceId) {
        raceId = id;
        nameInput.value = playerName();
        race = null;
        shown = null;
        if (timer) clearTimeout(timer);
        timer = null;
      }
      paint();
      if (raceId && !timer) poll();
    },
    unmount() {
      mounted = false;
      document.removeEventListener("keydown", onKey);
      if (timer) clearTimeout(timer);
      timer = null;
    },
    relabel() {
      translate(root);
      paint();
      if (shown) board.relabel(locale());
    },
  };
}
