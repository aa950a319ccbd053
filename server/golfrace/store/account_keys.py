"""Every Redis key of accounts. The ``{…}`` hash tag puts all of one account's keys in one Redis Cluster
slot, and every command or script below touches a single slot.

- ``acct:{P}``          hash: ``username``, ``display``, ``created``, ``renamed`` (ms), ``pw`` (argon2id PHC
                        string, only for accounts with a password), ``pw_changed`` (ms)
- ``acct:{P}:sess``     hash: SHA-256 of a session token (hex) → JSON ``{created, seen, agent}``
- ``acct:{P}:keys``     hash: passkey credential id (base64url) → JSON ``{public_key, sign_count, created,
                        used, transports}``
- ``acct:{P}:boards``   set: the public leaderboards holding an entry of the account (for deletion)
- ``uname:{<folded>}``  string: the player id owning that username (lowercase)
- ``wa:{<challenge>}``  string with a TTL: a pending passkey ceremony (JSON; taken once, with GETDEL)
- ``thr:{user:<folded>}``, ``thr:{pk:<player>}``, ``thr:{ip:<net>}``  hash with a TTL: ``fails``, ``until``
                        (ms) — sign-in delays per name, per passkey user handle, per client network
- ``signup:{<net>}``    string with a TTL: accounts made from that client network in the current window
- ``wa-rate:{<net>}``   string with a TTL: passkey ceremonies started from that network this minute
- ``hist:{P}``          hash: counters and bests per mode; ``hist:{P}:z`` zset (game id by finish ms) and
                        ``hist:{P}:g`` hash (game id → summary JSON): the latest finished games. Every
                        player's, guest or account: the one record of finished games (``history.py``)

``P`` is the player id (``p`` + 16 hex digits), the same id an anonymous token carries.
"""

from __future__ import annotations


def account(player: str) -> str:
    return f"acct:{{{player}}}"


def sessions(player: str) -> str:
    return account(player) + ":sess"


def passkeys(player: str) -> str:
    return account(player) + ":keys"


def boards(player: str) -> str:
    return account(player) + ":boards"


def username(folded: str) -> str:
    return f"uname:{{{folded}}}"


def challenge(challenge_id: str) -> str:
    return f"wa:{{{challenge_id}}}"


def throttle(kind: str, subject: str) -> str:
    return f"thr:{{{kind}:{subject}}}"


def signups(network: str) -> str:
    return f"signup:{{{network}}}"


def challenges(network: str) -> str:
    return f"wa-rate:{{{network}}}"


def history(player: str) -> str:
    return f"hist:{{{player}}}"


def history_games(player: str) -> str:
    return history(player) + ":z"


def history_summaries(player: str) -> str:
    return history(player) + ":g"
