// @ts-check
// One game seen through the connection: opens or deals it, sends actions with increasing sequence numbers,
// applies the server's snapshots and diffs in order and asks for a resync when a version is missing.
import { applyDiff, DiffQueue, fromSnapshot, snapshotIsNewer } from "./gamestate.js";
import { T } from "./messages.js";
import { nextSeq } from "./seq.js";
import { safeStorage } from "./storage.js";

/** @typedef {ReturnType<typeof fromSnapshot>} GameState the shown game (gamestate.js) */
/** @typedef {Record<string, any>} Message a decoded server message */

const SEQ_KEY = "golfrace.seq.";
/** Errors after which the server asks for the same message again (docs/protocol.md), and the waits. */
const RESEND_CODES = new Set(["busy", "unavailable", "rate_limited", "internal"]);
const RESEND_MS = [300, 700, 1500, 3000, 5000];

export class GameSession {
  /**
   * `onChange(state, change, diff)` after each shown update; `onRefused(msg)` for a refused action;
   * `onError(msg)` for an error answering one of our requests.
   * @param {import("./net.js").Connection} conn
   * @param {{
   *   onChange?: (state: GameState, change: string, diff: Message | null) => void,
   *   onRefused?: (msg: Message) => void,
   *   onError?: (msg: Message) => void,
   *   storage?: Storage | null,
   * }} [options]
   */
  constructor(conn, { onChange = () => {}, onRefused = () => {}, onError = () => {}, storage } = {}) {
    this.conn = conn;
    this.onChange = onChange;
    this.onRefused = onRefused;
    this.onError = onError;
    this.storage = storage ?? safeStorage();
    this.state = null;
    this.gameId = null;
    this.role = "player";
    this.queue = new DiffQueue();
    this.pending = new Map(); // seq -> act message not yet answered
    this.resends = new Map(); // seq -> times resent after an error that asks for it
    this.awaiting = null; // {rid, resolve, reject} for a `new`
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

  /** Deal a new game: `code` (canonical) or nothing for a random one with `rules`. */
  newGame({ code = null, rules = "easy", variants = null } = {}) {
    this.rid += 1;
    const rid = `n${this.rid}`;
    const msg = { t: T.new, rid };
    if (code) msg.code = code;
    else msg.rules = rules;
    if (variants) msg.variants = variants;
    return new Promise((resolve, reject) => {
      this.awaiting?.reject?.({ code: "superseded" });
      this.awaiting = { rid, resolve, reject };
      if (!this.conn.send(msg)) {
        this.awaiting = null;
        reject({ code: "offline" });
      }
    });
  }

  open(gameId, role = "player") {
    this.gameId = gameId;
    this.role = role;
    this.conn.send({ t: T.open, game: gameId, role });
  }

  act(a, col = null, row = null) {
    if (!this.gameId || this.role !== "player") return;
    const seq = this.nextSeq();
    const msg = { t: T.act, game: this.gameId, seq, a };
    if (col != null) msg.col = col;
    if (row != null) msg.row = row;
    this.pending.set(seq, msg);
    this.conn.send(msg);
  }

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
    this.conn.send({ t: T.resync, game: this.gameId, v: this.state.v });
  }

  onSnapshot(msg) {
    const answersNew = this.awaiting && (msg.rid === this.awaiting.rid || (msg.rid == null && msg.game !== this.gameId));
    if (!answersNew && msg.game !== this.gameId) return;
    if (answersNew) {
      const { resolve } = this.awaiting;
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

  switchTo(gameId, role) {
    if (this.gameId && this.gameId !== gameId) this.conn.send({ t: T.close, game: this.gameId });
    this.gameId = gameId;
    this.role = role;
    this.state = null;
    this.queue.clear();
    this.pending.clear();
    this.resends.clear();
  }

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
    for (const diff of this.queue.drain(this.state.v)) {
      const { state, change } = applyDiff(this.state, diff);
      if (change === "stale" || change === "gap") continue;
      this.show(state, change, diff);
    }
    if (this.queue.pending.size === 0) this.resyncing = false;
  }

  show(state, change, diff) {
    this.state = state;
    this.onChange(state, change, diff);
  }

  onAck(msg) {
    if (msg.game !== this.gameId) return;
    this.pending.delete(msg.seq);
    this.resends.delete(msg.seq);
  }

  /** Send the unanswered `seq` again after a growing wait; false once it was tried too often. */
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

  onRefusedMsg(msg) {
    if (msg.game !== this.gameId) return;
    this.pending.delete(msg.seq);
    this.resends.delete(msg.seq);
    this.onRefused(msg);
  }

  onErrorMsg(msg) {
    if (this.awaiting && (msg.ref === "new" || msg.ref === this.awaiting.rid)) {
      const { reject } = this.awaiting;
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
