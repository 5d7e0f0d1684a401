"""Stepping around the limits, posing as the computer, filling the disk (issue 9, items 3,
10, 11), against one real server with the default proxy settings (no FORWARDED_ALLOW_IPS).
Tests speak from their own loopback addresses (127.0.0.x) so that their limits do not mix.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.support.srvkit import ServerProc

JOIN_PER_MIN = 5
FAILURES = 4
MISSES = 3  # wrong invites one address may make in a minute


@pytest.fixture(scope="module")
def abuse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    proc = ServerProc(
        tmp_path_factory.mktemp("abuse"),
        {
            "RATE_JOIN_PER_MIN": str(JOIN_PER_MIN),
            "RATE_ROOMS_PER_MIN": "1000",
            "CODE_FAILURES_PER_MIN": str(FAILURES),
            "INVITE_MISSES_PER_MIN": str(MISSES),
        },
    ).start()
    yield proc
    proc.stop()


def http(server: ServerProc, source: str) -> httpx.Client:
    return httpx.Client(
        base_url=server.base, timeout=5, transport=httpx.HTTPTransport(local_address=source)
    )


def post(server: ServerProc, source: str, path: str, body: Any) -> httpx.Response:
    with http(server, source) as c:
        return c.post(path, json=body)


# -- item 3: rate limits that cannot be stepped around ----------------------------------------


def test_forwarded_for_is_not_believed_by_default(abuse: ServerProc) -> None:
    with http(abuse, "127.0.0.1") as c:
        codes = [
            c.post(
                "/api/rejoin-codes",
                json={"token": "x" * 40},
                headers={"X-Forwarded-For": f"198.51.100.{i}"},
            ).status_code
            for i in range(JOIN_PER_MIN + 3)
        ]
    assert codes == [401] * JOIN_PER_MIN + [429] * 3


def test_short_rejoin_codes_are_longer(abuse: ServerProc) -> None:
    room = post(abuse, "127.0.0.2", "/api/rooms", {"mode": "computer", "level": "facil"}).json()
    code = post(abuse, "127.0.0.2", "/api/rejoin-codes", {"token": room["token"]}).json()
    assert len(code["code"]) == 9  # 31**9: about 44.6 bits, not 6 characters' 29.7


# -- item 10: nothing is ever deleted ---------------------------------------------------------


def rows(server: ServerProc, table: str, room: str) -> int:
    return int(server.db_rows(f"select count(*) from {table} where room_id = ?", room)[0][0])


def test_abandoned_rooms_and_expired_codes_are_purged(
    make_server: Callable[..., ServerProc],
) -> None:
    """On each backend: a room untouched for 31 days goes with all its rows, a code that
    expired two days ago goes, a fresh room and a live code stay."""
    server = make_server(PURGE_INTERVAL="0.5").start()
    old = post(server, "127.0.0.7", "/api/rooms", {"mode": "friend", "name": "Ana"}).json()
    fresh = post(server, "127.0.0.7", "/api/rooms", {"mode": "friend", "name": "Ana"}).json()
    post(server, "127.0.0.7", "/api/rejoin-codes", {"token": old["token"]})
    post(server, "127.0.0.7", "/api/rejoin-codes", {"token": fresh["token"]})
    post(server, "127.0.0.7", "/api/rejoin-codes", {"token": fresh["token"]})
    ids = [
        r[0]
        for r in server.db_rows(
            "select id from rejoin_codes where room_id = ? order by id", fresh["room"]
        )
    ]
    assert len(ids) == 2
    # written as another process would: 31 days untouched; a code that expired 2 days ago
    server.db_execute(
        "update rooms set created_at = 0.0, updated_at = 0.0 where id = ?", old["room"]
    )
    server.db_execute(
        "update rejoin_codes set expires_at = ? where id = ?", time.time() - 2 * 86400, ids[0]
    )
    deadline = time.monotonic() + 10
    while rows(server, "seats", old["room"]) or server.db_rows(
        "select 1 from rejoin_codes where id = ?", ids[0]
    ):
        assert time.monotonic() < deadline, "not purged"
        time.sleep(0.05)
    assert server.db_rows("select 1 from rooms where id = ?", old["room"]) == []
    assert rows(server, "rejoin_codes", old["room"]) == 0
    assert rows(server, "seats", fresh["room"]) == 2  # every seat's row, the free one's too
    assert server.db_rows("select 1 from rejoin_codes where id = ?", ids[1]) == [(1,)]


# -- item 11: names ---------------------------------------------------------------------------

REFUSED = [
    "\u3164",
    "\u115f",
    "\u2800",
    "\u034f",
    "\u3164\u3164 \u2800",
    "\u200b",
    "\u202eAna",
    "Computadora",
    "computadora",
    "COMPUTADORA",
    "Computadora (Fácil)",
    "Computadora (Normal)",
    "La Computadora",
    "C0mputadora",
    "Cоmputadora",  # Cyrillic о
    "Ｃｏｍｐｕｔａｄｏｒａ",
    "Compu-tadora",
    "Computer",
    "Ana\u3164",
]
ACCEPTED = ["Ana", "José Miguel", "María", "李雷", "Ана", "O'Neil", "Ana 😀", "Jugador 1"]


@pytest.mark.parametrize(("i", "name"), list(enumerate(REFUSED)))
def test_names_that_hide_or_pose_are_refused(abuse: ServerProc, i: int, name: str) -> None:
    r = post(abuse, "127.0.0.8", "/api/rooms", {"mode": "friend", "name": name})
    assert r.status_code == 400, (name, r.text)
    assert r.json()["error"]["code"] == "bad_name" and r.json()["error"]["message"]
    friend = post(abuse, "127.0.0.8", "/api/rooms", {"mode": "friend", "name": "Ana"}).json()
    r = post(abuse, f"127.0.4.{i + 1}", "/api/join", {"invite": friend["invite"], "name": name})
    assert r.status_code == 400, (name, r.text)
    assert abuse.db_rows(
        "select name from seats where room_id = ? and seat = 1", friend["room"]
    ) == [(None,)]


@pytest.mark.parametrize("name", ACCEPTED)
def test_ordinary_names_are_kept(abuse: ServerProc, name: str) -> None:
    r = post(abuse, "127.0.0.10", "/api/rooms", {"mode": "friend", "name": name})
    assert r.status_code == 201, (name, r.text)
    assert abuse.db_rows(
        "select name from seats where room_id = ? and seat = 0", r.json()["room"]
    ) == [(name,)]


def test_an_address_pays_for_its_own_wrong_invites(abuse: ServerProc) -> None:
    """Before the whole server's budget is spent, one address that keeps guessing is
    refused after INVITE_MISSES_PER_MIN misses, and nobody else notices."""
    friend = post(abuse, "127.0.0.7", "/api/rooms", {"mode": "friend", "name": "Ana"}).json()
    with http(abuse, "127.0.6.1") as guesser:
        codes = [guesser.get(f"/api/invites/YYYYYYY{i + 2}").status_code for i in range(MISSES + 1)]
        assert codes == [404] * MISSES + [429], codes
        refused = guesser.get(f"/api/invites/{friend['invite']}")
        assert refused.status_code == 429 and "desde tu conexión" in refused.text
    with http(abuse, "127.0.0.8") as other:
        assert other.get(f"/api/invites/{friend['invite']}").status_code == 200


# -- item 3 again, last: it spends the server's budgets for the next minute ---------------


def test_wrong_codes_have_a_budget_for_the_whole_server(abuse: ServerProc) -> None:
    """FAILURES wrong short codes from any number of addresses pause short codes for
    everyone for a minute (the long code in the link still works). Wrong invites spend a
    budget of their own, but they never close a real invitation to an address that did
    not guess: once the budget is spent, an address that missed once is refused, real
    codes included (issue 20, item 3)."""
    room = post(abuse, "127.0.0.3", "/api/rooms", {"mode": "computer", "level": "facil"}).json()
    code = post(abuse, "127.0.0.3", "/api/rejoin-codes", {"token": room["token"]}).json()
    for i in range(FAILURES):
        r = post(abuse, f"127.0.2.{i + 1}", "/api/rejoin", {"code": "ZZZZZZZZZ"})
        assert r.status_code == 404, r.text
    refused = post(abuse, "127.0.0.4", "/api/rejoin", {"code": code["code"]})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    by_link = post(abuse, "127.0.0.4", "/api/rejoin", {"code": code["url"].removeprefix("/r/")})
    assert by_link.status_code == 200, by_link.text

    friend = post(abuse, "127.0.0.5", "/api/rooms", {"mode": "friend", "name": "Ana"}).json()
    for i in range(FAILURES):
        r = post(abuse, f"127.0.3.{i + 1}", "/api/join", {"invite": "ZZZZZZZZ", "name": "X"})
        assert r.status_code == 404, r.text
    with http(abuse, "127.0.3.1") as guesser:  # it missed once: under the spent budget, out
        assert guesser.get("/api/invites/ZZZZZZZY").status_code == 429
        refused = guesser.get(f"/api/invites/{friend['invite']}")
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        assert "desde tu conexión" in refused.json()["error"]["message"]
    with http(abuse, "127.0.0.6") as real:  # the friend's address never guessed
        assert real.get(f"/api/invites/{friend['invite']}").json()["host"] == "Ana"
        joined = real.post("/api/join", json={"invite": friend["invite"], "name": "Primo"})
        assert joined.status_code == 200, joined.text
    # a new address may still make one wrong guess a minute, then it is out too
    assert post(abuse, "127.0.3.9", "/api/join", {"invite": "ZZZZZZZX"}).status_code == 404
    assert post(abuse, "127.0.3.9", "/api/join", {"invite": "ZZZZZZZW"}).status_code == 429
