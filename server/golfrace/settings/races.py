"""Named limits of races, leaderboards, the daily challenge and replays, with their units."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from golfrace.settings.env import SettingError, env_values

DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class RaceSettings:
    countdown_ms: int = 3_000
    """Time between the host's start and the first allowed move; every client counts down to ``starts_at``."""
    max_racers: int = 8
    """Seats in a race (the host chooses 1..this)."""
    max_time_limit_s: int = 3_600
    """The longest time limit a host may set (seconds); 0 means no limit."""
    name_max: int = 24
    """Longest racer name (characters) after trimming."""
    race_ttl_s: int = 2 * 86_400
    """A race (lobby, running or finished) expires this long after its last change."""
    record_ttl_s: int = 30 * 86_400
    """A finished game's record and move log are kept this long (seconds) for replays."""
    board_ttl_s: int = 90 * 86_400
    """A leaderboard (code, daily or personal bests) nobody has posted to for this long expires (seconds)."""
    bests_max: int = 1_000
    """A player's personal-bests board keeps their best this many codes (the worst go), so it cannot grow
    without bound; code and daily boards keep every player."""
    board_page_max: int = 100
    """The most leaderboard entries one request may ask for."""
    board_live_top: int = 10
    """Entries sent to a websocket watcher of a leaderboard on each update."""
    daily_max_tries: int = 64
    """Candidate codes tried per day before giving up on a winnable daily code (solver-checked)."""
    solver_budget_s: float = 2.0
    """Seconds the solver may spend on one par or winnability question (0: a race searches no par)."""
    idle_forfeit_s: int = 300
    """A racer still playing who makes no move for this long (seconds, counted from the later of their last
    move, the start and the first finish of another racer) is out (``abandoned``), so a closed tab cannot hold
    a race open, nor keep a race of closed tabs running (one its host started alone too; a daily attempt
    waits); 0 turns it off. A race keeps the value it was created with."""
    lobby_grace_s: float = 20.0
    """A racer in a lobby whose every connection to it has gone (closed the page or left its view) for this
    long (seconds) leaves the lobby, so the host does not start with absent racers."""
    peek_s: float = 60.0
    """How long (seconds) this instance keeps a race record it read for its seats' moves (their events
    describe the racer from it). Never stale for long: each move's commit checks the record's revision in
    the race gate and reads it again if it changed, and the race's own events drop it sooner."""
    progress_interval_ms: int = 100
    """A racer gets each racer's progress line (``race_progress``, their own included) at most once per this
    long (ms): the latest when the interval is up, the first after a quiet spell at once, and a racer's end
    (status change) at once; their own board (their seat game) is never delayed. Watchers get every move.
    0: every move at once."""
    sweep_interval_s: float = 0.5
    """How often (seconds) each instance drops the race and board followers of closed connections."""
    cas_retries: int = 50
    """Optimistic-lock retries for one race update before giving up with an error."""
    watcher_refresh_s: float = 5.0
    """How often (seconds) each instance re-stamps its share of a race's watcher count and checks the
    total."""
    watcher_stale_s: float = 15.0
    """A share of the watcher count not re-stamped for this long (seconds) belongs to an instance that is gone
    and no longer counts."""
    live_list_max: int = 30
    """The most live races ``GET /api/races/live`` lists (the latest starts first)."""
    live_index_max: int = 500
    """The most started races the live index keeps (the oldest starts go first; ended ones leave it)."""

    # --- fair play (docs/fair-play.md) ----------------------------------------------------------------------
    daily_grace_s: int = 600
    """A ranked daily attempt counts for its day (board, streak) only if it ends before the day's end plus
    this long (seconds): one started just before midnight may finish, one kept open all night may not."""
    daily_claim_wait_s: float = 5.0
    """How long (seconds) a ``daily_play`` that lost the claim of the ranked attempt to another tab waits for
    that tab's attempt to be stored before it is taken as lost (the claimant failed) and play is practice."""
    review_median_gap_ms: int = 120
    """A ranked result whose median time between two moves is below this (ms) is no human's: it is kept, but
    marked for review and left off the boards. A human's choice reaction time is ~250 ms and more, and each
    move needs a card found first, so 120 leaves room for the fastest players."""
    review_min_moves: int = 20
    """The timing check applies to games of at least this many moves (a short game says little)."""
    review_draw_lead: int = 10
    """Cards (drawn minus removed). A ranked racer who ends without winning this many draws ahead of their
    removals is flagged ``draw_scout`` in the race's results, for review (fair play 19.2): the shared stock
    is read by drawing it, so a scout seat draws it all and quits. A greedy honest player (remove whenever
    possible, else draw) is never this far ahead at any point of 3,000 Easy deals, and on 0.13 % of Classic
    ones. A race keeps the value it was created with."""
    review_first_move_ms: int = 300
    """The human floor of the first move (ms after the board is shown): a person takes in 35 cards and finds
    one that fits first; a simple reaction alone is ~200 ms, a choice among seven columns longer."""
    review_mean_gap_ms: int = 180
    """The human floor of a whole game: its time over its moves (ms a move). One quick run of taps is human,
    a whole game at 125 ms a move is not (each move is a search of the table, then a tap elsewhere)."""
    review_fast_gap_ms: int = 90
    """A gap between two moves shorter than this (ms) is a burst: a person manages a few in a run, when the
    next card is already in sight, but the hand still travels between two cards."""
    review_fast_share: float = 0.3
    """The most of a game's gaps that may be bursts (``review_fast_gap_ms``): the gaps are judged as a whole
    distribution, so alternating one human-looking gap with one instant gap fails here, not at the median."""
    review_top: int = 100
    """A ranked result that would enter a board's first this many places goes through the knowledge review
    (the solver on sampled stocks, docs/fair-play.md) before it shows; until then it is pending."""
    review_cpu_s: float = 20.0
    """The CPU budget (seconds of the review worker's CPU time) of one game's knowledge review; a review cut
    short judges the decisions it reached."""
    review_workers: int = 1
    """Processes each instance keeps for knowledge reviews (each takes at most one core), run
    ``review_nice`` steps below the server."""
    review_nice: int = 10
    """How many steps below the server the knowledge review's worker processes run (``os.nice`` in their
    initializer, as the hint workers): a review is seconds of solver CPU that can wait, a move or a sign-in
    cannot, so the operating system gives the server's event loop the CPU first whenever both want it."""
    review_queue_max: int = 200
    """Reviews waiting on one instance; beyond it a result stays pending (``lb:{B}:pending``) and is due
    again a few seconds later for any instance (the durable "to review" record, ``races/review_due.py``).
    0: this instance reviews nothing (the others take its results)."""
    review_lease_s: float = 60.0
    """How long (seconds) a review queued on an instance stays that instance's without a renewal (each sweep
    renews it): an instance killed before its verdicts leaves them to the others this long after; one that
    stops gives them back at once."""
    review_threshold: float = 6.0
    """Nats of evidence that the player knew the stock (``strategy.review``) above which a result is held."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> RaceSettings:
        """The defaults, with ``GOLFRACE_RACE_<FIELD>`` for the fields in ``ENV_FIELDS`` (the others are also
        limits of the message schema, fixed at import)."""
        values = env_values(cls, "GOLFRACE_RACE_", env)
        settings = cls(**{k: v for k, v in values.items() if k in ENV_FIELDS})
        for name in sorted(ENV_FIELDS):
            if getattr(settings, name) < 0:
                raise SettingError(f"GOLFRACE_RACE_{name.upper()} must not be negative", setting=name)
        if settings.watcher_refresh_s <= 0 or settings.watcher_refresh_s >= settings.watcher_stale_s:
            raise SettingError(
                "GOLFRACE_RACE_WATCHER_REFRESH_S must be above 0 and below GOLFRACE_RACE_WATCHER_STALE_S",
                setting="watcher_refresh_s",
            )
        return settings


ENV_FIELDS = frozenset(
    {
        "board_ttl_s",
        "countdown_ms",
        "daily_claim_wait_s",
        "daily_grace_s",
        "review_median_gap_ms",
        "review_min_moves",
        "review_draw_lead",
        "review_first_move_ms",
        "review_mean_gap_ms",
        "review_fast_gap_ms",
        "review_fast_share",
        "review_top",
        "review_cpu_s",
        "review_workers",
        "review_queue_max",
        "review_lease_s",
        "review_nice",
        "review_threshold",
        "idle_forfeit_s",
        "lobby_grace_s",
        "peek_s",
        "progress_interval_ms",
        "race_ttl_s",
        "record_ttl_s",
        "sweep_interval_s",
        "solver_budget_s",
        "watcher_refresh_s",
        "watcher_stale_s",
    }
)


DEFAULT_SETTINGS = RaceSettings()
