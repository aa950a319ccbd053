"""Every Redis key and channel of friends. ``P`` is an account's player id; the ``{…}`` hash tag puts one
account's keys in one Redis Cluster slot, and every command below touches one key.

- ``fr:{P}:out``     set: the accounts ``P`` follows (kept for good, as the account: ``PERMANENT_PATTERNS``)
- ``fr:{P}:blk``     set: the accounts ``P`` blocked (kept for good)
- ``fr:{P}:on``      hash with a TTL: ``<instance>|<connection>`` → ``<stamp ms>|<race>,<race>…``, one field
                     per connection that asked for its friends (``friends``): online, and the races it joined
- ``fr:{P}:to:<Q>``  string with a TTL: the id of ``P``'s pending challenge to ``Q`` (one at a time)
- ``fr:{P}:pend``    sorted set with a TTL: the challenges ``P`` sent or got that wait for an answer (id →
                     ``expires_at``), sent again to a page that asks for its friends later
- ``frch:{<id>}``    hash with a TTL: a pending challenge (``from``, ``to``, ``rules``, ``expires_at``);
                     taken once by ``DEL``, so two tabs answering at once make one race
- ``limit:{friend_follow|acct:P}``, ``limit:{friend_follow|<net>}``, ``limit:{friend_challenge|…}``: token
                        buckets (``limits.TOKEN_BUCKET``) with a TTL, named by ``keys.limit_bucket``
- channel ``fr:{P}:ch``: notices to every connection of ``P`` that asked for its friends (``challenge``,
  ``challenge_end``), on any instance
"""

from __future__ import annotations


def following(player: str) -> str:
    return f"fr:{{{player}}}:out"


def blocked(player: str) -> str:
    return f"fr:{{{player}}}:blk"


def online(player: str) -> str:
    return f"fr:{{{player}}}:on"


def pending(sender: str, target: str) -> str:
    return f"fr:{{{sender}}}:to:{target}"


def waiting(player: str) -> str:
    return f"fr:{{{player}}}:pend"


def challenge(challenge_id: str) -> str:
    return f"frch:{{{challenge_id}}}"


def notices(player: str) -> str:
    return f"fr:{{{player}}}:ch"


def personal(player: str) -> list[str]:
    """The keys that go with the account when it is deleted."""
    return [following(player), blocked(player), online(player), waiting(player)]
