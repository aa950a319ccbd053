"""Every Redis key and channel of the races and the extensions above them (leaderboards, the daily
challenge, quick races and ratings, the analysis). The store names them without knowing those layers: a key
is a string, and naming it here lets the accounts (below the races) delete a player's keys of the layers
above, and lets a test hold every key to one definition (``tests/test_one_definition.py``). Each ``{…}`` is a
Redis Cluster hash tag: every command or script touches one slot.

Races (``races/``):

- ``race:{R}``                 hash: the race record (``storage.py``); also the race's pub/sub channel
- ``race:{R}:unseen``          set with a TTL: the pool's seekers gone before the race was made
- ``rec:{G}``                  the finished game's record (``replay.py``)
- ``rev:{G}``                  string with a TTL: the knowledge review's verdict (``knowledge.py``)
- ``races:{finish:N}``         zset: the race ends due for their aftermath, in ``N`` buckets;
                               ``races:{finish}`` the single key of the first version, still swept
- ``races:{live}``             zset: the races being played (the live list)
- ``reviews:{due}``            zset: the knowledge reviews due, by time
- ``lb:{B}:z``, ``:p``, ``:e`` a leaderboard ``B`` (``leaderboard.py``): the ranking zset, player → member,
                               member → entry JSON; ``:pending`` and ``:review`` the results waiting for
                               their knowledge review and held for a person; channel ``lb:{B}:ch``
- ``daily:{D}:<part>``         the daily challenge of day ``D``: ``first`` (first results), ``done``
                               (players who played it)
- ``streak:{P}``               hash: the player's daily streak
- ``stats:{P}:e``, ``:z``      the stats page's games (deleted with the account)

Quick races and ratings (``pool/``):

- ``pool:{S}``, ``pool:shards:{rules}``, ``pool:p:{P}``, ``pool:lock:{rules}``: the seekers' shards, their
  index, a player's seek, the pairing lock; ``pool:dodges:{P}``; channel ``pool:i:<instance>``
- ``rating:{P}``, ``rating:{P}:h:<rules>``, ``rating:{P}:done``: a rating, its history, the races counted;
  ``rboard:{rules}`` the ratings' board, ``fp:{P}`` fair-play flags, ``rated:{R}`` a race's changes,
  ``rating:hold:{R}`` a held race; ``pool:review`` and ``pool:review:wait`` the held races' queues

The analysis: ``ana:{G}:<version>`` the cached analysis of a finished game.
"""

from __future__ import annotations


def race(race_id: str) -> str:
    return f"race:{{{race_id}}}"


def race_channel(race_id: str) -> str:
    return race(race_id)


def unseen(race_id: str) -> str:
    """The seekers of a race who were gone before it was made (in the race's slot)."""
    return race(race_id) + ":unseen"


def record(game_id: str) -> str:
    return f"rec:{{{game_id}}}"


def verdict(game_id: str) -> str:
    return f"rev:{{{game_id}}}"


def finish_bucket(n: int) -> str:
    return f"races:{{finish:{n}}}"


FINISH_LEGACY = "races:{finish}"
LIVE = "races:{live}"
REVIEWS_DUE = "reviews:{due}"


def board(name: str) -> str:
    """The base of a leaderboard's keys: ``board_keys`` and ``board_part``."""
    return f"lb:{{{name}}}"


def board_part(name: str, part: str) -> str:
    """``z`` ranking, ``p`` player → member, ``e`` member → entry, ``pending``, ``review``, ``ch`` channel."""
    return f"{board(name)}:{part}"


def board_keys(name: str) -> list[str]:
    """The ranking, the player → member and the member → entry keys of a board."""
    return [board_part(name, "z"), board_part(name, "p"), board_part(name, "e")]


def bests_board(player: str) -> str:
    """The name of a player's personal-bests board (a board name, its keys ``board_keys``)."""
    return f"pb:{player}"


def daily(day: str, part: str) -> str:
    return f"daily:{{{day}}}:{part}"


def streak(player: str) -> str:
    return f"streak:{{{player}}}"


def stats(player: str) -> list[str]:
    return [f"stats:{{{player}}}:e", f"stats:{{{player}}}:z"]


def pool_shard(shard: str) -> str:
    return f"pool:{{{shard}}}"


def pool_shards(rules: str) -> str:
    return f"pool:shards:{{{rules}}}"


def pool_player(player: str) -> str:
    return f"pool:p:{{{player}}}"


def pool_lock(rules: str) -> str:
    return f"pool:lock:{{{rules}}}"


def pool_dodges(player: str) -> str:
    return f"pool:dodges:{{{player}}}"


def pool_instance(instance: str) -> str:
    return f"pool:i:{instance}"


def rating(player: str) -> str:
    return f"rating:{{{player}}}"


def rating_history(player: str, rules: str) -> str:
    return f"{rating(player)}:h:{rules}"


def rating_done(player: str) -> str:
    return f"{rating(player)}:done"


def rating_board(rules: str) -> str:
    return f"rboard:{{{rules}}}"


def fair_play(player: str) -> str:
    return f"fp:{{{player}}}"


def rating_hold(race_id: str) -> str:
    return f"rating:hold:{{{race_id}}}"


def rated(race_id: str) -> str:
    return f"rated:{{{race_id}}}"


RATING_REVIEW = "pool:review"
RATING_WAIT = "pool:review:wait"


def analysis(game_id: str, version: str) -> str:
    return f"ana:{{{game_id}}}:{version}"
