"""A refused move is worded alike by the server (server/i18n ``reason_text``, the error
frame's message) and by la mesa (client/js/ui/reasons.js, which words the offline game's
refusals and the server's from the frame's ``reason`` and ``args``): every refusal of the
project's scenarios (seeds/scenarios), with the engine's own code and arguments, in both
languages; and the words name the cards and values, not "that card"."""

from __future__ import annotations

from typing import Any

from server.engine import IllegalMove, Move, Position, play_step
from server.i18n import catalog, languages, reason_text
from tests.engine.oracles import Oracle
from tests.engine.test_scenarios import SCENARIOS


def refusals() -> list[tuple[str, dict[str, Any]]]:
    """Every refusal the scenarios hold: the engine's code and arguments."""
    found: list[tuple[str, dict[str, Any]]] = []
    for param in SCENARIOS:
        scenario = param.values[0]
        if "position" not in scenario:
            continue
        moves = [e["move"] for e in scenario.get("illegal", [])]
        if "error" in scenario and "play" in scenario:
            moves.append(scenario["play"])
        position = Position.from_json(scenario["position"])
        for move in moves:
            try:
                play_step(position, Move.from_json(move))
            except IllegalMove as exc:
                found.append((exc.code, exc.reason_args))
    return found


def test_the_server_and_la_mesa_word_every_refusal_alike(js: Oracle) -> None:
    found = refusals()
    codes = {code for code, _ in found}
    assert len(codes) >= 14, codes  # every reason the engine gives but match_over
    for lang in languages():
        words = catalog(lang)
        answers = js.ask_many(
            [
                {"op": "reason_text", "lang": lang, "catalog": words, "code": c, "args": a}
                for c, a in found
            ]
        )
        for (code, args), answer in zip(found, answers, strict=True):
            server = reason_text(code, lang, args)
            assert answer == {"text": server}, (lang, code, args)
            assert "{" not in server, server  # every placeholder filled


def test_a_refusal_names_the_card_in_each_language(js: Oracle) -> None:
    said = {
        lang: js.ask(
            {
                "op": "reason_text",
                "lang": lang,
                "catalog": catalog(lang),
                "code": "trail_pairs",
                "args": {"card": "Js", "pair": "Jd"},
            }
        )["text"]
        for lang in languages()
    }
    assert said["es-DO"] == (
        "No puedes echar la jota de picas: hace pareja con la jota de diamantes de la mesa."
    )
    assert said["en"].startswith("You can't trail the jack of spades: it pairs with the jack")


def test_a_seat_nobody_named_is_worded_in_the_screens_language(js: Oracle) -> None:
    """The server stores "Jugador 2" for a friend who gave no name and "Computadora" for the
    computer's chair, and says ``named: false`` (docs/protocol.md, "Names"): the screens
    word those seats from the catalog (ui/chairs.js); a name a person gave stays as given,
    and a chair nobody sat in is nobody yet."""
    person = {"kind": "person", "level": None, "chair": "person"}
    computer = {"kind": "computer", "level": "facil", "chair": "computer"}
    seats = [
        {"seat": 0, "name": "Ana", "player": {**person, "named": True}},
        {"seat": 1, "name": "Jugador 2", "player": {**person, "named": False}},
        {"seat": 2, "name": "Computadora", "player": {**computer, "named": False}},
        {"seat": 3, "name": None, "player": {**person, "named": False}},
        {"seat": 1, "name": "Jugador 2", "player": person},  # an older server: as stored
    ]
    said = {
        lang: js.ask({"op": "shown_names", "lang": lang, "catalog": catalog(lang), "seats": seats})
        for lang in languages()
    }
    assert said["en"]["shown"] == ["Ana", "Player 2", "Computer", None, "Jugador 2"]
    assert said["es-DO"]["shown"] == ["Ana", "Jugador 2", "Computadora", None, "Jugador 2"]
    # Mis partidas, the invitation: who sits in a chair
    assert said["en"]["sits"][:4] == [
        "Ana",
        "Player 2",
        "the computer (Easy)",
        "someone not here yet",
    ]
