"""The server speaks the player's language (issue 28): the catalogs are whole and alike, and
an English client's bad move, bad name and full room are answered in English, a Spanish
client's in Spanish; the codes stay the same."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from server.engine import DECK
from server.i18n import CATALOGS, DEFAULT, catalog, languages, negotiate, words
from server.protocol import ApiError, ProtocolError, watchers_full
from server.push import push_text
from server.web.static import ClientFiles
from tests.support.srvkit import Client, ServerProc

PLACEHOLDER = re.compile(r"\{(\w+)\}")
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
SPANISH = {"Accept-Language": "es-DO,es;q=0.9,en;q=0.5"}


def texts(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def placeholders(value: Any) -> set[str]:
    return {name for text in texts(value) for name in PLACEHOLDER.findall(text)}


def test_there_are_two_languages_spanish_first() -> None:
    assert languages() == ("es-DO", "en")
    for lang in languages():
        assert catalog(lang)["@@locale"] == lang


@pytest.mark.parametrize("lang", ["en"])
def test_each_catalog_has_every_key_with_the_same_placeholders(lang: str) -> None:
    spanish, other = catalog(DEFAULT), catalog(lang)
    keys = {k for k in spanish if not k.startswith("@")}
    assert keys == {k for k in other if not k.startswith("@")}
    for key in keys:
        assert placeholders(spanish[key]) == placeholders(other[key]), key
        if isinstance(spanish[key], dict) or isinstance(other[key], dict):
            assert "other" in spanish[key] and "other" in other[key], key


def test_every_note_is_about_a_key() -> None:
    for path in CATALOGS.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key in data:
            if key.startswith("@") and not key.startswith("@@"):
                assert key[1:] in data, (path.name, key)


def test_accept_language_picks_a_language_there_is_a_catalog_of() -> None:
    assert negotiate(None) == negotiate("") == DEFAULT
    assert negotiate("en-US,en;q=0.9") == "en"
    assert negotiate("en-GB") == "en"
    assert negotiate("es-ES,es;q=0.9") == "es-DO"
    assert negotiate("fr-FR,fr;q=0.9,en;q=0.8") == "en"
    assert negotiate("fr-FR,de;q=0.5") == DEFAULT
    assert negotiate("es;q=0.4,en;q=0.8") == "en"
    assert negotiate("en;q=0,es") == "es-DO"
    assert negotiate("*;q=0.1,;;,q=x") == DEFAULT


def test_errors_are_worded_in_each_language_with_their_arguments() -> None:
    assert ProtocolError("not_your_turn").message == "Todavía no es tu turno."
    assert ProtocolError("not_your_turn").message_in("en") == "It isn't your turn yet."
    full = watchers_full(1), watchers_full(20)
    assert [e.message_in("en") for e in full] == [
        "That table already has 1 person watching, which is the most it takes. Try later.",
        "That table already has 20 people watching, which is the most it takes. Try later.",
    ]
    assert full[1].message.startswith("Esa mesa ya tiene 20 personas mirando")
    error = ApiError("bad_tokens", "error.bad_tokens.many", args={"n": 50})
    assert error.body("en") == {
        "error": {"code": "bad_tokens", "message": "Too many games: at most 50 at a time."}
    }
    assert ProtocolError("no_such_code").message_in("en") == words("error.server_error", "en")
    # a refused move: its reason and the engine's arguments, worded by the catalogs
    refused = ProtocolError("illegal", reason="not_in_hand", args={"card": "Qh"})
    assert refused.message == "No tienes la reina de corazones en la mano."
    assert refused.message_in("en") == "You don't have the queen of hearts in your hand."
    frame = json.loads(refused.to_text("en"))
    assert (frame["reason"], frame["args"]) == ("not_in_hand", {"card": "Qh"})
    must = ProtocolError(
        "illegal", reason="capture_must_take", args={"card": "5d", "items": ["5h", "As", 5]}
    )
    assert must.message.startswith(
        "Con el cinco de diamantes tienes que llevarte también el cinco de corazones, "
        "el as de picas y el montón de 5:"
    )
    assert must.message_in("en").startswith(
        "With the five of diamonds you must also capture the five of hearts, "
        "the ace of spades, and the pile of 5:"
    )
    ace = ProtocolError("illegal", reason="build_no_card", args={"value": 14})
    assert ace.message == "Para hacer un montón de 14 tienes que quedarte con un as en la mano."
    assert ace.message_in("en") == "To build a pile of 14 you must keep an ace in your hand."


def test_http_bad_name_and_full_room_in_each_language(server: ServerProc) -> None:
    body = {"mode": "friend", "name": "x" * 30}
    r = server.post("/api/rooms", body, headers=ENGLISH)
    assert r.status_code == 400 and r.json()["error"] == {
        "code": "bad_name",
        "message": "Write a name of 1 to 20 letters.",
    }
    r = server.post("/api/rooms", body, headers=SPANISH)
    assert r.json()["error"] == {
        "code": "bad_name",
        "message": "Escribe un nombre de 1 a 20 letras.",
    }
    r = server.post("/api/rooms", {"mode": "friend", "name": "Computadora"}, headers=ENGLISH)
    assert r.json()["error"]["message"] == "That name belongs to the game. Choose another."
    a_room, _ = server.friend_room()
    r = server.post("/api/join", {"invite": a_room["invite"], "name": "Cousin"}, headers=ENGLISH)
    assert r.status_code == 409 and r.json()["error"] == {
        "code": "room_full",
        "message": "That table already has two players.",
    }
    r = server.post("/api/join", {"invite": a_room["invite"], "name": "Prima"}, headers=SPANISH)
    assert r.json()["error"]["message"] == "Esa mesa ya tiene dos jugadores."


def test_pages_that_lead_nowhere_in_each_language(server: ServerProc) -> None:
    page = server.get("/no/such/page", headers=ENGLISH)
    assert page.status_code == 404
    assert '<html lang="en">' in page.text and "That page doesn't exist." in page.text
    assert "Go to the start" in page.text and "Esa página" not in page.text
    page = server.get("/no/such/page", headers=SPANISH)
    assert '<html lang="es-DO">' in page.text and "Esa página no existe." in page.text
    r = server.get("/api/nothing-here", headers=ENGLISH)
    assert r.json()["error"] == {"code": "not_found", "message": "That page doesn't exist."}


async def hello_in(
    server: ServerProc, token: str, lang: str | None, **kw: Any
) -> tuple[Client, dict[str, Any]]:
    client = await Client.open(server, **kw)
    client.token = token
    hello: dict[str, Any] = {"type": "hello", "version": 3, "token": token, "since": None}
    if lang is not None:
        hello["lang"] = lang
    await client.send(hello)
    welcome = await client.recv()
    assert welcome["type"] == "welcome", welcome
    return client, welcome


async def test_two_cousins_at_one_table_each_in_their_language(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    # the host says English in its hello; the guest's browser asks for Spanish
    a, wa = await hello_in(server, a_room["token"], "en-US")
    b, wb = await hello_in(server, b_room["token"], None, additional_headers=SPANISH)
    try:
        view_a, view_b = wa["view"], wb["view"]
        error = await b.move({"kind": "trail", "card": view_b["hand"][0]}, seq=0)
        assert (error["code"], error["message"]) == ("not_your_turn", "Todavía no es tu turno.")
        table = set(view_a["table"]["cards"])
        foreign = next(c.code for c in DECK if c.code not in view_a["hand"] and c.code not in table)
        error = await a.move({"kind": "trail", "card": foreign}, seq=0)
        assert error["code"] == "illegal" and error["reason"] == "not_in_hand"
        assert error["args"] == {"card": foreign}
        assert error["message"] == f"You don't have {the_card(foreign, 'en')} in your hand."
        error = await a.move({"kind": "trail", "card": view_a["hand"][0]}, seq=5)
        assert (error["code"], error["message"]) == (
            "stale",
            "The table changed. Look at the new move.",
        )
        await a.send({"type": "takeover", "level": "dios"})
        error = await a.recv_until(lambda m: m["type"] == "error")
        assert (error["code"], error["message"]) == ("bad_level", "That level doesn't exist.")
        await b.send({"type": "rematch"})
        error = await b.recv_until(lambda m: m["type"] == "error")
        assert (error["code"], error["message"]) == (
            "not_over",
            "La partida todavía no ha terminado.",
        )
    finally:
        await a.close()
        await b.close()


RANKS = {
    "en": "ace two three four five six seven eight nine ten jack queen king".split(),  # noqa: SIM905
    "es-DO": "as dos tres cuatro cinco seis siete ocho nueve diez jota reina rey".split(),  # noqa: SIM905
}
SUITS = {
    "en": {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"},
    "es-DO": {"s": "picas", "h": "corazones", "d": "diamantes", "c": "tréboles"},
}


def the_card(code: str, lang: str) -> str:
    """A card as a sentence names it, written out here (not read from the catalogs)."""
    rank = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].index(code[:-1])
    name = RANKS[lang][rank]
    suit = SUITS[lang][code[-1]]
    if lang == "en":
        return f"the {name} of {suit}"
    return f"{'la' if rank in (10, 11) else 'el'} {name} de {suit}"


@pytest.mark.parametrize(
    ("lang", "header", "said"),
    [
        ("en-US", None, "You don't have {card} in your hand."),
        (None, SPANISH, "No tienes {card} en la mano."),
        ("es-DO", ENGLISH, "No tienes {card} en la mano."),
    ],
)
async def test_a_refused_move_names_the_card_in_the_players_language(
    server: ServerProc, lang: str | None, header: dict[str, str] | None, said: str
) -> None:
    """The engine's refusal reaches each player worded from their catalog with its
    arguments: the card they do not hold, named ("the ten of diamonds"), and a capture
    that does not add up, naming the card and its value; the frame carries the reason and
    the arguments, so the client could word them too."""
    a_room, _ = server.friend_room()
    kw = {} if header is None else {"additional_headers": header}
    a, welcome = await hello_in(server, a_room["token"], lang, **kw)
    try:
        view = welcome["view"]
        table = view["table"]["cards"]
        foreign = next(c.code for c in DECK if c.code not in view["hand"] and c.code not in table)
        error = await a.move({"kind": "trail", "card": foreign}, seq=0)
        assert (error["code"], error["reason"], error["args"]) == (
            "illegal",
            "not_in_hand",
            {"card": foreign},
        )
        language = "en" if said.startswith("You") else "es-DO"
        assert error["message"] == said.format(card=the_card(foreign, language))
        # a card of the hand none of whose rank is on the table, taking a card that is not
        # its pair: the sum is wrong, and the refusal says with which card and what value
        ranks = {c[:-1] for c in table}
        card = next((c for c in view["hand"] if c[:-1] not in ranks), None)
        if card is None or not table:
            return
        error = await a.move({"kind": "capture", "card": card, "take": [table[0]]}, seq=0)
        assert error["reason"] == "capture_bad_sum", error
        value = error["args"]["value"]
        assert error["args"] == {"card": card, "value": value}
        named = the_card(card, language)
        if language == "en":
            assert error["message"].startswith(
                f"With {named} you only capture pairs, piles of {value}"
            )
        else:
            assert error["message"].startswith(
                f"Con {named} solo te llevas parejas, montones de {value}"
            )
    finally:
        await a.close()


async def test_a_socket_speaks_its_browsers_language_before_hello(server: ServerProc) -> None:
    client = await Client.open(server, additional_headers=ENGLISH)
    try:
        await client.send({"type": "move"})
        error = await client.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "missing_field"
        assert error["message"] == "The field \u201cid\u201d is missing or not valid."
        await client.send({"type": "ping"})
        error = await client.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "hello_first"
        assert error["message"] == "First you need to sit at the table."
        await client.send(
            {"type": "hello", "version": 3, "token": "nope", "since": None, "lang": "es-DO"}
        )
        error = await client.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "bad_token" and error["message"].startswith("Esa partida ya no")
    finally:
        await client.close()


async def test_a_lang_that_is_not_a_tag_is_bad_input(server: ServerProc) -> None:
    room = server.computer_room()
    client = await Client.open(server)
    try:
        await client.send(
            {"type": "hello", "version": 3, "token": room["token"], "since": None, "lang": 7}
        )
        error = await client.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "missing_field" and "«lang»" in error["message"]
    finally:
        await client.close()


async def test_the_browser_gets_each_catalog_in_two_compact_parts_without_the_notes() -> None:
    """/static/i18n/<tag>.json: the screens' texts (no notes, no texts only the server says,
    no reading pages); /static/i18n/reading/<tag>.json: the reading pages'. Together they
    hold every text the browser uses once, in the file's words."""
    app = Starlette(routes=[Mount("/static", ClientFiles(directory=CATALOGS.parent))])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://casino") as client:
        for lang in languages():
            full = catalog(lang)
            parts = {}
            for part, url in (
                ("screens", f"/static/i18n/{lang}.json"),
                ("reading", f"/static/i18n/reading/{lang}.json"),
            ):
                r = await client.get(url)
                assert r.status_code == 200, url
                assert r.headers["content-type"].startswith("application/json")
                assert "\n" not in r.text  # no layout
                parts[part] = r.json()
                assert all(full[k] == v for k, v in parts[part].items()), url
                again = await client.get(r.url, headers={"If-None-Match": r.headers["etag"]})
                assert again.status_code == 304
            screens, reading = parts["screens"], parts["reading"]
            assert set(reading) == {"pages.how_to_play.html", "pages.about.html"}
            assert not set(screens) & set(reading)
            assert not any(k.startswith("@") for k in screens)
            # what only the server says stays on the server...
            assert "error.bad_name" not in screens and "push.turn.title" not in screens
            assert "manifest.name" not in screens and "page.home" not in screens
            # ... but what the offline game and the offline page say is there
            assert "error.not_your_turn" in screens and "offline.heading" in screens
            assert "push.offer" in screens and "page.title" in screens
        # a language there is no catalog of
        assert (await client.get("/static/i18n/reading/fr.json")).status_code == 404


def test_pushes_are_worded_in_the_seats_language() -> None:
    assert push_text("turn", "Ana", "en") == ("Your turn!", "It's your turn in your game with Ana.")
    assert push_text("turn", "Ana", "es-DO") == ("¡Te toca!", "Te toca en tu partida con Ana.")
    # a language kept before there were catalogs ("es"), or one there is none of
    assert push_text("join", "Beto", "es")[0] == "¡Beto llegó a la mesa!"
    assert push_text("rematch", "Beto", "fr")[0] == "Beto quiere la revancha"
    # a seat nobody named, the computer's chair: worded in the seat's language
    assert push_text("join", None, "en", seat=1)[0] == "Player 2 sat down at the table!"
    assert push_text("join", None, "es-DO", seat=3)[0] == "¡Jugador 4 llegó a la mesa!"
    assert push_text("turn", None, "en", seat=2, computer=True)[1] == (
        "It's your turn in your game with the computer."
    )


async def test_the_manifest_names_the_app_in_the_browsers_language() -> None:
    app = Starlette(routes=[Mount("/static", ClientFiles(directory=CATALOGS.parent))])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://casino") as client:
        spanish = await client.get("/static/manifest.webmanifest")
        english = await client.get("/static/manifest.webmanifest", headers=ENGLISH)
        assert english.headers["content-type"].startswith("application/manifest+json")
        assert "accept-language" in english.headers["vary"].lower()
        es, en = spanish.json(), english.json()
        assert (es["lang"], es["name"]) == ("es-DO", "Casino dominicano")
        assert (en["lang"], en["name"], en["short_name"]) == ("en", "Dominican Casino", "Casino")
        assert (
            en["description"] == "Play Dominican casino against the computer or with your family."
        )
        assert {k: v for k, v in en.items() if k not in ("lang", "name", "description")} == {
            k: v for k, v in es.items() if k not in ("lang", "name", "description")
        }
        again = await client.get(
            "/static/manifest.webmanifest",
            headers={**ENGLISH, "If-None-Match": english.headers["etag"]},
        )
        assert again.status_code == 304
