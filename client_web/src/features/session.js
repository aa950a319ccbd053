// @ts-check
// One game seen through the connection: opens or deals it, sends actions with increasing sequence numbers,
// applies the server's snapshots and diffs in order and asks for a resync when a version is missing.
import { applyDiff, DiffQueue, fromSnapshot, snapshotIsNewer } from "../game/gamestate.js";
import { ERROR, RULE, T } from "../net/messages.js";
import { nextSeq } from "../net/seq.js";
import { safeStorage } from "../net/storage.js";

/** @typedef {import("../game/gamestate.js").GameState} GameState */
/** @typedef {Record<string, any>} Message a decoded server message (views/race.js names it) */
/** @typedef {import("../net/messages.js").SnapshotMessage} SnapshotMessage */
/** @typedef {import("../net/messages.js").DiffMessage} DiffMessage */
/** @typedef {import("../net/messages.js").AckMessage} AckMessage */
/** @typedef {import("../net/messages.js").RefusedMessage} RefusedMessage */
/** @typedef {import("../net/messages.js").ErrorMessage} ErrorMessage */
/** @typedef {import("../net/messages.js").WireRules} WireRules */
/** @typedef {import("../net/messages.js").WireVariants} WireVariants */
/** @typedef {import("../net/net.js").OutMessage} OutMessage */
/** @typedef {{code: string, [field: string]: unknown}} Failure why a `new` failed: the server's error, or "offline"/"superseded" */

const SEQ_KEY = "golfrace.seq.";
/** Errors after which the server asks for the same message again (docs/protocol.md), and the waits. */
/** @type {Set<string>} */
const RESEND_CODES = new Set([ERROR.BUSY, ERROR.UNAVAILABLE, ERROR.RATE_LIMITED, ERROR.INTERNAL]);
const RESEND_MS = [300, 700, 1500, 3000, 5000];

export class GameSession {
  /**
   * `onChange(state, change, diff)` after each shown update; `onRefused(msg)` for a refused action;
   * `onError(msg)` for an error answering one of our requests.
   * @param {import("../net/net.js").Connection} conn
   * @param {{
   *   onChange?: (state: GameState, change: string, diff: DiffMessage | null) => void,
   *   onRefused?: (msg: RefusedMessage) => void,
   *   onError?: (msg: ErrorMessage) => void,
   *   storage?: Storage | null,
   * }} [options]
   */
  constructor(conn, { onChange = () => {}, onRefused = () => {}, onError = () => {}, storage } = {}) {
    this.conn = conn;
    this.onChange = onChange;
    this.onRefused = onRefused;
    this.onError = onError;
    this.storage = storage ?? safeStorage();
    /** @type {GameState | null} */
    this.state = null;
    /** @type {string | null} */
    this.gameId = null;
    this.role = "player";
    this.queue = new DiffQueue();
    /** @type {Map<number, OutMessage>} */
    this.pending = new Map(); // seq -> act message not yet answered
    /** @type {Map<number, number>} */
    this.resends = new Map(); // seq -> times resent after an error that asks for it
    /** @type {{rid: string, resolve: (state: GameState | null) => void, reject: (why: Failure) => void} | null} */
    this.awaiting = null; // {rid, resolve, reject} for a `new`
    /** @type {number | undefined} when the last diff arrived (performance.now()) */
    this.receivedAt = undefined;
    this.resyncing = false;
    this.rid = 0;
    this.off = [
      conn.on(T.snapshot, (m) => this.onSnapshot(m)),
      conn.on(T.diff, (m) => this.onDiff(m)),
      conn.on(T.ack, (m) => this.onAck(m)),
      conn.on(T.refused, (m) => this.onRefusedMsg(m)),
      conn.on(T.error, (m) => this.onErrorMsg(m)),
      conn.on("ready", ({ reconnect }) => reconnect && this.recover()),
      conn.on("down", () => this.onDown()),
    ];
  }

  dispose() {
    for (const off of this.off) off();
    if (this.gameId) this.conn.send({ t: T.close, game: this.gameId });
  }

  /**
   * Deal a new game: `code` (canonical) or nothing for a random one with `rules`. Resolves with the dealt
   * game; rejects with the server's error, or `{code: "offline"}` / `{code: "superseded"}`.
   * @param {{code?: string | null, rules?: WireRules, variants?: Partial<WireVariants> | null}} [options]
   * @returns {Promise<GameState | null>}
   */
  newGame({ code = null, rules = RULE.EASY, variants = null } = {}) {
    this.rid += 1;
    const rid = `n${this.rid}`;
    /** @type {OutMessage} */
    const msg = { t: T.new, rid };
    if (code) msg.code = code;
    else msg.rules = rules;
    if (variants) msg.variants = variants;
    return new Promise((/** @type {(state: GameState | null) => void} */ resolve, reject) => {
      this.awaiting?.reject?.({ code: "superseded" });
      this.awaiting = { rid, resolve, reject };
      if (!this.conn.send(msg)) {
        this.awaiting = null;
        reject({ code: "offline" });
      }
    });
  }

  /**
   * @param {string | null} gameId  the game to open (typed as loosely as the views' route ids, which are
   *   there whenever they open one)
   * @param {string} [role] "player" or "watcher"
   */
  open(gameId, role = "player") {
    this.gameId = gameId;
    this.role = role;
    this.conn.send({ t: T.open, game: gameId, role });
  }

  /**
   * @param {string} a "tap", "draw" or "undo"
   * @param {number | null} [col]
   * @param {number | null} [row]
   */
  act(a, col = null, row = null) {
    if (!this.gameId || this.role !== "player") return;
    const seq = this.nextSeq();
    /** @type {OutMessage} */
    const msg = { t: T.act, game: this.gameId, seq, a };
    if (col != null) msg.col = col;
    if (row != null) msg.row = row;
    this.pending.set(seq, msg);
    this.conn.send(msg);
  }

  /** @returns {number} */
  nextSeq() {
    return nextSeq(this.storage, SEQ_KEY + this.gameId);
  }

  /** After a reconnect: catch up from the last shown version, then resend what was never answered. */
  recover() {
    if (!this.gameId) return;
    // A new connection follows nothing: open again (a snapshot never older than what is shown), then
    // ask for the diffs after our version, then resend what was never answered (a resent seq is answered
    // by the server, never applied twice). The server handles one connection's messages in order.
    this.conn.send({ t: T.open, game: this.gameId, role: this.role });
    if (this.state) this.requestResync();
    for (const msg of this.pending.values()) this.conn.send(msg);
  }

  requestResync() {
    this.resyncing = true;
    this.conn.send({ t: T.resync, game: this.gameId, v: /** @type {GameState} */ (this.state).v });
  }

  /** @param {SnapshotMessage} msg */
  onSnapshot(msg) {
    const awaiting = this.awaiting;
    const answersNew = awaiting && (msg.rid === awaiting.rid || (msg.rid == null && msg.game !== this.gameId));
    if (!answersNew && msg.game !== this.gameId) return;
    if (answersNew) {
      const { resolve } = awaiting;
      this.awaiting = null;
      this.switchTo(msg.game, msg.role ?? "player");
      this.show(fromSnapshot(msg), "snapshot", null);
      resolve(this.state);
      return;
    }
    if (!snapshotIsNewer(this.state, msg)) return;
    this.resyncing = false;
    this.show(fromSnapshot(msg), "snapshot", null);
    this.flush();
  }

  /**
   * @param {string} gameId
   * @param {string} role
   */
  switchTo(gameId, role) {
    if (this.gameId && this.gameId !== gameId) this.conn.send({ t: T.close, game: this.gameId });
    this.gameId = gameId;
    this.role = role;
    this.state = null;
    this.queue.clear();
    this.pending.clear();
    this.resends.clear();
  }

  /** @param {DiffMessage} msg */
  onDiff(msg) {
    if (msg.game !== this.gameId || !this.state) return;
    this.receivedAt = performance.now();
    const { state, change } = applyDiff(this.state, msg);
    if (change === "stale") return;
    if (change === "gap") {
      this.queue.hold(msg);
      if (!this.resyncing) this.requestResync();
      return;
    }
    this.show(state, change, msg);
    this.flush();
  }

  flush() {
    for (const diff of this.queue.drain(/** @type {GameState} */ (this.state).v)) {
      const { state, change } = applyDiff(/** @type {GameState} */ (this.state), diff);
      if (change === "stale" || change === "gap") continue;
      this.show(state, change, diff);
    }
    if (this.queue.pending.size === 0) this.resyncing = false;
  }

  /**
   * @param {GameState} state
   * @param {string} change
   * @param {DiffMessage | null} diff
   */
  show(state, change, diff) {
    this.state = state;
    this.onChange(state, change, diff);
  }

  /** @param {AckMessage} msg */
  onAck(msg) {
    if (msg.game !== this.gameId) return;
    this.pending.delete(msg.seq);
    this.resends.delete(msg.seq);
  }

  /** Send the unanswered `seq` again after a growing wait; false once it was tried too often.
   * @param {number} seq
   * @returns {boolean}
   */
  resendLater(seq) {
    const n = this.resends.get(seq) ?? 0;
    if (n >= RESEND_MS.length) return false;
    this.resends.set(seq, n + 1);
    const game = this.gameId;
    setTimeout(() => {
      const msg = this.pending.get(seq);
      if (msg && this.gameId === game) this.conn.send(msg); // offline: recover() resends it
    }, RESEND_MS[n]);
    return true;
  }

  /** The connection dropped: a `new` in flight is given up (its button comes back); actions wait. */
  onDown() {
    if (this.awaiting) {
      const { reject } = this.awaiting;
      this.awaiting = null;
      reject({ code: "offline" });
    }
  }

  /** @param {RefusedMessage} msg */
  onRefusedMsg(msg) {
    if (msg.game !== this.gameId) return;
    this.pending.delete(msg.seq);
    this.resends.delete(msg.seq);
    this.onRefused(msg);
  }

  /** @param {ErrorMessage} msg */
  onErrorMsg(msg) {
    const awaiting = this.awaiting;
    if (awaiting && (msg.ref === "new" || msg.ref === awaiting.rid)) {
      const { reject } = awaiting;
      this.awaiting = null;
      reject(msg);
      return;
    }
    if (typeof msg.ref === "number" && this.pending.has(msg.ref)) {
      if (RESEND_CODES.has(msg.code) && this.resendLater(msg.ref)) {
        this.onError(msg); // "…your move is being sent again"
        return;
      }
      this.pending.delete(msg.ref);
      this.resends.delete(msg.ref);
    }
    if (msg.ref === "resync" || msg.ref === "open") {
      // The server cannot resync this game for us (unknown or expired): take a fresh snapshot instead.
      if (msg.ref === "resync" && this.gameId) this.conn.send({ t: T.open, game: this.gameId, role: this.role });
    }
    this.onError(msg);
  }
}
