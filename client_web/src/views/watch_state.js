// @ts-check
// The watch view's state and how each message changes it: the race and every racer's board as a spectator
// gets them, a single game watched when the id is not a race, and the replay of a finished race (every
// seat's record moved together one move at a time). Pure: no DOM, no socket, no timer; the view derives what
// to do (watch again, open the game, tell a finish, run the replay's timer) from the state before and after.
import { applyDiff } from "../game/gamestate.js";
import { withMark } from "./race_state.js";

/**
 * @typedef {import("./race_state.js").Racer} Racer
 * @typedef {import("./race_state.js").ErrorMsg} ErrorMsg
 * @typedef {import("./race_state.js").Mark} Mark
 */

/**
 * A racer's board as a watcher gets it (`race_watch.boards`, `race_board.board`): progress plus the cards.
 * @typedef {import("../net/messages.js").WireBoard} WireBoard
 */

/**
 * The race as a watcher was last told it: `race_watch` (with the boards) and the `race` and `watchers`
 * messages after it, without their type; any part may still be missing (the watcher count may come first).
 * @typedef {Partial<Omit<import("../net/messages.js").RaceWatchMessage, "t">>} WatchedRace
 */

/**
 * The single game's line (a game watched by its id, not a race): made from its board, no racer's progress.
 * @typedef {Pick<Racer, "seat" | "name" | "score" | "status" | "removed">} GameProgress
 */

/**
 * A board as the Board component shows it.
 * @typedef {{columns: string[][], discard: string | null, stock_count: number, score: number, moves: number,
 *   status: string, v?: number, game?: string, undos?: number, held?: boolean}} Shown
 */

/**
 * One seat on the page: its progress (the header line) and its board once dealt, with how it last changed.
 * @typedef {Object} Seat
 * @property {number} seat
 * @property {Racer | GameProgress} progress
 * @property {Shown | null} board
 * @property {any} diff  the move that made `board` (null: shown as a snapshot)
 */

/**
 * One seat's record in the replay: its deal, its steps, and the state shown now.
 * @typedef {Object} Run
 * @property {number} seat
 * @property {Shown} start
 * @property {any[]} steps
 * @property {Shown} state
 * @property {string} change  "snapshot", or the step's action when it was played forward
 * @property {any} diff
 */

/**
 * @typedef {Object} Replay
 * @property {Run[]} runs
 * @property {number} pos  moves shown per seat
 * @property {number} total  the longest seat's moves
 * @property {boolean} playing
 */

/**
 * @typedef {Object} WatchState
 * @property {string | null} id  the route's id: a race, or else a single game
 * @property {WatchedRace | null} race  the race as last told (the watcher count may come first)
 * @property {Seat[]} seats  in seat order
 * @property {number} watches  `race_watch` answers seen (each builds the seats again)
 * @property {number} rewatches  deals seen (a `race` leaving the lobby): each asks for the boards again
 * @property {Record<number, string>} statuses  each seat's last status, for the notice when a racer finishes
 * @property {"race" | "game" | "missing"} mode  a race; a single game (`games` times found not a race); neither
 * @property {number} games
 * @property {string | null} own  the watcher is a racer of this race: the view goes to it
 * @property {ErrorMsg | null} error  the latest error to tell (a new object for each)
 * @property {number} speed  the replay's speed (kept from one race to the next, as its menu is)
 * @property {Replay | null} replay
 * @property {Record<number, Mark>} marks  by seat, for the results table: held for review (from the records the
 *   replay loads; a spectator's page reads no record before)
 */

/**
 * The messages the watch view reduces: the server's (by their wire type), and the view's own events, named
 * `view/<event>` and `replay/<event>` so that they never pass for a wire type.
 * @typedef {import("../net/messages.js").RaceWatchMessage} RaceWatchMsg
 * @typedef {import("../net/messages.js").RaceBoardMessage} BoardMsg
 * @typedef {import("../net/messages.js").RaceProgressMessage} ProgressMsg
 * @typedef {import("../net/messages.js").RaceMessage} RaceMsg
 * @typedef {import("../net/messages.js").WatchersMessage} WatchersMsg
 * @typedef {{t: "view/mount", id: string | null}} MountMsg
 * @typedef {{t: "view/game", progress: GameProgress, state: Shown, diff: any}} GameMsg  the single game's board shown
 * @typedef {{t: "view/game_missing"}} GameMissingMsg  not a game either
 * @typedef {{t: "replay/loaded", records: [number, any][]}} LoadedMsg  each seat's /api/games record (or null)
 * @typedef {{t: "replay/play"} | {t: "replay/pause"} | {t: "replay/tick"}} ReplayControlMsg
 * @typedef {{t: "replay/seek", n: number, animate: boolean}} SeekMsg  pause, then show `n` moves
 * @typedef {{t: "replay/speed", speed: number}} SpeedMsg
 * @typedef {RaceWatchMsg | BoardMsg | ProgressMsg | RaceMsg | WatchersMsg | ErrorMsg | MountMsg | GameMsg |
 *   GameMissingMsg | LoadedMsg | ReplayControlMsg | SeekMsg | SpeedMsg} Msg
 */

/**
 * @param {string | null} [id]
 * @param {number} [speed]
 * @returns {WatchState}
 */
export function initial(id = null, speed = 1) {
  return {
    id,
    race: null,
    seats: [],
    watches: 0,
    rewatches: 0,
    statuses: {},
    mode: "race",
    games: 0,
    own: null,
    error: null,
    speed,
    replay: null,
    marks: {},
  };
}

/**
 * A watcher's board as the shown state, or null before the deal (a racer in the lobby has no cards yet).
 * @param {WireBoard & {stock?: number | null}} b
 * @returns {Shown | null}
 */
export function boardState(b) {
  if (!b.columns) return null;
  return {
    columns: b.columns,
    discard: b.discard ?? null,
    held: Boolean(b.hidden) && !b.discard, // fair play: a drawn card watchers see once every racer has
    stock_count: b.stock_count ?? 0,
    score: b.score ?? 0,
    moves: b.moves ?? 0,
    status: b.status ?? "playing",
  };
}

/**
 * The state after `msg`: a new object, or `state` itself when the message is not about this view's race.
 * @param {WatchState} state
 * @param {Msg} msg
 * @returns {WatchState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "view/mount":
      return initial(msg.id, state.speed);
    case "race_watch": {
      if (msg.race !== state.id) return state;
      const { t: _t, ...race } = msg;
      const watchers = Math.max(race.watchers ?? 0, state.race?.watchers ?? 0);
      /** @type {WatchState} */
      let next = { ...state, race: { ...race, watchers }, seats: [], watches: state.watches + 1 };
      for (const b of race.boards ?? []) next = withSeat(next, b.seat, b, boardState(b), null);
      return next;
    }
    case "race_board":
      if (msg.race !== state.id) return state;
      return withSeat(state, msg.board.seat, msg.board, boardState(msg.board), msg.diff ?? null);
    case "race_progress":
      if (msg.race !== state.id) return state;
      return withSeat(state, msg.racer.seat, msg.racer, null, null);
    case "race": {
      if (msg.race !== state.id) return state;
      const { t: _t, ...m } = msg;
      const was = state.race?.phase;
      const race = { ...state.race, ...m };
      if (!race.boards) return { ...state, race }; // race_watch (with the boards) is still to come
      // the seats are the racers: one who joins the lobby gets one, one who leaves it loses theirs
      const racers = m.racers ?? [];
      const present = new Set(racers.map((r) => r.seat));
      /** @type {WatchState} */
      const kept = { ...state, race, seats: state.seats.filter((s) => present.has(s.seat)) };
      const next = racers.reduce((s, r) => withSeat(s, r.seat, r, null, null), kept);
      // the deal: a `race` message carries no boards, a fresh race_watch does
      return was === "lobby" && m.phase !== "lobby" ? { ...next, rewatches: next.rewatches + 1 } : next;
    }
    case "watchers":
      if (msg.race !== state.id) return state;
      return { ...state, race: { ...state.race, watchers: msg.n } }; // may come before race_watch: kept for it
    case "error":
      if (msg.ref !== "watch") return state;
      if (msg.code === "race_not_found") return { ...state, mode: "game", games: state.games + 1 };
      if (msg.code === "own_race") return { ...state, own: msg.params?.race ?? state.id }; // your own seat
      return { ...state, error: msg };
    case "view/game":
      return withSeat(state, 1, msg.progress, msg.state, msg.diff);
    case "view/game_missing":
      return { ...state, mode: "missing" };
    case "replay/loaded": {
      // each record also says whether its result is held for review
      let next = { ...state, replay: play(seek(loaded(msg.records), 0, false)) };
      for (const [seat, rec] of msg.records) if (rec) next = withMark(next, seat, { review: rec.review ?? null });
      return next;
    }
    case "replay/play":
      return state.replay ? { ...state, replay: play(state.replay) } : state;
    case "replay/pause":
      return state.replay ? { ...state, replay: { ...state.replay, playing: false } } : state;
    case "replay/tick":
      return state.replay ? { ...state, replay: seek(state.replay, state.replay.pos + 1, true) } : state;
    case "replay/seek":
      if (!state.replay) return state;
      return { ...state, replay: seek({ ...state.replay, playing: false }, msg.n, msg.animate) };
    case "replay/speed":
      return { ...state, speed: msg.speed || 1 };
    default:
      return state;
  }
}

/**
 * `state` with seat `seat`'s progress (and board, when given) replaced, in seat order.
 * @param {WatchState} state
 * @param {number} seat
 * @param {Racer | GameProgress} progress
 * @param {Shown | null} board  null: the board stays as it was
 * @param {any} diff
 * @returns {WatchState}
 */
function withSeat(state, seat, progress, board, diff) {
  const old = state.seats.find((s) => s.seat === seat);
  const next = { seat, progress, board: board ?? old?.board ?? null, diff: board ? diff : (old?.diff ?? null) };
  const seats = [...state.seats.filter((s) => s.seat !== seat), next].sort((a, b) => a.seat - b.seat);
  const statuses = progress.status ? { ...state.statuses, [seat]: progress.status } : state.statuses;
  return { ...state, seats, statuses };
}

/**
 * The seats whose racer was playing before and is done after (not for what was over before the page came,
 * nor in a lobby).
 * @param {WatchState} before
 * @param {WatchState} after
 * @returns {(Racer | GameProgress)[]}
 */
export function finishedBetween(before, after) {
  if (after.race?.phase === "lobby") return [];
  return after.seats
    .filter(({ seat }) => before.statuses[seat] === "playing" && after.statuses[seat] !== "playing")
    .map(({ seat, progress }) => ({ ...progress, seat }));
}

/**
 * The seats and game ids a finished race's replay fetches (`/api/games/<game>`).
 * @param {WatchedRace} race
 * @returns {[number, string][]}
 */
export function replayGames(race) {
  const rows = /** @type {{seat: number, game?: string}[]} */ (race.results ?? race.racers ?? []);
  return rows.filter((r) => r.game).map((r) => /** @type {[number, string]} */ ([r.seat, r.game]));
}

/**
 * The replay of the records fetched, at its start and paused.
 * @param {[number, any][]} records
 * @returns {Replay}
 */
function loaded(records) {
  const runs = [];
  for (const [seat, rec] of records) {
    if (!rec) continue;
    /** @type {Shown} */
    const start = {
      game: rec.game, v: 0, columns: rec.deal.columns, discard: rec.deal.discard, stock_count: rec.deal.stock.length,
      score: 0, moves: 0, undos: 0, status: "playing",
    };
    runs.push({ seat, start, steps: rec.steps ?? [], state: start, change: "snapshot", diff: null });
  }
  return { runs, pos: 0, total: Math.max(0, ...runs.map((r) => r.steps.length)), playing: false };
}

/**
 * Play on (from the start once it has reached the end).
 * @param {Replay} replay
 * @returns {Replay}
 */
function play(replay) {
  const from = replay.pos >= replay.total ? seek(replay, 0, false) : replay;
  return { ...from, playing: true };
}

/**
 * A run's state after its first `n` steps (from the deal: going back replays from the start).
 * @param {Run} run
 * @param {number} n
 * @returns {Shown}
 */
export function stateAt(run, n) {
  let state = run.start;
  for (let i = 0; i < Math.min(n, run.steps.length); i++) {
    state = applyDiff(state, { ...run.steps[i], game: state.game, v: i + 1, from: i }).state;
  }
  return state;
}

/**
 * Every seat at `n` moves: one step forward is played as a move (`animate`), anything else is a snapshot.
 * Playing stops at the end.
 * @param {Replay} replay
 * @param {number} n
 * @param {boolean} animate
 * @returns {Replay}
 */
function seek(replay, n, animate) {
  const { pos, total } = replay;
  const next = Math.max(0, Math.min(total, n));
  const runs = replay.runs.map((run) => {
    const step = run.steps[next - 1];
    if (animate && next === pos + 1 && step) {
      const diff = { ...step, game: run.state.game, v: next, from: next - 1 };
      return { ...run, state: applyDiff(run.state, diff).state, change: step.a, diff };
    }
    if (next !== pos || !animate) return { ...run, state: stateAt(run, next), change: "snapshot", diff: null };
    return run;
  });
  return { ...replay, runs, pos: next, playing: replay.playing && next < total };
}
