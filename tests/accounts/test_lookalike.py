"""Names that pass for others (fair play 19.6), tried as an impostor would over real HTTP, websockets and
Redis: "admin", "Moderator", "Deleted player" (in the four languages) and another account's username were
accepted as display names, and the daily board showed two rows reading the same name."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from golfrace.engine.i18n import LOCALES, catalog
from golfrace.store import lookalike
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from .conftest import TIMEOUT, sign_up, ws_client

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    "name",
    [
        "admin", "Admin", "ADMIN", "Administrator", "moderator", "Moderator", "Moderator Bob", "rnoderator",
        "Αdmin",  # a Greek capital Alpha
        "аdmin",  # a Cyrillic a
        "Golf Race", "golfrace", "Staff", "Official", "Deleted player", "deleted-player", "DELETED PLAYER",
        "Player", "Player 3", "Jucătorul 2", "Pemain 4", "שחקן 5",
        *[catalog(locale)["account"]["deleted_player"] for locale in LOCALES],
    ],
)  # fmt: skip
def test_reserved_names_and_their_look_alikes(name: str) -> None:
    assert lookalike.reserved(name), name


ROLES_IN_EVERY_LANGUAGE = {
    "en": ["Admin", "Moderator Bob", "Staff", "Support", "Golf Race Team"],
    "ro": ["Administratorul", "Moderatorul", "Echipa", "Echipa Golf Race", "Asistență", "Oficial", "Sistem"],
    "ms": ["Pentadbir", "pentadbir sistem", "Kakitangan", "Sokongan", "Pasukan Golf Race", "Rasmi"],
    "he": [
        "מנהל", "מנהלת", "מנהל המערכת", "אדמין", "מודרטור", "צוות", "תמיכה", "רשמי", "גולף רייס", "מרוץ גולף",
    ],
}  # fmt: skip
"""The roles and the product's name as a reader of each language would write them (fair play 19.6)."""


@pytest.mark.parametrize("locale", LOCALES)
def test_roles_and_the_product_are_reserved_in_every_language(locale: str) -> None:
    names = ROLES_IN_EVERY_LANGUAGE[locale] + [
        catalog(locale)["ui"]["app_title"],
        catalog(locale)["account"]["deleted_player"],
    ]
    assert [n for n in names if not lookalike.reserved(n)] == [], locale
    # in look-alike letters too (a Cyrillic а and о for the Latin ones; a Hebrew name stays as it is)
    assert lookalike.reserved(names[0].replace("a", "а").replace("o", "о")), locale


@pytest.mark.parametrize(
    "name",
    [
        "Ann", "Ren the Great", "Bernard", "Admiral", "Modest", "Playerone", "Dee", "אנה", "Ioana",
        "Maria Popescu", "Siti Aminah", "Nurul", "נועה", "מיכל", "דניאל", "Personalitate", "Sistemul Solar",
    ],
)  # fmt: skip
def test_ordinary_names_are_free(name: str) -> None:
    assert not lookalike.reserved(name), name


@pytest.mark.parametrize(
    ("one", "other"),
    [("paypal", "paypaI"), ("paypal", "PAYPAL"), ("bill", "biII"), ("modern", "rnodern"), ("Ana", "Аna")],
)
def test_look_alikes_share_a_key(one: str, other: str) -> None:
    assert lookalike.keys(one) & lookalike.keys(other), (one, other)


def test_different_names_share_no_key() -> None:
    assert not lookalike.keys("ann") & lookalike.keys("anne")
    assert not lookalike.keys("bill") & lookalike.keys("bull")


async def _display(http: httpx.AsyncClient, name: str) -> httpx.Response:
    return await http.post("/api/account/display", json={"display": name})


async def test_a_display_name_cannot_pass_for_a_role_a_deleted_player_or_another_account(
    acct_server: RunningServer, http: httpx.AsyncClient
) -> None:
    tail = secrets.token_hex(3)
    victim = f"Nell{tail}"
    async with httpx.AsyncClient(base_url=acct_server.http, timeout=TIMEOUT) as other:
        await sign_up(other, victim)
    me = f"Ren{tail}"
    await sign_up(http, me)
    names = [
        "admin",
        "Moderator",
        "Αdmin",
        *[catalog(locale)["account"]["deleted_player"] for locale in LOCALES],
        *[ROLES_IN_EVERY_LANGUAGE[locale][0] for locale in LOCALES],
    ]
    for name in names:
        r = await _display(http, name)
        assert r.status_code == 400, (name, r.text)
        assert r.json()["error"] == "bad_display_name" and r.json()["params"]["reason"] == "reserved", name
    for name in (victim, victim.upper(), f"NeII{tail}", f"Ne1l{tail}"):  # another account's username
        r = await _display(http, name)
        assert r.status_code == 400, (name, r.text)
        assert r.json()["params"]["reason"] == "taken", name
    for name in (me, me.lower(), "Ren the Great"):  # one's own username, and ordinary names, are fine
        r = await _display(http, name)
        assert r.status_code == 200 and r.json()["account"]["display"] == name, r.text
    # a sign-up's display name is checked the same way
    r = await http.post(
        "/api/account/signup",
        json={"username": f"Zed{tail}", "password": "correct horse battery", "display": victim},
    )
    assert r.status_code == 400 and r.json()["params"]["reason"] == "taken", r.text


async def test_a_username_cannot_look_like_another_accounts(
    acct_server: RunningServer, http: httpx.AsyncClient
) -> None:
    tail = secrets.token_hex(3)
    await sign_up(http, f"bill{tail}")
    async with httpx.AsyncClient(base_url=acct_server.http, timeout=TIMEOUT) as other:
        for name in (f"biII{tail}", f"BILL{tail}", f"bi1l{tail}"):
            r = await other.post(
                "/api/account/signup", json={"username": name, "password": "correct horse battery"}
            )
            assert r.status_code == 409 and r.json()["error"] == "username_taken", (name, r.text)
        await sign_up(other, f"bull{tail}")  # a different name is free
        r = await other.post("/api/account/rename", json={"username": f"biIl{tail}"})
        assert r.status_code == 409 and r.json()["error"] == "username_taken", r.text
    for name in ("rnoderator", "Adrnin"):
        r = await http.post(
            "/api/account/signup", json={"username": name, "password": "correct horse battery"}
        )
        assert r.status_code == 400 and r.json()["params"]["reason"] == "reserved", (name, r.text)


async def test_a_race_name_cannot_pass_for_another_account_or_a_role(
    acct_server: RunningServer, http: httpx.AsyncClient
) -> None:
    tail = secrets.token_hex(3)
    victim = f"Nell{tail}"
    await sign_up(http, victim)
    guest: Client = await ws_client(acct_server)
    try:
        for name, reason in (
            (f"NeII{tail}", "taken"),
            ("Moderator", "reserved"),
            ("Deleted player", "reserved"),
        ):
            await guest.send({"t": "race_new", "name": name, "code": "GO1-E-AAAAAAB"})
            error: dict[str, Any] = await guest.expect(
                "error", TIMEOUT, where=lambda m: m.get("ref") == "race_new"
            )
            assert error["code"] == "bad_option" and error["params"]["reason"] == reason, (name, error)
        await guest.send({"t": "race_new", "name": "Ann", "code": "GO1-E-AAAAAAB"})
        assert (await guest.expect("race", TIMEOUT))["racers"][0]["name"] == "Ann"
    finally:
        await guest.close()
