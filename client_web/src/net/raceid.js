// @ts-check
// What a player pastes to join a race: its link on this site (/r/<id>, /#/race/<id>, /watch/<id>) or its id.
// Race ids follow server/golfrace/wire/ids.py (the generated messages.js's IDS.race).
import { idPattern } from "./messages.js";

const RACE_ID = idPattern("race");
const LINK_PATHS = [/^\/r\/([^/?#]+)\/?$/, /^\/watch\/([^/?#]+)\/?$/];
const LINK_HASH = /^#\/(?:race|watch)\/([^/?#]+)$/;

/** The race id in `text` (a link of this site, at `origin`, or an id), or null when it is neither: a link to
 * another site is refused, whatever its path says.
 * @param {string | null | undefined} text
 * @param {string} [origin]
 * @returns {string | null}
 */
export function raceIdFrom(text, origin = globalThis.location?.origin) {
  const value = String(text ?? "").trim();
  if (RACE_ID.test(value.toLowerCase())) return value.toLowerCase();
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  const found = [...LINK_PATHS.map((re) => re.exec(url.pathname)), LINK_HASH.exec(url.hash)].find(Boolean);
  const id = found?.[1]?.toLowerCase();
  return id && RACE_ID.test(id) ? id : null;
}
