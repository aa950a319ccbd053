// @ts-check
// The nine-deal course, mirroring server/golfrace/engine/course.py (docs/course.md): a course code
// GC1-<E|C|N>-<7 or 26 letters>[-<variants>], each hole's game code derived from it with SHA-256, strokes
// (cards left on the tableau), par 45, the to-par and share texts. Pure: no DOM, no socket. SHA-256 is
// written out here because crypto.subtle exists only on secure pages (not on a LAN address over http).
import { checkCode } from "./codes.js";
import { CODES, RULE } from "../net/messages.js";

export const COURSE_PREFIX = "GC1";
export const HOLES = 9;
export const HOLE_PAR = 5;
export const PAR = HOLES * HOLE_PAR;
const MINUS = "\u2212";
const DOMAIN = "golfrace-course-v1";

// --- SHA-256 (FIPS 180-4) ---------------------------------------------------------------------------------
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** @param {number} x @param {number} n */
const rotr = (x, n) => (x >>> n) | (x << (32 - n));

/** The SHA-256 digest of `bytes`. @param {Uint8Array} bytes @returns {Uint8Array} */
export function sha256(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + add[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
  return out;
}

// --- codes ------------------------------------------------------------------------------------------------
/**
 * A course code read: `{ok: true, code, rules, letters, variant, long}` (canonical spelling), or
 * `{ok: false, part}` naming the wrong part as the engine's CodeError does.
 * @param {string} text
 * @returns {{ok: true, code: string, rules: import("../net/messages.js").WireRules, letters: string, variant: string, long: boolean, part?: undefined}
 *   | {ok: false, part: string, code?: undefined, rules?: undefined, letters?: undefined, variant?: undefined, long?: undefined}}
 */
export function checkCourse(text) {
  const raw = String(text ?? "").trim().toUpperCase();
  const dash = raw.indexOf("-");
  if (dash < 0 || raw.slice(0, dash) !== COURSE_PREFIX || dash === raw.length - 1) return { ok: false, part: "prefix" };
  const game = checkCode(`${CODES.prefix}${raw.slice(dash)}`);
  if (!game.ok) return { ok: false, part: /** @type {string} */ (game.part) };
  const code = /** @type {string} */ (game.code); // a valid code has its code and rules
  const parts = code.split("-");
  const variant = parts[3] ?? "";
  return { ok: true, code: `${COURSE_PREFIX}${code.slice(3)}`, rules: /** @type {import("../net/messages.js").WireRules} */ (game.rules), letters: parts[2], variant, long: parts[2].length === 26 };
}

/** @param {string} letters @returns {bigint} */
function seedOf(letters) {
  let seed = 0n;
  for (const ch of letters) seed = seed * 26n + BigInt(ch.charCodeAt(0) - 65);
  return seed;
}

/** @param {bigint} seed @param {number} count @returns {string} */
function lettersOf(seed, count) {
  let out = "";
  for (let i = 0; i < count; i++) {
    out = String.fromCharCode(65 + Number(seed % 26n)) + out;
    seed /= 26n;
  }
  return out;
}

/**
 * The nine holes' game codes of a course code (throws on a bad code).
 * @param {string} courseCode
 * @returns {string[]}
 */
export function holeCodes(courseCode) {
  const c = checkCourse(courseCode);
  if (!c.ok) throw new Error(`bad course code (${c.part})`);
  const count = c.letters.length;
  const space = 26n ** BigInt(count);
  const seed = seedOf(c.letters);
  const head = [...DOMAIN].map((ch) => ch.charCodeAt(0));
  const seedBytes = [];
  for (let i = 15; i >= 0; i--) seedBytes.push(Number((seed >> BigInt(8 * i)) & 0xffn));
  const rule = CODES.canonical_letter[c.rules] ?? CODES.canonical_letter[RULE.EASY];
  const codes = [];
  for (let n = 1; n <= HOLES; n++) {
    const digest = sha256(new Uint8Array([...head, count, ...seedBytes, n]));
    let value = 0n;
    for (const byte of digest) value = (value << 8n) | BigInt(byte);
    codes.push(`${CODES.prefix}-${rule}-${lettersOf(value % space, count)}${c.variant ? `-${c.variant}` : ""}`);
  }
  return codes;
}

/** A fresh random seven-letter (casual) course code. @param {import("../net/messages.js").WireRules} rules */
export function randomCourse(rules) {
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  const seed = (BigInt(words[0]) * 2n ** 32n + BigInt(words[1])) % 26n ** 7n;
  return `${COURSE_PREFIX}-${CODES.canonical_letter[rules]}-${lettersOf(seed, 7)}`;
}

// --- the score --------------------------------------------------------------------------------------------
/** @param {number[]} holes */
export const total = (holes) => holes.reduce((a, b) => a + b, 0);

/** The total after each hole. @param {number[]} holes */
export function running(holes) {
  let acc = 0;
  return holes.map((s) => (acc += s));
}

/** Strokes against the par of the holes played (negative is under par). @param {number[]} holes */
export const toPar = (holes) => total(holes) - HOLE_PAR * holes.length;

/**
 * "−3 under par", "+2 over par" or "level par" through the catalogs' `t`.
 * @param {number} diff @param {(path: string, params?: object) => string} t
 */
export function toParText(diff, t) {
  if (diff < 0) return t("ui.course.to_par.under", { n: `${MINUS}${-diff}` });
  if (diff > 0) return t("ui.course.to_par.over", { n: `+${diff}` });
  return t("ui.course.to_par.level");
}

/**
 * The share text of a finished course: an open course's names its code (`ui.course.share`); the weekend's
 * daily course's names its day, never its code (hidden until the day is over: `ui.course.daily_share`).
 * @param {{code: string} | {day: string}} which @param {number[]} holes
 * @param {(path: string, params?: object) => string} t
 */
export function shareOf(which, holes, t) {
  const daily = "day" in which;
  return t(daily ? "ui.course.daily_share" : "ui.course.share", {
    ...which,
    strokes: total(holes),
    par: PAR,
    to_par: toParText(toPar(holes), t),
    holes: holes.join(" "),
  });
}

/** @param {string} code @param {number[]} holes @param {(path: string, params?: object) => string} t */
export const courseShare = (code, holes, t) => shareOf({ code }, holes, t);
