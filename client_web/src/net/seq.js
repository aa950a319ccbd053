// @ts-check
// Client sequence numbers: increasing per game (or race) in this browser. Kept in storage, so that a reload
// goes on from the last one, and in memory, so that a page without storage still counts up.
/** @type {Map<string, number>} */
const memory = new Map();

/**
 * @param {Storage | null | undefined} storage
 * @param {string} key
 * @returns {number}
 */
function stored(storage, key) {
  try {
    return Number(storage?.getItem(key) ?? 0) || 0;
  } catch {
    return 0;
  }
}

/**
 * @param {Storage | null | undefined} storage
 * @param {string} key
 * @param {number} seq
 */
function store(storage, key, seq) {
  try {
    storage?.setItem(key, String(seq));
  } catch {
    // storage full or blocked: the in-memory count goes on
  }
}

/**
 * The next sequence number under `key`.
 * @param {Storage | null | undefined} storage
 * @param {string} key
 * @returns {number}
 */
export function nextSeq(storage, key) {
  const seq = Math.max(stored(storage, key), memory.get(key) ?? 0) + 1;
  memory.set(key, seq);
  store(storage, key, seq);
  return seq;
}

/** The server says `seq` was the last one used under `key` (after a reconnect): never count below it.
 * @param {Storage | null | undefined} storage
 * @param {string} key
 * @param {number} seq
 */
export function seenSeq(storage, key, seq) {
  if (seq > Math.max(stored(storage, key), memory.get(key) ?? 0)) {
    memory.set(key, seq);
    store(storage, key, seq);
  }
}
