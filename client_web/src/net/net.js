// @ts-check
// One websocket to the server, msgpack frames (subprotocol golfrace.msgpack), reconnecting by itself.
// It knows the hello/welcome handshake and nothing about games: views listen to message types.
import { decode, encode } from "@msgpack/msgpack";
import { CLIENT, CLOSE, T } from "./messages.js";
import { safeStorage } from "./storage.js";

/** @typedef {import("./messages.js").ServerMessage} ServerMessage */
/** @typedef {import("./messages.js").WelcomeMessage} WelcomeMessage */
/**
 * A message to the server. `send` also takes a looser `Record<string, any>` (a view builds one field by field):
 * checkMessage checks every message against CLIENT before it leaves.
 * @typedef {{t: keyof typeof CLIENT, rid?: string, [field: string]: unknown}} OutMessage
 */
/**
 * What a listener of each kind receives: a server message by its type, and the connection's own events
 * ("ready" after each welcome, "down" when the socket closed, "*" for every server message).
 * @typedef {{[K in ServerMessage["t"]]: Extract<ServerMessage, {t: K}>}
 *   & {ready: {welcome: WelcomeMessage, reconnect: boolean}, down: {code: number, wasReady: boolean}, "*": ServerMessage}} ConnEvents
 */

const SUBPROTOCOL = "golfrace.msgpack";
const TOKEN_KEY = "golfrace.token";
/** Reconnect delays in ms (then the last one again), each with up to 100% random extra so that the clients
 * of a restarted server do not all come back in the same instant. */
export const BACKOFF_MS = [200, 500, 1000, 2000, 4000, 8000];
/** A connection counts as healthy (the delays start again from the first) once it stayed up this long. */
const STABLE_MS = 10_000;
/** How long an HTTP call waits for the first welcome's token before it goes without one (offline). */
const TOKEN_WAIT_MS = 8_000;
/** Close codes after which we wait at least BACKOFF_MS[3]: the server closed us for flooding, being slow, or
 * holding too many connections (4030: another tab may close in the meantime). */
/** @type {Set<number>} */
const SLOW_DOWN = new Set([CLOSE.too_slow, CLOSE.flood, CLOSE.too_many_connections]);

/** @param {{protocol: string, host: string}} [loc] */
export function wsUrl(loc = globalThis.location) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/ws`;
}

/** A message this client is about to send is one of the wire's (messages.js, generated from the server's
 * definition): an unknown type or field is a bug of this client, raised at once rather than sent.
 * @param {{t?: unknown}} msg
 */
export function checkMessage(msg) {
  /** @type {readonly string[] | undefined} */
  const fields = CLIENT[/** @type {keyof typeof CLIENT} */ (msg?.t)];
  if (!fields) throw new Error(`unknown message type ${JSON.stringify(msg?.t)}`);
  for (const name of Object.keys(msg)) {
    if (name !== "t" && name !== "rid" && !fields.includes(name)) {
      throw new Error(`${msg.t}: unknown field ${JSON.stringify(name)}`);
    }
  }
}

/** The header that says to the HTTP API that ``token``'s player asks (every call sends it this way).
 * @param {string} token
 * @returns {Record<string, string>} */
export function bearer(token) {
  return { Authorization: `Bearer ${token}` };
}

export class Connection {
  /** @param {{url?: string, lang?: string, name?: string | null, storage?: Storage | null}} [options] */
  constructor({ url = wsUrl(), lang = "en", name = null, storage = safeStorage() } = {}) {
    this.url = url;
    this.lang = lang;
    this.name = name;
    this.storage = storage;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.ready = false;
    this.attempt = 0;
    this.connections = 0;
    /** @type {WelcomeMessage | null} */
    this.welcome = null;
    /** @type {string | null} */
    this.sid = null; // the seq space from the first welcome: resent actions stay answerable after a reconnect
    /** @type {string | null} */
    this.memoryToken = null; // the token when storage is unavailable
    this.clockOffset = 0;
    /** @type {Map<string, Set<(payload: any) => void>>} */
    this.listeners = new Map();
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.stableTimer = undefined;
    /** Messages a player asked for while the connection was not ready, by kind: sent on the next "ready". */
    /** @type {Map<string, OutMessage | Record<string, any>>} */
    this.soon = new Map();
  }

  /** @returns {string | null} */
  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? this.memoryToken;
  }

  /**
   * The player's token for an HTTP call: the one kept, at once; on a first visit, the one the first welcome
   * brings (a click right after the page opened must not act as nobody). Null if no welcome comes in time.
   * @param {number} [ms]
   * @returns {Promise<string | null>}
   */
  tokenSoon(ms = TOKEN_WAIT_MS) {
    if (this.token) return Promise.resolve(this.token);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        resolve(this.token);
      };
      const off = this.on("ready", done);
      const timer = setTimeout(done, ms);
    });
  }

  /** The headers that say who this player is to the HTTP API (none before any token: see tokenSoon).
   * @returns {Promise<Record<string, string>>} */
  async authHeaders() {
    const token = await this.tokenSoon();
    return token ? bearer(token) : {};
  }

  /**
   * Listen to a server message type or a connection event; returns the function that stops listening.
   * @template {keyof ConnEvents} K
   * @param {K} type
   * @param {(payload: ConnEvents[K]) => void} fn
   * @returns {() => void}
   */
  on(type, fn) {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn);
    return () => this.listeners.get(type)?.delete(fn);
  }

  /**
   * @param {string} type
   * @param {unknown} payload
   */
  emit(type, payload) {
    for (const fn of [...(this.listeners.get(type) ?? [])]) fn(payload);
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.stableTimer);
    this.ws?.close(1000);
  }

  connect() {
    clearTimeout(this.timer);
    let ws;
    try {
      ws = new WebSocket(this.url, [SUBPROTOCOL]);
    } catch {
      this.scheduleReconnect();
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      /** @type {OutMessage} */
      const hello = { t: T.hello, lang: this.lang };
      if (this.token) hello.token = this.token;
      if (this.name) hello.name = this.name;
      if (this.sid) hello.sid = this.sid;
      this.raw(hello);
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      const wasReady = this.ready;
      this.ready = false;
      this.ws = null;
      clearTimeout(this.stableTimer);
      if (SLOW_DOWN.has(event.code)) this.attempt = Math.max(this.attempt, 3);
      this.emit("down", { code: event.code, wasReady });
      if (!this.stopped) this.scheduleReconnect();
    };
    ws.onerror = () => {}; // onclose follows and handles it
  }

  /** A new connection at once, in place of this one (after signing in or out: its handshake carries the new
   * session cookie). Deliberate, so it waits for no back-off, and the old socket's close is not a "down". */
  reconnectNow() {
    const old = this.ws;
    this.ws = null; // its onclose sees another socket and does nothing
    this.ready = false;
    clearTimeout(this.timer);
    old?.close(1000);
    if (!this.stopped) this.connect();
  }

  scheduleReconnect() {
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), base + Math.random() * base);
  }

  /** @param {string | ArrayBuffer} data */
  receive(data) {
    /** @type {any} */
    let msg;
    try {
      msg = typeof data === "string" ? JSON.parse(data) : decode(new Uint8Array(data));
    } catch {
      return; // a frame we cannot read is dropped, the next snapshot or resync repairs the view
    }
    if (!msg || typeof msg !== "object" || typeof msg.t !== "string") return;
    if (typeof msg.now === "number") this.clockOffset = msg.now - Date.now();
    if (msg.t === T.welcome) {
      if (msg.token) {
        this.memoryToken = msg.token;
        this.storage?.setItem(TOKEN_KEY, msg.token);
      }
      if (typeof msg.sid === "string") this.sid = msg.sid;
      this.welcome = msg;
      this.ready = true;
      clearTimeout(this.stableTimer);
      this.stableTimer = setTimeout(() => (this.attempt = 0), STABLE_MS);
      this.connections += 1;
      this.emit("ready", { welcome: msg, reconnect: this.connections > 1 });
      const waiting = [...this.soon.values()];
      this.soon.clear();
      for (const m of waiting) this.send(m);
      return;
    }
    if (msg.t === T.error && !this.ready && /token/.test(String(msg.code))) {
      // The stored token was refused (another server secret): start over as a new player.
      this.storage?.removeItem(TOKEN_KEY);
      this.memoryToken = null;
      this.raw({ t: T.hello, lang: this.lang });
      return;
    }
    this.emit(msg.t, msg);
    this.emit("*", msg);
  }

  /**
   * Send a message if the handshake is done; returns whether it left.
   * @param {OutMessage | Record<string, any>} msg
   * @returns {boolean}
   */
  send(msg) {
    if (!this.ready) return false;
    return this.raw(msg);
  }

  /** Send a message a player asked for (a click): now if the handshake is done, else as soon as it is. A
   * click made while the page is still connecting (or reconnecting) is not lost; a second one of the same
   * kind before then replaces the first. Only a message that never left is kept: nothing is sent twice.
   * @param {OutMessage | Record<string, any>} msg
   * @param {string} [kind]
   */
  sendSoon(msg, kind = String(msg.t)) {
    if (this.send(msg)) return;
    checkMessage(msg);
    this.soon.set(kind, msg);
  }

  /**
   * @param {OutMessage | Record<string, any>} msg
   * @returns {boolean}
   */
  raw(msg) {
    checkMessage(msg);
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(encode(msg));
    return true;
  }

  /** The server's clock in ms since the epoch, as learnt from welcome/pong. */
  serverNow() {
    return Date.now() + this.clockOffset;
  }
}
