// @ts-check
// Play: one game of Golf against the deal, with the new-game, stuck and win dialogs and the keyboard.
// The view's state and its changes per message are play_state.js; here: listeners feed it, `render` paints
// it, and what a message leads to (a fresh deal, the race's lobby, storage) is read from before and after.
import { Board } from "../ui/board.js";
import { checkCode, isCodePrefix, withRules } from "../game/codes.js";
import { describeChange } from "../ui/announce.js";
import { describeState } from "../ui/describe.js";
import { clock } from "../ui/format.js";
import { playerName } from "./race.js";
import { chime } from "../ui/sound.js";
import { errorText, locale, stuckText, t } from "../ui/i18n.js";
import { GameSession } from "../features/session.js";
import { settings } from "../ui/settings.js";
import { boardKeys } from "../ui/keys.js";
import { announce, el, hideToast, isolated, shareText, toast, translate } from "../ui/ui.js";
import { initial, reduce } from "./play_state.js";
import { loop } from "../ui/loop.js";
import { quickRaceBar } from "../features/quickrace.js";
import { RULE } from "../net/messages.js";

const WIN_PAUSE_MS = 900; // the cascade alone before the result comes over it

/** @typedef {import("./play_state.js").PlayState} PlayState */
/** @typedef {import("../game/gamestate.js").GameState} GameState */
/** @typedef {import("../net/messages.js").WelcomeMessage} WelcomeMessage */

/**
 * @param {import("../ui/app.js").App} app
 * @returns {import("../ui/app.js").View & {start(welcome: WelcomeMessage | null): void, readonly state: GameState | null, session: GameSession, dealAndFocus(code: string): void, focusBoard(): void}}
 */
export function createPlayView(app) {
  const root = el(`
    <section class="view play" aria-labelledby="play-title">
      <h1 id="play-title" class="sr-only" data-t="ui.nav_play"></h1>
      <div class="hud">
        <div class="code-box">
          <span class="label" data-t="ui.code"></span>
          <bdi class="code" dir="ltr" data-testid="code">—</bdi>
          <button type="button" class="icon-btn copy" data-t-aria="ui.copy_code">
            <svg viewBox="0 0 24 24" aria-hidden="true"><use href="#icon-copy"/></svg>
          </button>
        </div>
        <span class="badge rules-badge" data-testid="rules"></span>
        <div class="stats">
          <div class="stat"><span class="label" data-t="ui.score"></span><span class="value score" dir="ltr">0</span></div>
          <div class="stat"><span class="label" data-t="ui.moves"></span><span class="value moves" dir="ltr">0</span></div>
        </div>
        <div class="actions">
          <button type="button" class="btn draw-btn" aria-keyshortcuts="D"><svg viewBox="0 0 24 24" aria-hidden="true"><rect x="5" y="3" width="12" height="16" rx="2" fill="none" stroke="currentColor" stroke-width="2"/><path d="M9 21h10a2 2 0 0 0 2-2V7" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg><span data-t="ui.bar_draw"></span></button>
          <button type="button" class="btn undo"><svg viewBox="0 0 24 24" aria-hidden="true"><use href="#icon-undo"/></svg><span data-t="ui.undo"></span></button>
          <button type="button" class="btn hint" aria-keyshortcuts="H"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 2a7 7 0 0 0-4 12.7V17h8v-2.3A7 7 0 0 0 12 2zM9 19h6v1.5a1.5 1.5 0 0 1-1.5 1.5h-3A1.5 1.5 0 0 1 9 20.5z" fill="currentColor"/></svg><span data-t="ui.hint"></span></button>
          <button type="button" class="btn primary new"><span data-t="ui.new_game"></span></button>
        </div>
      </div>
      <div class="board-slot"></div>
      <div class="qr-home"></div>
      <p class="keys-hint"><span data-t="ui.keys_hint"></span> · <span data-t="ui.key_read_board"></span></p>
      <p id="board-desc" class="sr-only"></p>
    </section>`);
  /** @param {string} sel */
  const q = (sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
  /** @param {string} sel */
  const button = (sel) => /** @type {HTMLButtonElement} */ (root.querySelector(sel));

  const v = loop({ initial: initial(), reduce, effects, render });
  let started = false;
  const board = new Board({
    onTap: (col, row, cardEl) => {
      lastTapped = cardEl;
      session.act("tap", col, row);
    },
    onDraw: () => session.act("draw"),
  });
  /** @type {Element | null} the card the player last tapped (a refusal shakes it) */
  let lastTapped = null;
  q(".board-slot").append(board.el);
  q(".qr-home").append(quickRaceBar({ compact: true })); // "Race now" on the home page
  board.el.setAttribute("aria-describedby", "board-desc");

  const session = new GameSession(app.conn, {
    onChange: (next, change, diff) => v.update({ t: "shown", state: next, change, diff }),
    onRefused: (msg) => v.update(/** @type {import("../net/messages.js").RefusedMessage} */ (msg)),
    onError: (msg) => v.update(/** @type {import("../net/messages.js").ErrorMessage} */ (msg)), // one for us
  });

  /** What a message leads to besides the page: storage, the speed report, a fresh deal, the race lobby.
   * @param {PlayState} before @param {PlayState} after */
  function effects(before, after) {
    const next = after.game;
    if (next && next !== before.game) {
      if (after.change !== "snapshot" && next.v === 1 && !settings.started(next.game)) settings.setStarted(next.game, Date.now());
      settings.game = next.game;
    }
    if (after.hint && !before.hint && !app.conn.send({ t: "hint", game: after.hint.game })) v.update({ t: "hint_unsent" });
    if (after.deals !== before.deals) {
      settings.game = null;
      startRandom();
    }
    if (after.raceJoined && after.raceJoined !== before.raceJoined) app.navigate(`#/race/${after.raceJoined}`);
  }

  q(".copy").addEventListener("click", async () => {
    const code = v.state().game?.code;
    if (code && (await shareText(code, { copyOnly: true }))) toast(t("ui.copied"));
  });
  q(".undo").addEventListener("click", () => session.act("undo"));
  q(".draw-btn").addEventListener("click", () => session.act("draw"));
  q(".new").addEventListener("click", () => openNewDialog());
  q(".hint").addEventListener("click", () => askHint());

  // --- hints: the server's solver suggests a move; the board points at it for a moment ------------------
  const askHint = () => v.update({ t: "hint_asked" });
  app.conn.on("hint", (/** @type {import("../net/messages.js").HintMessage} */ m) => v.update(m));
  app.conn.on("ready", () => v.update({ t: "ready" }));

  // --- painting: the state alone, plus what the page already shows (DOM only) -------------------------
  /** @type {PlayState} */
  let painted = initial();
  /** @param {PlayState} s */
  function render(s) {
    const began = performance.now();
    const was = painted;
    painted = s;
    const next = s.game;
    if (next && next !== was.game) {
      board.render(next, s.change, s.diff, locale());
      const description = describeState(next, locale());
      q("#board-desc").textContent = description;
      if (s.change !== "snapshot") {
        // only what changed; B reads the whole board (the board's description)
        announce(describeChange(was.game, next, s.diff, locale()) ?? description);
        hideToast("refusal"); // an explanation of an earlier refusal is stale once a move went through
      }
    }
    paintHud(s);
    if (next && next !== was.game) {
      if (s.diff) measure(session.receivedAt ?? began);
      if (!was.game) app.boardShown();
    }
    if (s.hint && !was.hint) root.dataset.hint = "asked";
    if (s.pointed && s.pointed !== was.pointed) {
      const move = s.pointed.move;
      const target = /** @type {HTMLElement | null} */ (board.highlight(move));
      root.dataset.hint = move.a === "tap" ? `tap:${move.col}` : "draw";
      target?.focus?.({ preventScroll: true });
    }
    if (s.notice && s.notice !== was.notice) {
      const n = s.notice;
      toast(n.key ? t(n.key) : errorText(n.code ?? "internal", n.params), n.kind); // one of the two is set
    }
    if (s.refusal && s.refusal !== was.refusal) refused(s.refusal);
    if (s.end !== was.end) {
      if (was.end?.kind && !s.end?.kind) closeEndDialogs();
      if (s.end?.kind === "stuck") openStuckDialog();
      else if (s.end?.kind === "won") openWinDialog();
    }
  }

  /** Speed report: a diff's receipt → DOM, style and layout done, and → the next frame painted.
   * @param {number} receivedAt */
  function measure(receivedAt) {
    board.el.getBoundingClientRect(); // force style and layout now, inside the measured time
    const apply = performance.now() - receivedAt;
    requestAnimationFrame(() =>
      setTimeout(() => {
        const list = app.metrics.diffs;
        if (list.length >= 500) list.shift();
        list.push({ apply, frame: performance.now() - receivedAt });
      }, 0),
    );
  }

  /** @param {PlayState} s */
  function paintHud(s) {
    const state = s.game;
    if (!state) return;
    q(".code").textContent = state.code ?? "—";
    button(".copy").disabled = !state.code; // kept in the layout (hidden by CSS): the HUD does not reflow
    q(".rules-badge").textContent = t(state.rules === RULE.CLASSIC ? "ui.rules_classic" : "ui.rules_easy");
    q(".rules-badge").dataset.rules = state.rules;
    q(".score").textContent = String(state.score);
    q(".moves").textContent = String(state.moves);
    button(".undo").disabled = !state.can_undo || state.status === "won";
    button(".hint").disabled = Boolean(s.hint) || state.status !== "playing" || state.role !== "player";
    root.dataset.status = state.status;
    root.dataset.v = String(state.v);
  }

  /** @param {{code: string, params?: object}} refusal */
  function refused(refusal) {
    if (!settings.interactive) return;
    const text = errorText(refusal.code, refusal.params);
    toast(text, "refusal");
    if (lastTapped && refusal.code !== "nothing_to_undo") board.shake(lastTapped);
    lastTapped = null;
  }

  function startRandom() {
    session.newGame({ rules: settings.rules }).catch(() => {});
  }

  // --- dialogs ------------------------------------------------------------------------------------------
  function closeEndDialogs() {
    for (const d of document.querySelectorAll("dialog.end[open]")) /** @type {HTMLDialogElement} */ (d).close();
  }

  /** The element `sel` in a dialog built here (its template has it). @param {ParentNode} box @param {string} sel */
  const inside = (box, sel) => /** @type {HTMLElement} */ (box.querySelector(sel));

  /** @param {string} html */
  function dialog(html) {
    const d = /** @type {HTMLDialogElement} */ (el(html));
    translate(d);
    d.addEventListener("close", () => d.remove());
    document.body.append(d);
    d.showModal();
    return d;
  }

  function openNewDialog() {
    if (document.querySelector("dialog.new-game[open]")) return;
    closeEndDialogs();
    const d = dialog(`
      <dialog class="dlg new-game" aria-labelledby="new-title">
        <form method="dialog" novalidate>
          <h2 id="new-title" data-t="ui.new_game"></h2>
          <label class="field-label" for="code-input" data-t="ui.code_label"></label>
          <input id="code-input" name="code" dir="ltr" autocomplete="off" autocapitalize="characters" spellcheck="false"
                 placeholder="GO1-E-ABCDEFG" aria-describedby="code-help code-error">
          <p id="code-help" class="help" data-t="ui.code_help"></p>
          <p id="code-error" class="field-error" role="alert" hidden></p>
          <fieldset class="rules-choice">
            <legend data-t="ui.rules_label"></legend>
            <label class="choice"><input type="radio" name="rules" value="${RULE.EASY}"><span><b data-t="ui.rules_easy"></b><small data-t="ui.rules_easy_hint"></small></span></label>
            <label class="choice"><input type="radio" name="rules" value="${RULE.CLASSIC}"><span><b data-t="ui.rules_classic"></b><small data-t="ui.rules_classic_hint"></small></span></label>
          </fieldset>
          <label class="switch"><input type="checkbox" name="interactive"><span><b data-t="ui.interactive"></b><small data-t="ui.interactive_help"></small></span></label>
          <label class="switch"><input type="checkbox" name="sound"><span><b data-t="ui.sound"></b><small data-t="ui.sound_help"></small></span></label>
          <div class="dlg-actions">
            <button type="button" class="btn cancel" data-t="ui.cancel"></button>
            <button type="submit" class="btn primary deal" data-t="ui.deal"></button>
          </div>
        </form>
      </dialog>`);
    const form = /** @type {HTMLFormElement} */ (d.querySelector("form"));
    /** @param {string} name */
    const field = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
    const input = field("code");
    const interactive = field("interactive");
    const sound = field("sound");
    const error = /** @type {HTMLElement} */ (d.querySelector("#code-error"));
    const radios = [.../** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll("input[name=rules]"))];
    const pick = (/** @type {string | undefined} */ rules) => radios.forEach((r) => (r.checked = r.value === rules));
    pick(settings.rules);
    interactive.checked = settings.interactive;
    sound.checked = settings.sound;
    sound.addEventListener("change", () => {
      settings.sound = sound.checked;
    });

    const showError = (/** @type {string | null} */ text) => {
      error.textContent = text ?? "";
      error.hidden = !text;
      input.setAttribute("aria-invalid", text ? "true" : "false");
    };
    /** The field's code, checked: none (a random deal), a whole code (`code`, `rules`), or the `part` that is
     * wrong. @returns {{ok: boolean, code?: string | null, rules?: string, part?: string}} */
    const check = () => {
      const text = input.value.trim();
      if (!text) return { ok: true, code: null };
      return checkCode(text);
    };
    // while typing, a code that is merely unfinished is no error yet; leaving the field (or Deal) says it
    input.addEventListener("input", () => {
      const r = check();
      if (r.ok) {
        showError(null);
        if (r.code) pick(r.rules);
      } else {
        showError(isCodePrefix(input.value) ? null : t(`ui.code_errors.${r.part}`));
      }
    });
    input.addEventListener("blur", () => {
      const r = check();
      if (!r.ok) showError(t(`ui.code_errors.${r.part}`));
    });
    for (const radio of radios) {
      radio.addEventListener("change", () => {
        const r = check();
        if (r.ok && r.code) input.value = withRules(r.code, radio.value);
      });
    }
    inside(d, ".cancel").addEventListener("click", () => d.close());
    interactive.addEventListener("change", () => {
      settings.interactive = interactive.checked;
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const r = check();
      if (!r.ok) {
        showError(t(`ui.code_errors.${r.part}`));
        input.focus();
        return;
      }
      const rules = radios.find((x) => x.checked)?.value === RULE.CLASSIC ? RULE.CLASSIC : RULE.EASY;
      settings.rules = rules;
      settings.interactive = interactive.checked;
      const deal = /** @type {HTMLButtonElement} */ (d.querySelector(".deal"));
      deal.disabled = true;
      try {
        await session.newGame(r.code ? { code: r.code } : { rules });
        hideToast();
        d.close();
        focusBoard(); // the new deal, not the New game button (nor <body>)
      } catch (err) {
        // The server's reason, in the page's language, shown under the field like ours.
        const why = /** @type {{code?: string, params?: object} | undefined} */ (err);
        const known = why?.code && why.code !== "offline";
        if (why?.code !== "superseded") showError(known ? errorText(why.code, why.params) : t("ui.offline"));
        deal.disabled = false;
      }
    });
    input.focus();
  }

  /** The end dialog's "Analyse": the game replayed with the solver beside it (views/analysis.js).
   * @param {HTMLDialogElement} d @param {string} game @param {string | null} [code] */
  function analyseLink(d, game, code = null) {
    const a = /** @type {HTMLAnchorElement} */ (d.querySelector(".analyse-end"));
    a.href = `#/analysis/${encodeURIComponent(game)}`;
    a.addEventListener("click", () => d.close());
    // a ghost race on this deal (views/ghost.js): its ghosts are the records already public
    const g = /** @type {HTMLAnchorElement | null} */ (d.querySelector(".ghost-end"));
    if (!g) return;
    g.hidden = !code;
    if (code) g.href = `#/ghost/${encodeURIComponent(code)}`;
    g.addEventListener("click", () => d.close());
  }

  function openStuckDialog() {
    closeEndDialogs();
    const d = dialog(`
      <dialog class="dlg end stuck" aria-labelledby="stuck-title" data-testid="stuck-dialog">
        <h2 id="stuck-title"></h2>
        <p class="end-score"><span data-t="ui.score"></span> <b dir="ltr"></b></p>
        <p class="par stuck-best" hidden></p>
        <div class="dlg-actions">
          <button type="button" class="btn undo-end"><span data-t="ui.undo"></span></button>
          <a class="btn analyse-end" data-t="ui.analysis.open"></a>
          <a class="btn ghost-end" data-t="ui.ghost.open"></a>
          <button type="button" class="btn primary new-end" data-t="ui.new_game"></button>
        </div>
      </dialog>`);
    inside(d, "#stuck-title").textContent = stuckText();
    inside(d, ".dlg-actions").after(quickRaceBar({ compact: true })); // after every game: race now
    const state = /** @type {GameState} */ (v.state().game); // the stuck game (its end opened this)
    analyseLink(d, state.game, state.code);
    // what the deal allowed at best (its par): the hint's solver knows it, asked for this stuck position
    const best = /** @type {HTMLElement} */ (d.querySelector(".stuck-best"));
    const off = app.conn.on("hint", (/** @type {import("../net/messages.js").HintMessage} */ m) => {
      if (m.game !== state.game || m.v !== state.v || m.best == null) return;
      best.textContent = t("ui.best_possible", { n: m.best });
      best.hidden = false;
      d.dataset.best = String(m.best);
    });
    d.addEventListener("close", off);
    if (!v.state().hint) app.conn.send({ t: "hint", game: state.game });
    inside(d, ".end-score b").textContent = String(state.score);
    /** @type {HTMLButtonElement} */ (d.querySelector(".undo-end")).disabled = !state.can_undo;
    inside(d, ".undo-end").addEventListener("click", () => {
      d.close();
      session.act("undo");
    });
    inside(d, ".new-end").addEventListener("click", () => {
      d.close();
      openNewDialog();
    });
  }

  /** The win: a cascade of cards (not with reduced motion), the chime when the player wants sound, then the
   * result (score, moves, time, personal best, why it does not rank) and what next: share, the same deal
   * again, or a race of a friend on it. */
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let winTimer;
  function openWinDialog() {
    closeEndDialogs();
    const won = { .../** @type {GameState} */ (v.state().game) }; // the won game (its end opened this)
    const startedAt = settings.started(won.game);
    const ms = startedAt ? Math.max(0, Date.now() - startedAt) : null;
    const previous = won.code ? settings.best(won.code) : null;
    const better = !previous || won.score > previous.score || (won.score === previous.score && ms != null && ms < (previous.ms ?? Infinity));
    if (won.code && better) settings.setBest(won.code, { score: won.score, ms });
    board.cascade().then((r) => {
      if (r) app.metrics.cascade = r;
    });
    if (settings.sound && chime()) app.metrics.chimes = (app.metrics.chimes ?? 0) + 1;
    // the cascade first, the result a moment later (at once with reduced motion); not if play went on
    clearTimeout(winTimer);
    winTimer = setTimeout(() => {
      const now = v.state().game;
      if (!root.isConnected || !now || now.game !== won.game || now.v !== won.v) return;
      closeEndDialogs();
      const d = dialog(`
        <dialog class="dlg end won" aria-labelledby="won-title" aria-describedby="won-unranked" data-testid="win-dialog">
          <div class="fanfare" aria-hidden="true">${'<span class="mini-card"></span>'.repeat(7)}</div>
          <h2 id="won-title" data-t="ui.won_title"></h2>
          <p class="end-summary"></p>
          <dl class="end-stats">
            <div><dt data-t="ui.score"></dt><dd class="won-score" dir="ltr"></dd></div>
            <div><dt data-t="ui.time"></dt><dd class="won-time" dir="ltr"></dd></div>
            <div><dt data-t="ui.personal_best"></dt><dd class="won-best"></dd></div>
            <div><dt data-t="ui.rank"></dt><dd class="won-rank" data-t="ui.unranked"></dd></div>
          </dl>
          <p class="par won-par"></p>
          <p class="new-best" data-t="ui.new_best" hidden></p>
          <p id="won-unranked" class="unranked-why" data-t="ui.unranked_solo"></p>
          <p class="end-code"><bdi dir="ltr"></bdi></p>
          <div class="dlg-actions">
            <button type="button" class="btn share-end" data-t="ui.share"></button>
            <button type="button" class="btn again-end" data-t="ui.same_deal_again"></button>
            <button type="button" class="btn race-end" data-t="ui.race_friend"></button>
            <a class="btn analyse-end" data-t="ui.analysis.open"></a>
            <a class="btn ghost-end" data-t="ui.ghost.open"></a>
            <button type="button" class="btn primary new-end" data-t="ui.new_game"></button>
          </div>
        </dialog>`);
      analyseLink(d, won.game, won.code);
      inside(d, ".end-summary").textContent = t("ui.won_summary", { score: won.score, moves: won.moves });
      inside(d, ".dlg-actions").after(quickRaceBar({ compact: true }));
      inside(d, ".won-score").textContent = String(won.score);
      inside(d, ".won-time").textContent = clock(ms, { final: true });
      // a cleared table is the best any line of this deal reaches: the deal's par is the score just made
      inside(d, ".won-par").textContent = t("ui.par", { n: won.score });
      const best = better ? { score: won.score, ms } : previous;
      // score, then time, in the page's direction: each number isolated, so that Hebrew reads "350" first
      // (on the right) as English does on the left, and neither run reorders the other
      const bestBox = inside(d, ".won-best");
      if (best) bestBox.replaceChildren(isolated(String(best.score)), " · ", isolated(clock(best.ms, { final: true })));
      else bestBox.textContent = "—";
      /** @type {HTMLElement} */ (d.querySelector(".new-best")).hidden = !(better && previous);
      inside(d, ".end-code bdi").textContent = won.code ?? "";
      for (const b of d.querySelectorAll(".share-end, .again-end, .race-end")) /** @type {HTMLElement} */ (b).hidden = !won.code;
      inside(d, ".share-end").addEventListener("click", async () => {
        const text = t("ui.share_win", { code: won.code, score: won.score, time: clock(ms, { final: true }), link: location.origin + "/" });
        const how = await shareText(text);
        if (how === "copied") toast(t("ui.copied"));
      });
      inside(d, ".again-end").addEventListener("click", () => {
        d.close();
        if (won.code) dealAndFocus(won.code); // the button shows only with a code
      });
      inside(d, ".race-end").addEventListener("click", () => {
        d.close();
        if (won.code) raceFriend(won.code);
      });
      inside(d, ".new-end").addEventListener("click", () => {
        d.close();
        openNewDialog();
      });
      d.addEventListener("close", () => board.stopCascade());
    }, board.animated() ? WIN_PAUSE_MS : 0);
  }

  /** The focus to the board once its deal is shown (a keyboard player goes on from its first free card). */
  function focusBoard() {
    if (root.isConnected) board.focusFirst();
  }

  /** Deal `code` and put the focus on its board ("Play this deal", "Same deal again"). */
  function dealAndFocus(/** @type {string} */ code) {
    session.newGame({ code }).then(focusBoard, () => {});
  }

  // "Race a friend on this deal": a race (casual: its code is known) on the same code, then its lobby
  let raceCount = 0;
  function raceFriend(/** @type {string} */ code) {
    raceCount += 1;
    const rid = `p${raceCount}`;
    v.update({ t: "race_asked", rid });
    /** @type {Record<string, any>} */
    const msg = { t: "race_new", code, rid };
    const name = playerName();
    if (name) msg.name = name;
    app.conn.sendSoon(msg);
  }
  app.conn.on("race", (/** @type {import("../net/messages.js").RaceMessage} */ m) => v.update(m)); // its answer: the lobby (a race_new error comes through the session)

  // --- keyboard ------------------------------------------------------------------------------------------
  const onKey = boardKeys({
    tap: (/** @type {number} */ col) => {
      lastTapped = board.columns[col - 1].lastElementChild;
      session.act("tap", col);
    },
    draw: () => session.act("draw"),
    undo: () => {
      lastTapped = null;
      session.act("undo");
    },
    newGame: () => openNewDialog(),
    hint: () => askHint(),
    read: () => {
      const game = v.state().game;
      if (game) announce(describeState(game, locale()));
    },
  });

  return {
    root,
    title: "ui.nav_play",
    mount() {
      document.addEventListener("keydown", onKey);
      translate(root);
      if (app.conn.ready) this.start(app.conn.welcome);
    },
    unmount() {
      document.removeEventListener("keydown", onKey);
      clearTimeout(winTimer); // the win's result comes only over the Play view
    },
    relabel() {
      translate(root);
      const { game } = v.state();
      paintHud(v.state());
      if (game) {
        board.relabel(locale());
        q("#board-desc").textContent = describeState(game, locale());
      }
    },
    /** Once connected: reopen the last game if the server still has it for us, else deal one. */
    start(welcome) {
      if (started) return;
      started = true;
      const last = settings.game;
      const mine = Array.isArray(welcome?.games) ? welcome.games : [];
      if (last && mine.includes(last)) session.open(last, "player");
      else startRandom();
    },
    get state() {
      return v.state().game;
    },
    session,
    dealAndFocus,
    focusBoard,
  };
}
