// @ts-check
// One websocket to the server, msgpack frames (subprotocol golfrace.msgpack), reconnecting by itself.
// It knows the hello/welcome handshake and nothing about games: views listen to message types.
import { decode, encode } from "@msgpack/msgpack";
import { CLIENT, T } from "./messages.js";
import { safeStorage } from "./storage.js";

const SUBPROTOCOL = "golfrace.msgpack";
const TOKEN_KEY = "golfrace.token";
/** Reconnect delays in ms (then the last one again), each with up to 100% random extra so that the clients
 * of a restarted server do not all come back in the same instant. */
export const BACKOFF_MS = [200, 500, 1000, 2000, 4000, 8000];
/** A connection counts as healthy (the delays start again from the first) once it stayed up this long. */
const STABLE_MS = 10_000;
/** Close codes after which we wait at least BACKOFF_MS[3]: the server closed us for flooding or being slow. */
const SLOW_DOWN = new Set([4008, 4029]);

export function wsUrl(loc = globalThis.location) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/ws`;
}

/** A message this client is about to send is one of the wire's (messages.js, generated from the server's
 * definition): an unknown type or field is a bug of this client, raised at once rather than sent. */
export function checkMessage(msg) {
  const fields = CLIENT[msg?.t];
  if (!fields) throw new Error(`unknown message type ${JSON.stringify(msg?.t)}`);
  for (const name of Object.keys(msg)) {
    if (name !== "t" && name !== "rid" && !fields.includes(name)) {
      throw new Error(`${msg.t}: unknown field ${JSON.stringify(name)}`);
    }
  }
}

export class Connection {
  constructor({ url = wsUrl(), lang = "en", name = null, storage = safeStorage() } = {}) {
    this.url = url;
    this.lang = lang;
    this.name = name;
    this.storage = storage;
    this.ws = null;
    this.ready = false;
    this.attempt = 0;
    this.connections = 0;
    this.welcome = null;
    this.sid = null; // the seq space from the first welcome: resent actions stay answerable after a reconnect
    this.memoryToken = null; // the token when storage is unavailable
    this.clockOffset = 0;
    this.listeners = new Map();
    this.stopped = false;
    this.timer = null;
    this.stableTimer = null;
    /** Messages a player asked for while the connection was not ready, by kind: sent on the next "ready". */
    this.soon = new Map();
  }

  get token() {
    return this.storage?.getItem(TOKEN_KEY) ?? this.memoryToken;
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type)?.delete(fn);
  }

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

  receive(data) {
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

  /** Send a message if the handshake is done; returns whether it left. */
  send(msg) {
    if (!this.ready) return false;
    return this.raw(msg);
  }

  /** Send a message a player asked for (a click): now if the handshake is done, else as soon as it is. A
   * click made while the page is still connecting (or reconnecting) is not lost; a second one of the same
   * kind before then replaces the first. Only a message that never left is kept: nothing is sent twice. */
  sendSoon(msg, kind = String(msg.t)) {
    if (this.send(msg)) return;
    checkMessage(msg);
    this.soon.set(kind, msg);
  }

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
