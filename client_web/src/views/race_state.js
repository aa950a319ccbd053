// @ts-check
// The race view's state and how each message changes it: the race as the server last told it, what this page
// waits for (the answer to its Create or Rematch), and the racer's own board (their seat, shown by the
// GameSession). Pure: no DOM, no socket, no clock; the view derives what to do (navigate, toast, open the
// seat) from the state before and after a message.

/**
 * The race as the server last told it: the `race` message (and the race part of `race_watch`) without its
 * type, the watcher count kept beside it; and a racer's progress as it carries it.
 * @typedef {Omit<import("../net/messages.js").RaceMessage, "t">} Race
 * @typedef {import("../net/messages.js").WireProgress} Racer
 */

/**
 * An `error` message.
 * @typedef {import("../net/messages.js").ErrorMessage} ErrorMsg
 */

/**
 * The racer's board as the seat's GameSession shows it (gamestate.js).
 * @typedef {import("../game/gamestate.js").GameState} SeatBoard
 */

/**
 * The messages the race view reduces: the server's (by their wire type), and the view's own events, named
 * `view/<event>` so that they never pass for a wire type: a new route, a Create or Rematch sent, the seat's
 * board shown by its GameSession, a result's record read.
 * @typedef {import("../net/messages.js").RaceMessage} RaceMsg
 * @typedef {import("../net/messages.js").RaceProgressMessage} ProgressMsg
 * @typedef {import("../net/messages.js").WatchersMessage} WatchersMsg
 * @typedef {{t: "view/mount", race: string | null}} MountMsg
 * @typedef {{t: "view/create"}} CreateMsg
 * @typedef {{t: "view/rematch"}} RematchMsg
 * @typedef {{t: "view/seat", state: SeatBoard, change: string, diff: any}} SeatMsg
 * @typedef {{t: "view/review", race: string, seat: number, review: string | null}} ReviewMsg  a result's record read
 * @typedef {import("../net/messages.js").DailyMessage} DailyMsg
 * @typedef {RaceMsg | ProgressMsg | WatchersMsg | ErrorMsg | MountMsg | CreateMsg | RematchMsg | SeatMsg |
 *   ReviewMsg | DailyMsg} Msg
 */

/**
 * What the results table says of a row beyond the race's own results: held for review (fair play: faster than
 * anyone can play), or a daily attempt that ended after its day (counts for nothing).
 * @typedef {{review?: string | null, late?: boolean}} Mark
 */

/**
 * @typedef {Object} RaceState
 * @property {string | null} raceId  the race of the route; null on the Create page
 * @property {Race | null} race  the race as last told (with the watcher count); null until it comes
 * @property {number | null} pendingWatchers  a watcher count that came before the race itself
 * @property {string | null} awaiting  what Create or Rematch waits for: our `race_new`'s rid, or `rematch:<id>`
 * @property {number} creates  how many `race_new` this page sent (the rids are `c1`, `c2`, …)
 * @property {string | null} created  the race our Create or Rematch made (the view goes there)
 * @property {boolean} spectator  the race started without us (the view follows it as a watcher)
 * @property {ErrorMsg | null} missing  no such race: the page says so in the room's place
 * @property {ErrorMsg | null} error  the latest error to tell (a new object for each)
 * @property {SeatBoard | null} mine  my seat's board
 * @property {{change: string, diff: any} | null} mineChange  how my board last changed ("snapshot" or a move)
 * @property {string | null} ended  `<race>@<v>` of the last board whose end was told (told once per version)
 * @property {Record<number, Mark>} marks  by seat, for the results table
 */

/**
 * @param {string | null} [raceId]
 * @returns {RaceState}
 */
export function initial(raceId = null) {
  return {
    raceId,
    race: null,
    pendingWatchers: null,
    awaiting: null,
    creates: 0,
    created: null,
    spectator: false,
    missing: null,
    error: null,
    mine: null,
    mineChange: null,
    ended: null,
    marks: {},
  };
}

/**
 * The state after `msg`: a new object, or `state` itself when the message is not about this view's race.
 * @param {RaceState} state
 * @param {Msg} msg
 * @returns {RaceState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "view/mount":
      // a new route: nothing of the previous race stays; a Create in flight is still awaited
      return { ...initial(msg.race), awaiting: state.awaiting, creates: state.creates };
    case "view/create":
      return { ...state, creates: state.creates + 1, awaiting: `c${state.creates + 1}` };
    case "view/rematch":
      return { ...state, awaiting: `rematch:${state.raceId}` };
    case "race": {
      if (answersCreate(state, msg)) return { ...state, awaiting: null, created: msg.race };
      if (msg.race !== state.raceId) return state;
      const { t: _t, ...race } = msg;
      const watchers = state.pendingWatchers == null ? race.watchers : (race.watchers ?? state.pendingWatchers);
      return { ...state, race: { ...race, watchers }, pendingWatchers: null };
    }
    case "race_progress": {
      if (msg.race !== state.raceId || !state.race) return state;
      const racers = state.race.racers.map((r) => (r.seat === msg.racer.seat ? msg.racer : r));
      return { ...state, race: { ...state.race, racers } };
    }
    case "watchers":
      if (msg.race !== state.raceId) return state;
      if (!state.race) return { ...state, pendingWatchers: msg.n }; // before the race itself: kept for it
      return { ...state, race: { ...state.race, watchers: msg.n } };
    case "error":
      return onError(state, msg);
    case "view/seat": {
      const { state: mine, change, diff } = msg;
      const key = `${state.raceId}@${mine.v}`;
      const tell = mine.status !== "playing" && change !== "snapshot" && state.ended !== key;
      return { ...state, mine, mineChange: { change, diff }, ended: tell ? key : state.ended };
    }
    case "view/review":
      if (msg.race !== state.raceId) return state;
      return withMark(state, msg.seat, { review: msg.review });
    case "daily": {
      // the day's ranked result: its review and lateness belong to the row of that game
      const { result } = msg;
      const row = state.race?.daily === msg.date && result?.game ? state.race.results?.find((r) => r.game === result.game) : null;
      if (!row || !result) return state;
      return withMark(state, row.seat, { review: result.review ?? null, late: Boolean(result.late) });
    }
    default:
      return state;
  }
}

/**
 * @template {{marks: Record<number, Mark>}} S
 * @param {S} state
 * @param {number} seat
 * @param {Mark} mark
 * @returns {S}
 */
export function withMark(state, seat, mark) {
  return { ...state, marks: { ...state.marks, [seat]: { ...state.marks[seat], ...mark } } };
}

/**
 * @param {RaceState} state
 * @param {ErrorMsg} m
 * @returns {RaceState}
 */
function onError(state, m) {
  const { raceId } = state;
  if (m.ref === "race_join" && m.code === "race_started" && m.params?.race === raceId) {
    return { ...state, spectator: true }; // not one of its racers: follow it as a spectator
  }
  if (m.code === "race_not_found" && raceId && !state.race && (m.params?.race ?? raceId) === raceId) {
    return { ...state, missing: m }; // a dead link or a mistyped id
  }
  if (!String(m.ref ?? "").startsWith("race") && !state.awaiting) return state;
  return { ...state, awaiting: null, error: m };
}

/**
 * Whether `race` answers our Create (the `race` echoing its rid) or Rematch (the race after `rematch:<id>`).
 * @param {RaceState} state
 * @param {RaceMsg} m
 */
export function answersCreate(state, m) {
  return (
    Boolean(state.awaiting && m.you && m.race !== state.raceId) &&
    (m.rid === state.awaiting || state.awaiting === `rematch:${m.previous}`)
  );
}

/**
 * A race's phase at server time `now`: the server sends `race` at the start of the countdown, not when it
 * runs out, so "running" is derived from `starts_at`.
 * @param {{phase: string, starts_at?: number | null}} race
 * @param {number} now
 */
export function phaseAt(race, now) {
  if (race.phase === "countdown" && race.starts_at && now >= race.starts_at) return "running";
  return race.phase;
}

/**
 * My progress among the racers, or null (a watcher, or before the race came).
 * @param {RaceState} state
 * @returns {Racer | null}
 */
export function myProgress({ race }) {
  return race?.racers?.find((r) => race.you && r.seat === race.you.seat) ?? null;
}

/**
 * My game goes on: my board and my progress both say playing (a resignation or a forfeit changes my progress
 * first), and the race is not over.
 * @param {RaceState} state
 */
export function stillPlaying(state) {
  const status = myProgress(state)?.status ?? "playing";
  return state.mine?.status === "playing" && status === "playing" && state.race?.phase !== "finished";
}

/**
 * The game id of my seat once it is to be played (the race has left the lobby and I am one of its racers).
 * @param {RaceState} state
 * @returns {string | null}
 */
export function seatGame({ race }) {
  const game = race?.you?.game;
  return game && race.phase !== "lobby" ? game : null;
}

/**
 * The racers of the same race who were playing before and are done after (none when the race was not known
 * before: a page opened late does not list the finishes it missed); `skipSeat` (mine) has its own notice.
 * @param {RaceState} before
 * @param {RaceState} after
 * @param {number | null} skipSeat
 * @returns {Racer[]}
 */
export function finishedBetween(before, after, skipSeat) {
  if (!before.race || !after.race || before.race.race !== after.race.race) return [];
  const was = new Map(before.race.racers.map((r) => [r.seat, r.status]));
  return after.race.racers.filter((r) => r.seat !== skipSeat && was.get(r.seat) === "playing" && r.status !== "playing");
}

/**
 * The rows whose review to read when a ranked race is first seen finished: [seat, game] (none for an
 * unranked race: its results are never reviewed).
 * @param {Race | null} before
 * @param {Race | null} after
 * @returns {[number, string][]}
 */
export function toReview(before, after) {
  if (after?.phase !== "finished" || !after.ranked) return [];
  if (before?.race === after.race && before.phase === "finished") return [];
  return (after.results ?? []).filter((r) => r.game).map((r) => /** @type {[number, string]} */ ([r.seat, r.game]));
}
