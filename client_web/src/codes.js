// @ts-check
// Game code format check, mirroring server/golfrace/engine/codes.py: GO1-<E|C|N>-<7 or 26 letters>[-<variants>]
// (seven letters: a casual code; 26: a long code, as ranked races and the daily challenge deal).
// The server stays the judge; this only lets the dialog point at the wrong part while the player types.
const PREFIX = "GO1";
const SEED_LETTERS = 7;
const LONG_SEED_LETTERS = 26;
const RULE_LETTERS = { E: "easy", N: "easy", C: "classic" };
const VARIANT_RE = /^(S?)(?:J([0-9]))?(D?)$/;
const MAX_JOKERS = 2;

/** `{ok: true, code, rules}` with the canonical spelling, or `{ok: false, part}` naming the wrong part
 * (prefix, length, rules, character, variant — the same names as the engine's CodeError.part). */
export function checkCode(text) {
  const raw = String(text ?? "").trim().toUpperCase();
  const parts = raw.split("-");
  if (parts[0] !== PREFIX) return { ok: false, part: "prefix" };
  if (parts.length !== 3 && parts.length !== 4) return { ok: false, part: "length" };
  const [, ruleLetter, letters] = parts;
  if (!(ruleLetter in RULE_LETTERS)) return { ok: false, part: "rules" };
  if (letters.length !== SEED_LETTERS && letters.length !== LONG_SEED_LETTERS) return { ok: false, part: "length" };
  if (!/^[A-Z]+$/.test(letters)) return { ok: false, part: "character" };
  let variant = "";
  if (parts.length === 4) {
    const m = VARIANT_RE.exec(parts[3]);
    if (!parts[3] || !m) return { ok: false, part: "variant" };
    const jokers = Number(m[2] ?? 0);
    if (m[2] !== undefined && !(jokers >= 1 && jokers <= MAX_JOKERS)) return { ok: false, part: "variant" };
    variant = parts[3];
  }
  const rules = RULE_LETTERS[ruleLetter];
  const canonical = `${PREFIX}-${rules === "easy" ? "E" : "C"}-${letters}${variant ? `-${variant}` : ""}`;
  return { ok: true, code: canonical, rules };
}

// Everything a valid code can start with: "GO1-", a rule letter, up to 26 letters, then after exactly 7 or 26
// of them a variant's start (strict S, jokers J1/J2, empty discard D, in that order).
const PREFIX_RE =
  /^GO1-(?:[ENC](?:-(?:[A-Z]{0,25}|(?:[A-Z]{7}|[A-Z]{26})(?:-S?(?:J[12]?)?D?)?))?)?$/;

/** True while `text` can still become a valid code by typing more: the dialog waits with its error. */
export function isCodePrefix(text) {
  const raw = String(text ?? "").trim().toUpperCase();
  return `${PREFIX}-`.startsWith(raw) || PREFIX_RE.test(raw);
}

/** The same deal under the other rule letter (the seven letters and the variants stay). */
export function withRules(code, rules) {
  const parts = code.split("-");
  parts[1] = rules === "classic" ? "C" : "E";
  return parts.join("-");
}
