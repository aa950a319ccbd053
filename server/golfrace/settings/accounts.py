"""Named limits of accounts, with their units; ``GOLFRACE_ACCOUNT_<FIELD>`` sets any of them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from golfrace.settings.env import SettingError, env_values


@dataclass(frozen=True, slots=True)
class AccountSettings:
    # --- sessions ------------------------------------------------------------------------------------------
    session_ttl_s: int = 30 * 86_400
    """A session not used for this long (seconds) is signed out: each use moves its expiry on."""
    session_max_s: int = 365 * 86_400
    """A session ends this long (seconds) after it was made, however often it is used."""
    session_touch_s: int = 3_600
    """A session's last use is written at most this often (seconds): no write per frame of a busy player."""
    max_sessions: int = 20
    """Sessions one account keeps; a new one beyond that signs out the least recently used."""
    cookie_secure: bool = False
    """Mark the session cookie ``Secure`` (HTTPS only). On by itself when the request came over HTTPS."""

    # --- passwords (argon2id, RFC 9106; argon2-cffi's recommended profile) ---------------------------------
    password_time_cost: int = 3
    """Argon2id passes over the memory."""
    password_memory_kib: int = 65_536
    """Argon2id memory per hash, KiB (64 MiB: RFC 9106's second recommended option)."""
    password_parallelism: int = 4
    """Argon2id lanes."""
    password_min: int = 10
    """Shortest password (characters, after Unicode NFKC normalisation)."""
    password_max: int = 128
    """Longest password (characters): argon2 takes any length, the bound keeps requests small."""
    hash_concurrency: int = 2
    """Password hashes computed at once per process (each takes ``password_memory_kib``); others wait."""

    # --- abuse limits ------------------------------------------------------------------------------------
    signups_per_ip: int = 5
    """New accounts one client IP (an IPv6 /64) may make per ``signup_window_s``."""
    signup_window_s: int = 86_400
    """The window of ``signups_per_ip`` (seconds)."""
    free_attempts: int = 3
    """Failed sign-ins per account name (and per ``ip_free_attempts`` per IP) before delays start."""
    ip_free_attempts: int = 10
    """Failed sign-ins from one client IP before delays start (several people may share an address)."""
    delay_base_ms: int = 1_000
    """The first delay after the free attempts (ms); each further failure doubles it."""
    delay_max_ms: int = 15 * 60_000
    """The longest delay between attempts (ms)."""
    attempts_ttl_s: int = 86_400
    """Failure counts are forgotten this long (seconds) after the last failure."""
    attempts_in_flight: int = 2
    """Sign-in attempts for one account name being checked at once (a double click); more are refused
    ``too_many_attempts`` at once. Every attempt is counted when it arrives, so a burst is held to the
    free attempts anyway; this bounds the password hashes one name can keep busy."""
    ip_attempts_in_flight: int = 8
    """Sign-in attempts (and sign-up username checks) from one client network being checked at once."""
    in_flight_ttl_s: int = 60
    """An attempt still counted in flight this long (seconds) after it began is forgotten (a server that
    died during it); longer than any request may take."""
    challenges_per_minute: int = 30
    """Passkey ceremonies (sign-up, sign-in or add options) one client network may start per minute: each
    keeps a challenge in Redis for ``challenge_ttl_s``."""

    # --- names and passkeys --------------------------------------------------------------------------------
    rename_every_s: int = 7 * 86_400
    """An account may change its username once per this many seconds."""
    display_max: int = 24
    """Longest display name (characters after trimming): the race name limit."""
    challenge_ttl_s: int = 300
    """Seconds a passkey challenge (sign-up or sign-in) stays valid."""
    max_passkeys: int = 10
    """Passkeys one account may register."""
    rp_name: str = "Golf Race"
    """The relying party's name the browser shows when making a passkey."""
    public_origin: str = ""
    """The page origin behind a proxy (e.g. ``https://golf.example``): passkeys are bound to its host, and
    account requests must come from it. Empty: the origin of each request (its ``Host`` and scheme)."""

    # --- history ---------------------------------------------------------------------------------------
    history_max: int = 500
    """Finished games listed in a player's history (the profile's and stats page's recent games and win
    streaks); the oldest go, their counters and bests are kept."""
    anonymous_history_ttl_s: int = 30 * 86_400
    """The history of a player without an account expires this long (seconds) after their last finished
    game; an account's is kept."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> AccountSettings:
        settings = cls(**env_values(cls, "GOLFRACE_ACCOUNT_", env))
        for f in fields(cls):
            value = getattr(settings, f.name)
            if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
                raise SettingError(f"GOLFRACE_ACCOUNT_{f.name.upper()} must not be negative", setting=f.name)
        if settings.password_min < 8 or settings.password_max < settings.password_min:
            raise SettingError("password_min must be >= 8 and <= password_max", setting="password_min")
        return settings
