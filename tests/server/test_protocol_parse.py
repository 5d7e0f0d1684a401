"""The protocol in-process (docs/protocol.md): ``parse_client`` on every kind of frame,
good and bad, with the error code each bad one gets and which move id it carries; and
``encode``, the exact text of every server message.

The server tests drive the same code through a real server in a subprocess; these run it
in the test process, so that mutation testing (scripts/mutate.sh) reaches it too.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from server.engine import Move
from server.protocol import (
    MAX_ID,
    MAX_SEQ,
    MAX_TOKEN,
    MESSAGES_ES,
    Ack,
    ApiError,
    Error,
    Events,
    Hello,
    MoveMsg,
    Ping,
    Pong,
    Presence,
    ProtocolError,
    RematchMsg,
    SeatMoved,
    ServerMessage,
    State,
    TakeoverMsg,
    Welcome,
    dumps,
    encode,
    message_id,
    parse_client,
    raw,
)

MOVE = {"kind": "capture", "card": "9d", "take": ["9s"]}


def frame(**fields: Any) -> str:
    return json.dumps(fields)


def error_of(text: str | bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_client(text)
    return caught.value


def test_the_limits_are_those_of_the_protocol_document() -> None:
    assert MAX_ID == 64 and MAX_TOKEN == 128 and MAX_SEQ == 2**53


# -- frames that are not JSON objects -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hola",
        "{",
        '{"type": "ping"',
        "[1, 2]",
        "42",
        '"hello"',
        "null",
        "true",
        b"\xff\xfe",
        b'{"type": "ping"}\xff',
        '{"type": "ping", "x": "\\ud800"}',
    ],
)
def test_not_a_json_object_is_bad_json(text: str | bytes) -> None:
    error = error_of(text)
    assert error.code == "bad_json" and error.id is None
    assert error.message == MESSAGES_ES["bad_json"]


@pytest.mark.parametrize("depth", [1025, 10_000, 100_000])
def test_deeply_nested_json_is_bad_json_not_a_crash(depth: int) -> None:
    assert error_of("[" * depth + "]" * depth).code == "bad_json"
    nested = '{"type": "move", "id": "m1", "seq": 1, "move": ' + "[" * depth + "]" * depth + "}"
    assert error_of(nested).code == "bad_json"


def test_bytes_are_read_as_utf8() -> None:
    assert parse_client(b'{"type": "ping"}') == Ping()
    error = error_of('{"type": "takeover", "level": "fácil"}'.encode())
    assert error.code == "bad_level"  # read as text, then not a level


def test_json_nested_not_too_deep_is_read() -> None:
    nested = "[" * 500 + "]" * 500
    assert parse_client('{"type": "ping", "x": ' + nested + "}") == Ping()


@pytest.mark.parametrize(
    "fields",
    [{}, {"type": "dance"}, {"type": 5}, {"type": None}, {"type": ["ping"]}, {"kind": "ping"}],
)
def test_unknown_types(fields: dict[str, Any]) -> None:
    error = error_of(json.dumps(fields))
    assert error.code == "unknown_type" and error.id is None


# -- hello ------------------------------------------------------------------------------


def test_hello_reads_token_and_since() -> None:
    assert parse_client(frame(type="hello", token="t0k")) == Hello("t0k", None)
    assert parse_client(frame(type="hello", token="t0k", since=None)) == Hello("t0k", None)
    assert parse_client(frame(type="hello", token="t0k", since=0)) == Hello("t0k", 0)
    assert parse_client(frame(type="hello", token="t0k", since=41)) == Hello("t0k", 41)
    top = 2**53 - 1
    assert parse_client(frame(type="hello", token="t", since=top)) == Hello("t", top)
    assert parse_client(frame(type="hello", token="x" * MAX_TOKEN)) == Hello("x" * 128, None)


@pytest.mark.parametrize(
    "token", [None, "", "x" * 129, 5, ["t"], {"t": 1}, True, "ñandú", "t k", "t\n", "t\u0000"]
)
def test_hello_needs_a_token_of_1_to_128_characters(token: Any) -> None:
    fields: dict[str, Any] = {"type": "hello", "since": None}
    if token is not None:
        fields["token"] = token
    error = error_of(json.dumps(fields))
    assert error.code == "missing_field" and error.id is None
    assert error.message == "Falta el dato «token» o no es válido."


@pytest.mark.parametrize("since", [-1, 2**53, 2**64, True, False, 1.5, 3.0, "41", [41], {}])
def test_hello_since_is_null_or_a_seq(since: Any) -> None:
    error = error_of(frame(type="hello", token="t0k", since=since))
    assert error.code == "missing_field" and error.id is None
    assert error.message == "Falta el dato «since» o no es válido."


# -- move -------------------------------------------------------------------------------


def test_move_reads_the_move_seq_and_id() -> None:
    got = parse_client(frame(type="move", move=MOVE, seq=41, id="c-17"))
    assert got == MoveMsg(Move.capture("9d", "9s"), 41, "c-17")
    build = {"kind": "build", "card": "3c", "take": ["5d", "p1"], "value": 8}
    assert parse_client(frame(type="move", move=build, seq=0, id="x" * MAX_ID)) == MoveMsg(
        Move.build("3c", "5d", "p1", value=8), 0, "x" * 64
    )
    trail = parse_client(
        frame(type="move", move={"kind": "trail", "card": "Ah"}, seq=2**53 - 1, id="a")
    )
    assert trail == MoveMsg(Move.trail("Ah"), 2**53 - 1, "a")


@pytest.mark.parametrize("move_id", [None, "", "x" * 65, 17, ["c-17"], True, "jugada ñ", "c 17"])
def test_a_move_without_a_good_id_is_answered_without_one(move_id: Any) -> None:
    fields: dict[str, Any] = {"type": "move", "move": MOVE, "seq": 1}
    if move_id is not None:
        fields["id"] = move_id
    error = error_of(json.dumps(fields))
    assert error.code == "missing_field" and error.id is None
    assert error.message == "Falta el dato «id» o no es válido."


def test_a_move_without_a_move_carries_its_id() -> None:
    error = error_of(frame(type="move", seq=1, id="c-1"))
    assert error.code == "missing_field" and error.id == "c-1"
    assert error.message == "Falta el dato «move» o no es válido."
    assert json.loads(error.to_text()) == {
        "type": "error",
        "code": "missing_field",
        "message": "Falta el dato «move» o no es válido.",
        "id": "c-1",
    }


@pytest.mark.parametrize("seq", [None, -1, 2**53, 2**63, True, False, 1.0, 2.5, "1", [1]])
def test_a_move_seq_is_a_whole_number_below_2_to_the_53(seq: Any) -> None:
    fields: dict[str, Any] = {"type": "move", "move": MOVE, "id": "c-2"}
    if seq is not None:
        fields["seq"] = seq
    error = error_of(json.dumps(fields))
    assert error.code == "missing_field" and error.id == "c-2"
    assert error.message == "Falta el dato «seq» o no es válido."


@pytest.mark.parametrize(
    "move",
    [
        None,
        5,
        "capture 9d",
        [],
        ["capture", "9d"],
        {"kind": "fly", "card": "9d"},
        {"card": "9d"},
        {"kind": ["capture"], "card": "9d"},
        {"kind": "capture", "card": "1d", "take": ["9s"]},
        {"kind": "capture", "card": {"rank": 9}, "take": ["9s"]},
        {"kind": "capture", "card": "9d", "take": "9s"},  # a string is not a list of items
        {"kind": "capture", "card": "9d", "take": ["9s", "9s"]},
        {"kind": "capture", "card": "9d", "take": [9]},
        {"kind": "capture", "card": "9d", "take": [""]},
        {"kind": "capture", "card": "9d", "take": ["p" + "1" * 16]},  # 17 characters
        {"kind": "capture", "card": "9d", "take": {"9s": True}},
        {"kind": "build", "card": "3c", "take": ["5d"]},
        {"kind": "build", "card": "3c", "take": ["5d"], "value": "8"},
        {"kind": "build", "card": "3c", "take": ["5d"], "value": True},
        {"kind": "build", "card": "3c", "take": ["5d"], "value": 8.0},
        {"kind": "capture", "card": "9d", "take": ["9s"], "value": 9},
        {"kind": "trail", "card": "9d", "take": ["9s"]},
        {"kind": "trail", "card": "9d", "value": 0},
    ],
)
def test_a_move_that_is_not_a_move_is_invalid_and_carries_its_id(move: Any) -> None:
    error = error_of(frame(type="move", move=move, seq=3, id="c-3"))
    assert error.code == "invalid_move" and error.id == "c-3"
    assert error.message == MESSAGES_ES["invalid_move"]


def test_table_item_names_are_1_to_16_characters() -> None:
    longest = "p" + "1" * 15
    got = parse_client(
        frame(
            type="move",
            seq=1,
            id="m",
            move={"kind": "capture", "card": "9d", "take": [longest, "9s"]},
        )
    )
    assert isinstance(got, MoveMsg) and got.move.take == frozenset({longest, "9s"})


def test_move_reading_accepts_a_trail_without_take_and_an_empty_one() -> None:
    for move in (
        {"kind": "trail", "card": "9d"},
        {"kind": "trail", "card": "9d", "take": []},
        {"kind": "trail", "card": "9d", "value": None},
    ):
        got = parse_client(frame(type="move", move=move, seq=1, id="m"))
        assert got == MoveMsg(Move.trail("9d"), 1, "m")


# -- takeover, rematch, ping ------------------------------------------------------------


def test_takeover_names_a_level() -> None:
    assert parse_client(frame(type="takeover", level="facil")) == TakeoverMsg("facil")
    error = error_of(frame(type="takeover"))
    assert error.code == "missing_field" and error.id is None
    assert error.message == "Falta el dato «level» o no es válido."
    for level in ("imposible", "", "FACIL"):
        error = error_of(frame(type="takeover", level=level))
        assert error.code == "bad_level" and error.message == MESSAGES_ES["bad_level"]


@pytest.mark.parametrize("level", [["facil"], {"facil": 1}, 1, True])
def test_takeover_with_a_level_that_is_not_text_is_an_error_not_a_crash(level: Any) -> None:
    error = error_of(frame(type="takeover", level=level))  # lists and objects: unhashable
    assert error.code == "bad_level" and error.id is None


def test_rematch_and_ping_need_nothing_else() -> None:
    assert parse_client(frame(type="rematch")) == RematchMsg()
    assert parse_client(frame(type="ping")) == Ping()
    assert parse_client(frame(type="ping", extra=[1, 2])) == Ping()


# -- what an error looks like -----------------------------------------------------------


def test_an_error_carries_code_message_and_only_the_fields_it_has() -> None:
    error = ProtocolError("stale")
    assert str(error) == "stale" and error.id is None and error.reason is None
    assert error.to_message() == Error("stale", "La mesa cambió. Mira la jugada nueva.", None, None)
    assert error.to_text() == (
        '{"type":"error","code":"stale","message":"La mesa cambió. Mira la jugada nueva."}'
    )
    full = ProtocolError("illegal", "No se puede.", id="c-9", reason="trail_pairs")
    assert json.loads(full.to_text()) == {
        "type": "error",
        "code": "illegal",
        "message": "No se puede.",
        "id": "c-9",
        "reason": "trail_pairs",
    }
    unknown = ProtocolError("no_such_code")
    assert unknown.message == MESSAGES_ES["server_error"] == "Algo salió mal. Intenta otra vez."


@pytest.mark.parametrize(
    ("code", "fatal"),
    [
        ("bad_token", True),
        ("bad_origin", True),
        ("watch_unknown", True),
        ("watchers_full", True),
        ("rate_limited", False),
        ("reconnecting", False),
        ("stale", False),
        ("server_error", False),
    ],
)
def test_an_error_that_ends_the_seat_for_this_device_says_it_is_fatal(
    code: str, fatal: bool
) -> None:
    data = json.loads(ProtocolError(code).to_text())
    assert data.get("fatal", False) is fatal
    assert ("fatal" in data) is fatal  # absent, not false, when the seat stays usable


def test_api_errors_and_dumps() -> None:
    error = ApiError("room_unknown")
    assert error.status is None and error.code == "room_unknown"
    assert error.body() == {
        "error": {"code": "room_unknown", "message": "No encontramos esa mesa."}
    }
    limited = ApiError("rate_limited", "Espera.", status=429)
    assert limited.status == 429 and limited.body()["error"]["message"] == "Espera."
    text = dumps({"type": "ping", "texto": "montón ñ"})
    assert text == '{"type":"ping","texto":"montón ñ"}'


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"type": "move", "id": "c-4", "seq": "x"}', "c-4"),
        ('{"type": "move", "id": "c 4"}', None),
        ('{"type": "move", "id": ""}', None),
        ('{"type": "move"}', None),
        ('{"id": "' + "x" * 64 + '"}', "x" * 64),
        ('{"id": "' + "x" * 65 + '"}', None),
        ("[1]", None),
        ("{", None),
        (b"\xff", None),
    ],
)
def test_message_id_of_a_frame_refused_before_it_is_read(
    text: str | bytes, found: str | None
) -> None:
    assert message_id(text) == found


# -- server → client: every message as the exact text a client reads ----------------------


VIEW = {"seat": 0, "hand": ["9s"]}


@pytest.mark.parametrize(
    ("message", "text"),
    [
        (
            Welcome("r1", 0, 43, VIEW, [(42, raw({"kind": "move"})), (43, raw({"kind": "deal"}))]),
            '{"type":"welcome","room":"r1","seat":0,"seq":43,"view":{"seat":0,"hand":["9s"]},'
            '"events":[{"seq":42,"event":{"kind":"move"}},{"seq":43,"event":{"kind":"deal"}}]}',
        ),
        (
            Welcome("r2", 1, 0, {}, []),
            '{"type":"welcome","room":"r2","seat":1,"seq":0,"view":{},"events":[]}',
        ),
        (
            Events(44, [raw({"kind": "move"})], raw(VIEW)),
            '{"type":"events","seq":44,"events":[{"kind":"move"}],"view":{"seat":0,"hand":["9s"]}}',
        ),
        (
            Events(44, [], VIEW, "c-17"),
            '{"type":"events","seq":44,"events":[],"view":{"seat":0,"hand":["9s"]},"id":"c-17"}',
        ),
        (Ack("c-17", 44), '{"type":"ack","id":"c-17","seq":44}'),
        (State(43, VIEW), '{"type":"state","seq":43,"view":{"seat":0,"hand":["9s"]}}'),
        (
            Presence(1, {"state": "away", "seconds": 30}),
            '{"type":"presence","seat":1,"presence":{"state":"away","seconds":30}}',
        ),
        (
            Presence(0, {"state": "here"}),
            '{"type":"presence","seat":0,"presence":{"state":"here"}}',
        ),
        (
            Error("stale", "La mesa cambió."),
            '{"type":"error","code":"stale","message":"La mesa cambió."}',
        ),
        (
            Error("illegal", "No.", "c-1", "trail_pairs"),
            '{"type":"error","code":"illegal","message":"No.","id":"c-1","reason":"trail_pairs"}',
        ),
        (
            Error("illegal", "No.", None, "trail_pairs"),
            '{"type":"error","code":"illegal","message":"No.","reason":"trail_pairs"}',
        ),
        (SeatMoved(), '{"type":"seat_moved","rejoined":false}'),
        (SeatMoved(rejoined=True), '{"type":"seat_moved","rejoined":true}'),
        (Pong(), '{"type":"pong"}'),
    ],
)
def test_encode_writes_each_server_message(message: ServerMessage, text: str) -> None:
    assert encode(message) == text


def test_raw_is_encoded_once_and_spliced_as_is() -> None:
    fragment = raw({"b": [1, 2], "a": "ñ"})
    assert isinstance(fragment, orjson.Fragment)
    assert dumps({"x": fragment}) == '{"x":{"b":[1,2],"a":"ñ"}}'
