// @ts-check
// The daily's ending, like Wordle's: right after the last move a dialog with the score, time, moves, par, the
// streak, a histogram of today's scores with the player's percentile, and the share text in the page's
// language (the system's share sheet where there is one, else copied). It follows the `race` messages of the
// daily attempts this page plays (the race view shows the board), so it needs nothing from that view.
import { account, rankedNotice } from "./account.js";
import { t } from "../ui/i18n.js";
import { clock } from "../ui/format.js";
import { dailyShareText, showShareText } from "./dailyshare.js";
import { standing } from "../game/standing.js";
import { unrankedReason } from "./results.js";
import { el, shareText, toast, translate } from "../ui/ui.js";
import { quickRaceBar } from "./quickrace.js";

const STATUS_RETRY_MS = [150, 300, 600, 1200, 2400]; // the result is stored just after the race's end

/** @typedef {import("../net/messages.js").RaceMessage} RaceMessage */
/** @typedef {import("../net/messages.js").DailyMessage} DailyMessage */
/**
 * The open dialog of one daily attempt.
 * @typedef {object} DailyEnd
 * @property {string} race
 * @property {string | null} date
 * @property {boolean} ranked
 * @property {boolean} guestDeal
 * @property {HTMLDialogElement} dialog
 * @property {string} share
 * @property {number | null} mine  the player's score
 * @property {boolean} held
 * @property {number} [statusAttempt]
 */
/** The scores of the day, as /api/daily/<date>/scores answers: [score, players] pairs and the total.
 * @typedef {{scores?: [number, number][], total?: number}} DayScores */

/** @param {import("../ui/app.js").App} app */
export function installDailyEnd(app) {
  /** @type {Set<string>} */
  const playing = new Set(); // daily races seen unfinished by this page: their end opens the dialog
  /** @type {DailyEnd | null} */
  let open = null; // {race, dialog}

  app.conn.on("race", (m) => {
    if (!m.daily || !m.you) return;
    if (m.phase !== "finished") {
      playing.add(m.race);
      return;
    }
    if (open?.race === m.race) return paintRace(open, m); // par known, a later repeat
    if (!playing.delete(m.race)) return; // finished before this page saw it played: no fanfare
    show(m);
  });
  app.conn.on("daily", (m) => {
    if (open && m.date === open.date) paintStatus(open, m);
  });
  globalThis.addEventListener?.("hashchange", () => open?.dialog.close()); // it belongs to the attempt's view

  /** @param {RaceMessage} race */
  function show(race) {
    /** @type {HTMLDialogElement | null} */ (document.querySelector("dialog.daily-end"))?.close();
    const d = /** @type {HTMLDialogElement} */ (
      el(`
      <dialog class="dlg end daily-end" aria-labelledby="daily-end-title" data-testid="daily-end">
        <h2 id="daily-end-title"><span data-t="ui.daily_done"></span> <bdi class="de-date" dir="ltr"></bdi></h2>
        <dl class="end-stats">
          <div><dt data-t="ui.score"></dt><dd class="de-score" dir="ltr"></dd></div>
          <div><dt data-t="ui.time"></dt><dd class="de-time" dir="ltr"></dd></div>
          <div><dt data-t="ui.moves"></dt><dd class="de-moves" dir="ltr"></dd></div>
          <div><dt data-t="ui.streak"></dt><dd class="de-streak" dir="ltr">—</dd></div>
        </dl>
        <p class="par de-par"></p>
        <p class="unranked-why de-unranked" hidden></p>
        <p class="de-held" role="status" data-t="ui.daily_held" hidden></p>
        <div class="ranked-slot" hidden></div>
        <section class="de-scores" aria-labelledby="de-scores-title" hidden>
          <h3 id="de-scores-title" data-t="ui.daily_scores"></h3>
          <p class="de-players"></p>
          <ol class="histogram"></ol>
          <p class="de-percentile" hidden></p>
        </section>
        <pre class="share-text de-share" dir="auto" hidden></pre>
        <p class="help de-first-only" data-t="ui.daily_first_only"></p>
        <div class="dlg-actions">
          <button type="button" class="btn primary de-share-btn" data-t="ui.share" hidden></button>
          <a class="btn de-board" data-t="ui.nav_leaderboards"></a>
          <button type="button" class="btn de-close" autofocus></button>
        </div>
      </dialog>`)
    );
    translate(d);
    d.querySelector(".dlg-actions")?.after(quickRaceBar({ compact: true })); // after every game: race now
    /** @type {HTMLElement} */ (d.querySelector(".de-close")).textContent = t("ui.close");
    const guestDeal = Boolean(race.guest_deal); // fair play 19.1: the guests' deal, not the day's
    /** @type {DailyEnd} */
    const view = {
      race: race.race,
      date: race.daily,
      ranked: Boolean(race.ranked),
      guestDeal,
      dialog: d,
      share: "",
      mine: null,
      held: false,
    };
    open = view;
    /** @type {HTMLElement} */ (d.querySelector(".de-first-only")).hidden = guestDeal;
    d.addEventListener("close", () => {
      d.remove();
      if (open?.dialog === d) open = null;
    });
    /** @type {HTMLElement} */ (d.querySelector(".de-close")).addEventListener("click", () => d.close());
    /** @type {HTMLAnchorElement} */ (d.querySelector(".de-board")).href = `#/leaderboards/daily/${race.daily}`;
    /** @type {HTMLElement} */ (d.querySelector(".de-board")).addEventListener("click", () => d.close());
    /** @type {HTMLElement} */ (d.querySelector(".de-share-btn")).addEventListener("click", async () => {
      if (open?.share && (await shareText(open.share)) === "copied") toast(t("ui.copied"));
    });
    document.body.append(d);
    d.showModal();
    paintRace(view, race);
    askStatus(view, 0);
    loadScores(view);
  }

  /**
   * @param {DailyEnd} view
   * @param {RaceMessage} race
   */
  function paintRace(view, race) {
    const d = view.dialog;
    const mine = race.results?.find((r) => r.seat === race.you?.seat) ?? race.results?.[0];
    /** @type {HTMLElement} */ (d.querySelector(".de-date")).textContent = race.daily;
    /** @type {HTMLElement} */ (d.querySelector(".de-score")).textContent = mine ? String(mine.score) : "—";
    /** @type {HTMLElement} */ (d.querySelector(".de-time")).textContent = clock(mine?.elapsed, { final: true });
    /** @type {HTMLElement} */ (d.querySelector(".de-moves")).textContent = mine ? String(mine.moves) : "—";
    /** @type {HTMLElement} */ (d.querySelector(".de-par")).textContent = race.par == null ? "" : t("ui.par", { n: race.par });
    const why = /** @type {HTMLElement} */ (d.querySelector(".de-unranked"));
    why.hidden = Boolean(race.ranked);
    why.textContent = race.ranked ? "" : `${t("ui.unranked")}: ${t(unrankedReason(race))}`;
    view.mine = race.ranked ? (mine?.score ?? null) : view.mine;
    d.dataset.par = race.par == null ? "" : String(race.par);
    // guests: sign up to rank (a guest's attempt is of the guests' deal: it says what signing in gives)
    const guestDeal = Boolean(race.guest_deal);
    rankedNotice(/** @type {HTMLElement} */ (d.querySelector(".ranked-slot")), {
      ranked: Boolean(race.ranked) || guestDeal,
      ...(guestDeal ? { text: "account.daily_guest_notice", link: "account.daily_signin" } : {}),
    });
  }

  /** The day's status for the streak and the share text: asked again while the result is being stored. */
  /**
   * @param {DailyEnd} view
   * @param {number} attempt
   */
  function askStatus(view, attempt) {
    if (open !== view) return;
    view.statusAttempt = attempt;
    app.conn.send({ t: "daily" });
  }

  /**
   * @param {DailyEnd} view
   * @param {DailyMessage} status
   */
  function paintStatus(view, status) {
    const d = view.dialog;
    if (view.ranked && !status.result) {
      const wait = STATUS_RETRY_MS[view.statusAttempt ?? 0];
      if (wait != null) setTimeout(() => askStatus(view, (view.statusAttempt ?? 0) + 1), wait);
      return;
    }
    // held for review (fair play: faster than anyone can play): said so, and neither a streak nor a rank
    // that it does not have
    const held = Boolean(status.result?.review);
    /** @type {HTMLElement} */ (d.querySelector(".de-held")).hidden = !held;
    d.dataset.held = held ? status.result?.review : "";
    view.held = held;
    /** @type {HTMLElement} */ (d.querySelector(".de-streak")).textContent = held ? "—" : String(status.streak ?? 0);
    view.share = dailyShareText(status.date, status.result);
    const pre = /** @type {HTMLElement} */ (d.querySelector(".de-share"));
    showShareText(pre, view.share);
    pre.hidden = !view.share;
    /** @type {HTMLElement} */ (d.querySelector(".de-share-btn")).hidden = !view.share;
    if (status.result && view.mine == null) view.mine = status.result.score;
    d.dataset.status = "1";
    if (view.ranked) loadScores(view); // the result is stored now, and counted
  }

  /** @param {DailyEnd} view */
  async function loadScores(view) {
    if (view.guestDeal) return; // the day's scores are of another deal than the guests'
    let body;
    try {
      const answer = await fetch(`/api/daily/${view.date}/scores`, { cache: "no-store" });
      if (!answer.ok) return;
      body = await answer.json();
    } catch {
      return; // offline: the dialog stays without its histogram
    }
    if (open !== view) return;
    paintScores(view, body);
  }

  /** Whether the player's result is on the day's public board (accounts only), so among the counts. */
  const counted = () => Boolean(account());

  /**
   * @param {DailyEnd} view
   * @param {DayScores} body
   */
  function paintScores(view, body) {
    const d = view.dialog;
    const scores = body.scores ?? [];
    /** @type {HTMLElement} */ (d.querySelector(".de-scores")).hidden = !scores.length;
    /** @type {HTMLElement} */ (d.querySelector(".de-players")).textContent = t("ui.daily_players", { n: body.total ?? 0 });
    const most = Math.max(1, ...scores.map(([, n]) => n));
    const bars = scores.map(([score, n]) => {
      const li = el(`<li><span class="h-score" dir="ltr"></span><span class="h-bar"><span></span></span><span class="h-n" dir="ltr"></span></li>`);
      /** @type {HTMLElement} */ (li.querySelector(".h-score")).textContent = String(score);
      /** @type {HTMLElement} */ (li.querySelector(".h-n")).textContent = String(n);
      /** @type {HTMLElement} */ (li.querySelector(".h-bar span")).style.width = `${Math.max(4, (100 * n) / most)}%`;
      if (score === view.mine && counted() && !view.held) li.classList.add("me");
      return li;
    });
    /** @type {HTMLElement} */ (d.querySelector(".histogram")).replaceChildren(...bars);
    const where = view.held ? null : standing(scores, view.mine, counted());
    const line = /** @type {HTMLElement} */ (d.querySelector(".de-percentile"));
    line.hidden = where == null;
    line.textContent = where == null ? "" : "tied" in where ? t("ui.daily_tied", { n: where.tied }) : t("ui.daily_top", { p: where.top });
    d.dataset.scores = String(body.total ?? 0);
  }
}
