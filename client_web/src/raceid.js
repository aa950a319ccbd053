// What a player pastes to join a race: its link (/r/<id>, /#/race/<id>, /watch/<id>) or its id itself.
// Race ids are "r" and 11 characters of server/golfrace/races/service.py's ID_ALPHABET.
const RACE_ID = /^r[abcdefghijkmnpqrstuvwxyz23456789]{11}$/;
const LINK_PATHS = [/^\/r\/([^/?#]+)\/?$/, /^\/watch\/([^/?#]+)\/?$/];
const LINK_HASH = /^#\/(?:race|watch)\/([^/?#]+)$/;

/** The race id in `text` (a link or an id), or null when it is neither. */
export function raceIdFrom(text) {
  const value = String(text ?? "").trim();
  if (RACE_ID.test(value.toLowerCase())) return value.toLowerCase();
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const found = [...LINK_PATHS.map((re) => re.exec(url.pathname)), LINK_HASH.exec(url.hash)].find(Boolean);
  const id = found?.[1]?.toLowerCase();
  return id && RACE_ID.test(id) ? id : null;
}
