"""An account's own data, as its page shows and changes it (``accounts.profile``): the profile (the account,
its history's numbers, its daily streak, its recent and open games), the changes its owner makes (a new
password, display name or username: one username change a week) and deleting the account. What could keep
or destroy the account (a password change, the deletion) first asks ``Ceremonies.reauthenticate``; a
deletion removes the personal data and turns its public leaderboard entries into a deleted player's."""

from __future__ import annotations

import contextlib
import secrets
from typing import TYPE_CHECKING, Any

from golfrace.store import friend_keys, keys, lookalike, race_keys
from golfrace.store.solo_bests import solo_bests_key

from .errors import AccountError
from .names import check_not_another, check_username, clean_display, fold
from .passwords import check_password
from .store import Account, now_ms

if TYPE_CHECKING:
    from .ceremonies import Reauth
    from .service import Accounts

DELETED_PREFIX = "deleted-"

ANONYMISE = """
local mem = redis.call('HGET', KEYS[2], ARGV[1])
if not mem then return 0 end
local score = redis.call('ZSCORE', KEYS[1], mem)
local blob = redis.call('HGET', KEYS[3], mem)
local zttl = redis.call('PTTL', KEYS[1])
local ettl = redis.call('PTTL', KEYS[3])
redis.call('ZREM', KEYS[1], mem)
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], mem)
if score and blob then
  local entry = cjson.decode(blob)
  entry['player'] = ARGV[2]
  entry['name'] = ''
  entry['username'] = ''
  entry['deleted'] = true
  local ghost = string.sub(mem, 1, string.find(mem, '|', 1, true)) .. ARGV[2]
  redis.call('ZADD', KEYS[1], score, ghost)
  redis.call('HSET', KEYS[3], ghost, cjson.encode(entry))
  -- the board's only entry: ZREM/HDEL removed the keys, and these writes made them again without a TTL
  if zttl > 0 then redis.call('PEXPIRE', KEYS[1], zttl) end
  if ettl > 0 then redis.call('PEXPIRE', KEYS[3], ettl) end
end
return 1
"""


class Profile:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.settings = accounts.settings
        self.store = accounts.store
        self._anonymise = accounts.ctx.redis.register_script(ANONYMISE)

    async def read(self, player: str, recent: int = 20) -> dict[str, Any]:
        accounts = self.accounts
        account = await accounts.loaded(player)
        games = await accounts.history.recent(player, recent)
        streak: dict[str, int] = {"current": 0, "best": 0}
        streaks = accounts.ctx.streaks
        if streaks is not None:
            with contextlib.suppress(Exception):
                current, best = await streaks.streak_of(player)
                streak = {"current": current, "best": best}
        return {
            "account": account.public(self.settings),
            "stats": await accounts.history.stats(player),
            "streak": streak,
            "recent": [_summary(g) for g in games],
            "open": await accounts.ctx.store.player_games(player),
        }

    async def change_password(
        self, player: str, current_hash: str, proof: Reauth, new: object, net: str
    ) -> Account:
        """A new password: the current one (``proof.password``), or for a passkey account setting its
        first one, a passkey assertion (``reauthenticate``); every other session is signed out."""
        accounts = self.accounts
        account = await accounts.loaded(player)
        secret = check_password(new, account.username, self.settings)
        await accounts.ceremonies.reauthenticate(account, proof, net)
        await self.store.set_fields(player, pw=await accounts.passwords.hash(secret), pw_changed=now_ms())
        await accounts.sign_out(player, None, keep=current_hash)
        return await accounts.loaded(player)

    async def set_display(self, player: str, display: object) -> Account:
        shown = clean_display(display, self.settings.display_max)
        await check_not_another(self.accounts.ctx.redis, shown, player)  # fair play 19.6
        await self.store.set_fields(player, display=shown)
        return await self.accounts.loaded(player)

    async def rename(self, player: str, username: object) -> Account:
        account = await self.accounts.loaded(player)
        name = check_username(username)
        if fold(name) == fold(account.username):
            await self.store.set_fields(player, username=name)  # only the spelling changes
            return await self.accounts.loaded(player)
        if account.renamed and now_ms() < account.renamed + self.settings.rename_every_s * 1000:
            at = account.renamed + self.settings.rename_every_s * 1000
            raise AccountError("rename_too_soon", "one username change a week", retry_ms=at - now_ms())
        if not await self.store.claim_username(name, player):
            raise AccountError("username_taken", "this username is taken")
        redis = self.accounts.ctx.redis
        if not await lookalike.claim(redis, name, player):  # fair play 19.6
            await self.store.release_username(name, player)
            raise AccountError("username_taken", "this username looks like another account's")
        await self.store.set_fields(player, username=name, renamed=now_ms())
        await self.store.release_username(account.username, player)
        kept = lookalike.keys(name)
        for key in lookalike.keys(account.username) - kept:
            await lookalike.release_key(redis, lookalike.key_name(key), player)
        return await self.accounts.loaded(player)

    async def delete(self, player: str, confirm: object, proof: Reauth, net: str) -> None:
        """The account and its personal data go; its public leaderboard entries become a deleted player's.
        Needs the username typed again and ``reauthenticate``."""
        accounts = self.accounts
        account = await accounts.loaded(player)
        if not isinstance(confirm, str) or fold(confirm) != fold(account.username):
            raise AccountError("bad_request", "confirm with the account's username", field="confirm")
        await accounts.ceremonies.reauthenticate(account, proof, net)
        ghost = DELETED_PREFIX + secrets.token_hex(6)
        for board in await self.store.boards_of(player):
            await self._anonymise(keys=race_keys.board_keys(board), args=[player, ghost])
        games = await accounts.history.forget(player)
        redis = accounts.ctx.redis
        days = sorted({g.daily for g in games if g.daily})
        for day in days:
            await redis.hdel(race_keys.daily(day, "done"), player)
        await redis.delete(*race_keys.board_keys(race_keys.bests_board(player)))
        await redis.delete(race_keys.streak(player))
        await redis.delete(*race_keys.stats(player))  # the stats page's games
        await redis.delete(keys.player_key(player), keys.player_games(player))
        # the friends extension's (above this layer, its keys named by the store): whom it followed and
        # blocked, its presence and waiting challenges
        await redis.delete(solo_bests_key(player))  # its best solo game on each deal (its own ghosts)
        await redis.delete(*friend_keys.personal(player))
        listed = await self.store.list_sessions(player)
        await self.store.remove(player, account.username)
        await accounts.history.forget(player)  # a game that ended meanwhile was kept as an account's
        await redis.delete(solo_bests_key(player))
        await accounts.close_connections(player, {h for h, _ in listed})


def _summary(game: Any) -> dict[str, Any]:
    out = {
        "game": game.game,
        "mode": game.mode,
        "kind": game.kind,
        "rules": game.rules,
        "status": game.status,
        "score": game.score,
        "moves": game.moves,
        "elapsed": game.elapsed,
        "finished_at": game.finished_at,
        "ranked": game.ranked,
        "race": game.race,
        "daily": game.daily,
    }
    return out
