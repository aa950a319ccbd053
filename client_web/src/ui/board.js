// @ts-check
// The board: seven columns, the stock and the discard. It paints a state and animates the one card that
// moved; it never decides anything about the rules (taps go to the server, which answers with a diff).
import { catalog, format, pluralCategory, t } from "./i18n.js";
import { cardLabel, makeCard, paintCard } from "./cards.js";

const COLUMNS = 7;
const MOVE_MS = 190;
const HINT_MS = 2200; // how long a hinted card or the stock stays highlighted
const CASCADE_CARDS = 16; // the win's cascade: cards, each one's flight, and the start of one after another
const CASCADE_MS = 1400;
const CASCADE_STAGGER_MS = 60;
const CASCADE_RANKS = "A23456789TJQK";

/** @typedef {import("../game/gamestate.js").BoardState} BoardState */
/** @typedef {import("../game/gamestate.js").Moved} Moved */
/** @typedef {import("../game/gamestate.js").Paintable} Paintable */
/**
 * Where the moving card starts, to slide it from there after repainting.
 * @typedef {{kind: "to-discard", from: DOMRect, flip?: boolean}
 *   | {kind: "to-column", col: number, from: DOMRect}
 *   | {kind: "to-stock", ghost: HTMLElement, from: DOMRect}} Flight
 */
/** @typedef {{frames: number, ms: number, gaps: number[]}} CascadeTimes the frame times seen during a cascade */

export class Board {
  /**
   * @param {{
   *   interactive?: boolean,
   *   onTap?: (col: number, row: number | null, card: HTMLElement) => void,
   *   onDraw?: () => void,
   *   compact?: boolean,
   * }} [options]
   */
  constructor({ interactive = true, onTap = () => {}, onDraw = () => {}, compact = false } = {}) {
    this.interactive = interactive;
    this.onTap = onTap;
    this.onDraw = onDraw;
    /** @type {BoardState | null} */
    this.state = null;
    this.loc = "en";
    /** @type {HTMLElement | null} */
    this.cascadeLayer = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.hintTimer = undefined;
    this.el = document.createElement("div");
    this.el.className = compact ? "board compact" : "board";
    this.el.setAttribute("role", "group"); // named, so its description (aria-describedby) is announced
    this.el.innerHTML = `
      <div class="tableau" role="group"></div>
      <div class="piles">
        <button type="button" class="stock"><span class="stock-stack"></span><span class="count" dir="ltr"></span></button>
        <div class="discard" role="img"></div>
      </div>`;
    this.tableau = /** @type {HTMLElement} */ (this.el.querySelector(".tableau"));
    this.stock = /** @type {HTMLButtonElement} */ (this.el.querySelector(".stock"));
    this.stockStack = /** @type {HTMLElement} */ (this.el.querySelector(".stock-stack"));
    this.count = /** @type {HTMLElement} */ (this.el.querySelector(".count"));
    this.discard = /** @type {HTMLElement} */ (this.el.querySelector(".discard"));
    /** @type {HTMLElement[]} */
    this.columns = [];
    for (let c = 1; c <= COLUMNS; c++) {
      const col = document.createElement("div");
      col.className = "column";
      col.setAttribute("role", "group");
      col.dataset.col = String(c);
      this.tableau.append(col);
      this.columns.push(col);
    }
    if (!interactive) {
      this.stock.disabled = true;
      this.stock.tabIndex = -1;
    }
    this.tableau.addEventListener("click", (e) => {
      const card = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest(".card"));
      if (!card || !this.interactive || !this.state) return;
      const col = Number(/** @type {HTMLElement} */ (card.parentElement).dataset.col);
      const row = Number(card.dataset.row);
      const free = row === this.state.columns[col - 1].length;
      this.onTap(col, free ? null : row, card);
    });
    this.stock.addEventListener("click", () => this.interactive && this.onDraw());
    this.tableau.addEventListener("keydown", (e) => this.interactive && this.arrow(e));
    // A mouse or touch tap never leaves the focus on a card or the stock: a focused card is drawn raised,
    // and the keys that follow (Space) would press it. The keyboard still reaches the free cards with Tab.
    this.el.addEventListener("mousedown", (e) => {
      if (/** @type {Element} */ (e.target).closest(".card, .stock")) e.preventDefault();
    });
    this.el.addEventListener("click", (e) => {
      const focused = /** @type {HTMLElement | null} */ (document.activeElement);
      if (e.detail > 0 && focused && this.el.contains(focused)) focused.blur();
    });
  }

  /**
   * Paint `state`; `change` is the action that led here ("tap", "draw", "undo") or "snapshot".
   * @param {Paintable} shown  a BoardState
   * @param {string} [change]
   * @param {Moved | null} [diff] the diff that led here (to animate its card)
   * @param {string} [loc]
   */
  render(shown, change = "snapshot", diff = null, loc = this.loc) {
    const state = /** @type {BoardState} */ (shown);
    const relabel = loc !== this.loc;
    this.loc = loc;
    const before = this.state;
    const flight = before && diff && change !== "snapshot" ? this.planFlight(before, diff) : null;
    this.state = state;
    const focused = document.activeElement;
    const hadFocus = focused && this.tableau.contains(focused) ? Number(/** @type {HTMLElement | null} */ (focused.parentElement)?.dataset.col) : 0;

    for (let c = 0; c < COLUMNS; c++) this.paintColumn(c, state.columns[c] ?? [], relabel);
    const discardChanged =
      relabel || !before || before.discard !== state.discard || Boolean(before.held) !== Boolean(state.held);
    this.paintPiles(state, discardChanged, flight?.kind === "to-discard");
    this.el.setAttribute("aria-label", t("ui.board_label"));
    this.tableau.setAttribute("aria-label", t("ui.tableau"));

    if (hadFocus && !this.tableau.contains(document.activeElement)) this.refocus(hadFocus);
    if (flight) this.fly(flight);
  }

  /** @param {string} loc */
  relabel(loc) {
    if (this.state) this.render(this.state, "snapshot", null, loc);
  }

  /**
   * @param {number} c
   * @param {string[]} cards
   * @param {boolean} relabel
   */
  paintColumn(c, cards, relabel) {
    const col = this.columns[c];
    col.setAttribute("aria-label", t("ui.column", { n: c + 1 }));
    const kids = /** @type {HTMLCollectionOf<HTMLElement>} */ (col.children);
    let keep = 0;
    while (keep < kids.length && keep < cards.length && kids[keep].dataset.card === cards[keep]) keep++;
    while (kids.length > keep) kids[kids.length - 1].remove();
    for (let r = keep; r < cards.length; r++) {
      const el = makeCard(cards[r], this.loc);
      el.dataset.row = String(r + 1);
      el.style.setProperty("--row", String(r));
      col.append(el);
    }
    for (let r = 0; r < cards.length; r++) {
      const el = kids[r];
      const free = r === cards.length - 1;
      if (relabel) paintCard(el, cards[r], this.loc);
      el.classList.toggle("free", free);
      el.tabIndex = free && this.interactive ? 0 : -1;
      if (!this.interactive) el.setAttribute("aria-disabled", "true");
      const name = cardLabel(cards[r], this.loc);
      el.setAttribute("aria-label", free ? t("ui.card_free", { card: name }) : t("ui.card_covered", { card: name }));
    }
    col.classList.toggle("empty", cards.length === 0);
  }

  /**
   * @param {BoardState} state
   * @param {boolean} discardChanged
   * @param {boolean} [keepUnder]
   */
  paintPiles(state, discardChanged, keepUnder = false) {
    const n = state.stock_count;
    this.count.textContent = String(n);
    this.stock.classList.toggle("empty", n === 0);
    this.stockStack.style.setProperty("--depth", String(Math.min(n, 4)));
    const texts = catalog(this.loc).describe;
    const count = format(texts.stock[pluralCategory(n, this.loc)], { n });
    this.stock.setAttribute("aria-label", n > 0 && this.interactive ? `${count}. ${t("ui.draw")}` : count);
    if (n === 0) this.stock.setAttribute("aria-disabled", "true"); // still tappable: the refusal is explained
    else if (this.interactive) this.stock.removeAttribute("aria-disabled");
    // a watcher of a ranked race: the racer drew a card that others have not reached yet (fair play): it
    // lies face down on the discard until they have
    const held = !state.discard && Boolean(state.held);
    const label = state.discard
      ? format(texts.discard, { card: cardLabel(state.discard, this.loc) })
      : held
        ? texts.discard_held
        : texts.discard_empty;
    this.discard.setAttribute("aria-label", label);
    if (held) this.discard.title = label;
    else this.discard.removeAttribute("title");
    if (!discardChanged) return;
    const old = this.topDiscard();
    this.discard.replaceChildren();
    if (state.discard) this.discard.append(makeCard(state.discard, this.loc, { tag: "span" }));
    else if (held) this.discard.append(Object.assign(document.createElement("span"), { className: "card held-back" }));
    // the old top card stays under a card flying onto the discard until it lands (see fly); it comes after
    // the top card in the DOM (the top card is the discard's first card) and is drawn below it (CSS)
    if (keepUnder && old && old.dataset.card !== state.discard) {
      old.classList.add("under");
      this.discard.append(old);
    }
  }

  /** The discard's top card element (not the one left under a flying card). */
  topDiscard() {
    return /** @type {HTMLElement | null} */ (this.discard.querySelector(".card:not(.under)"));
  }

  /** The focus on the board: the first free card (column 1 on), else the stock. */
  focusFirst() {
    this.refocus(1);
  }

  /** Arrow keys: the focus to the free card of the next column that has one, the way the arrow points
   * (the columns run right to left on a right-to-left page). */
  arrow(/** @type {KeyboardEvent} */ e) {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    const card = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest?.(".card"));
    if (!step || !card || !this.tableau.contains(card)) return;
    const rtl = getComputedStyle(this.tableau).direction === "rtl";
    const from = Number(card.parentElement?.dataset.col);
    for (let i = 1; i < COLUMNS; i++) {
      const c = from + i * (rtl ? -step : step);
      if (c < 1 || c > COLUMNS) break;
      const free = /** @type {HTMLElement | null} */ (this.columns[c - 1].lastElementChild);
      if (free) {
        e.preventDefault();
        free.focus();
        return;
      }
    }
  }

  /** @param {number} col */
  refocus(col) {
    for (let i = 0; i < COLUMNS; i++) {
      const c = ((col - 1 + i) % COLUMNS) + 1;
      const free = /** @type {HTMLElement | null} */ (this.columns[c - 1].lastElementChild);
      if (free) {
        free.focus({ preventScroll: true });
        return;
      }
    }
    if (this.interactive) this.stock.focus({ preventScroll: true });
  }

  // --- animation: remember where the moving card starts, then slide it from there after repainting ---
  /**
   * @param {BoardState} before
   * @param {Moved} diff
   * @returns {Flight | null}
   */
  planFlight(before, diff) {
    if (!this.animated()) return null;
    if (diff.removed) {
      const el = this.columns[diff.removed.col - 1]?.lastElementChild;
      return el ? { kind: "to-discard", from: el.getBoundingClientRect() } : null;
    }
    if (diff.drawn) return { kind: "to-discard", from: this.stock.getBoundingClientRect(), flip: true };
    if (diff.restored) {
      const el = this.topDiscard();
      return el ? { kind: "to-column", col: diff.restored.col, from: el.getBoundingClientRect() } : null;
    }
    if (diff.undrawn) {
      const el = this.topDiscard();
      return el ? { kind: "to-stock", ghost: /** @type {HTMLElement} */ (el.cloneNode(true)), from: el.getBoundingClientRect() } : null;
    }
    return null;
  }

  /** @param {Flight} f */
  fly(f) {
    const easing = "cubic-bezier(.2,.7,.3,1)";
    if (f.kind === "to-discard" || f.kind === "to-column") {
      const el =
        f.kind === "to-discard" ? this.topDiscard() : /** @type {HTMLElement | null} */ (this.columns[f.col - 1].lastElementChild);
      if (!el) return;
      // a moving card is no tap target: a quick second tap on the stock under it still draws
      el.classList.add("flying");
      const to = el.getBoundingClientRect();
      const dx = f.from.left - to.left;
      const dy = f.from.top - to.top;
      const start = f.kind === "to-discard" && f.flip
        ? `translate(${dx}px, ${dy}px) rotateY(90deg)`
        : `translate(${dx}px, ${dy}px) scale(1.04)`;
      const anim = el.animate([{ transform: start, zIndex: 50 }, { transform: "none", zIndex: 50 }], {
        duration: MOVE_MS,
        easing,
      });
      const landed = () => {
        el.classList.remove("flying");
        if (f.kind === "to-discard") for (const under of this.discard.querySelectorAll(".under")) under.remove();
      };
      anim.onfinish = landed;
      anim.oncancel = landed;
      return;
    }
    if (f.kind === "to-stock") {
      const to = this.stock.getBoundingClientRect();
      const g = f.ghost;
      g.classList.add("ghost");
      Object.assign(g.style, { left: `${f.from.left}px`, top: `${f.from.top}px`, width: `${f.from.width}px`, height: `${f.from.height}px` });
      document.body.append(g);
      const anim = g.animate(
        [{ transform: "none" }, { transform: `translate(${to.left - f.from.left}px, ${to.top - f.from.top}px) rotateY(90deg)` }],
        { duration: MOVE_MS, easing },
      );
      anim.onfinish = () => g.remove();
    }
  }

  /** The win: cards leap off the discard and bounce down the screen for about two seconds (none with reduced
   * motion). Resolves with the frame times seen meanwhile ({frames, ms}), for the speed report.
   * @param {{count?: number}} [options]
   * @returns {Promise<CascadeTimes | null>}
   */
  cascade({ count = CASCADE_CARDS } = {}) {
    if (!this.animated()) return Promise.resolve(null);
    const from = this.discard.getBoundingClientRect();
    const layer = document.createElement("div");
    layer.className = "cascade";
    layer.setAttribute("aria-hidden", "true");
    document.body.append(layer);
    const w = innerWidth;
    const h = innerHeight;
    /** @type {{card: HTMLElement, frames: Keyframe[], delay: number}[]} */
    const plans = [];
    for (let i = 0; i < count; i++) {
      const code = CASCADE_RANKS[(i * 5) % 13] + "HSDC"[i % 4];
      const card = makeCard(code, this.loc, { tag: "span" });
      Object.assign(card.style, { left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px` });
      layer.append(card);
      // each card flies out to one side, falls to the bottom edge and bounces twice, lower each time
      const side = i % 2 ? 1 : -1;
      const reach = side * (w * (0.18 + (0.5 * ((i * 7) % count)) / count));
      const floor = h - from.top - from.height;
      /** @type {Keyframe[]} */
      const frames = [0, 0.28, 0.46, 0.62, 0.76, 0.88, 1].map((offset, k) => {
        const x = reach * offset;
        const y = [0, floor, floor * 0.55, floor, floor * 0.8, floor, floor + from.height * 1.2][k];
        return { offset, transform: `translate(${x}px, ${y}px) rotate(${side * offset * 200}deg)` };
      });
      frames[1].easing = "cubic-bezier(.5,0,1,1)";
      plans.push({ card, frames, delay: i * CASCADE_STAGGER_MS });
    }
    this.cascadeLayer = layer;
    // the cards are styled and painted in this frame; they move from the next one, when the frame times start
    return new Promise((/** @type {(value?: unknown) => void} */ resolve) => requestAnimationFrame(() => resolve())).then(() => {
      if (!layer.isConnected) return null; // stopped before it moved
      const anims = plans.map((p) =>
        p.card.animate(p.frames, { duration: CASCADE_MS, delay: p.delay, fill: "backwards" }),
      );
      /** @type {number[]} */
      const times = [];
      let running = true;
      /** @param {number} now */
      const tick = (now) => {
        times.push(now);
        if (running) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      return Promise.all(anims.map((a) => a.finished.catch(() => null))).then(() => {
        running = false;
        layer.remove();
        if (this.cascadeLayer === layer) this.cascadeLayer = null;
        const gaps = times.slice(1).map((t, i) => t - times[i]);
        return { frames: gaps.length, ms: times.length > 1 ? times[times.length - 1] - times[0] : 0, gaps };
      });
    });
  }

  /** Stop a cascade at once (a new game, leaving the view). */
  stopCascade() {
    const layer = this.cascadeLayer;
    if (!layer) return;
    for (const a of layer.getAnimations({ subtree: true })) a.cancel();
    layer.remove();
    this.cascadeLayer = null;
  }

  animated() {
    return !globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  }

  /**
   * Point at a suggested move for a moment: the free card of `move.col`, or the stock for a draw.
   * @param {Record<string, any> | null | undefined} move a WireHintMove ({a: "tap", col} or {a: "draw"})
   * @param {number} [ms]
   * @returns {Element | null} the highlighted card or stock
   */
  highlight(move, ms = HINT_MS) {
    for (const old of this.el.querySelectorAll(".hinted")) old.classList.remove("hinted");
    clearTimeout(this.hintTimer);
    const target = move?.a === "tap" ? this.columns[move.col - 1]?.lastElementChild : move?.a === "draw" ? this.stock : null;
    if (!target) return null;
    target.classList.add("hinted");
    this.hintTimer = setTimeout(() => target.classList.remove("hinted"), ms);
    return target;
  }

  /** A short shake on a refused card (only when the interactive rules explain refusals). */
  /** @param {Element | null | undefined} el */
  shake(el) {
    if (!el || !this.animated()) return;
    el.animate(
      [{ transform: "translateX(0)" }, { transform: "translateX(-5px)" }, { transform: "translateX(5px)" }, { transform: "translateX(0)" }],
      { duration: 220, easing: "ease-in-out" },
    );
  }
}
