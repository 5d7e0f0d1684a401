"""Reads every message of whole games and checks that no message to a seat ever holds the
opponent's hand cards, deck cards not yet revealed, or the other seat's token.

The true positions come from replaying the stored seed and move log with the engine."""

from __future__ import annotations

from server.engine import Card, Position
from tests.support.seen import cards_in, positions
from tests.support.srvkit import Client, ServerProc, play_two, play_until, presence


def hidden_after(position: Position, seat: int) -> set[Card]:
    return set(position.hands[1 - seat]) | set(position.deck)


def check_seat(client: Client, seat: int, other_token: str, server: ServerProc, room: str) -> int:
    after, played, movers = positions(server, room)

    def hidden_before(seq: int) -> set[Card]:
        hidden = hidden_after(after[seq - 1], seat)
        if movers[seq] != seat:
            hidden.discard(played[seq].card)  # the opponent just showed it
        return hidden

    checked = 0
    assert all(other_token not in raw for raw in client.raw)
    for message in client.log:
        assert "token" not in message or message["type"] != "welcome"
        if "view" in message:
            view = dict(message["view"])
            seq = view["seq"]
            last = view.pop("last_move")
            assert view["seat"] == seat
            assert [Card.parse(c) for c in view["hand"]] == list(after[seq].hands[seat])
            assert not cards_in(view) & hidden_after(after[seq], seat), message
            if last is not None:  # in a first match, seq n is always a move
                assert last["move"] == played[seq].to_json() and last["seat"] == movers[seq]
                assert not cards_in(last) & hidden_before(seq), last
            else:
                assert seq == 0
            checked += 1
        if message["type"] == "event":
            assert not cards_in(message["event"]) & hidden_before(message["seq"]), message
        for entry in message.get("events", []):
            assert not cards_in(entry["event"]) & hidden_before(entry["seq"]), entry
    return checked


async def test_no_secret_reaches_a_seat_against_the_computer(server: ServerProc) -> None:
    room = server.computer_room(name="Ana")
    client, _ = await Client.hello(server, room["token"])
    await play_until(client, lambda m: m["type"] == "event" and m["event"]["kind"] == "match_end")
    assert check_seat(client, 0, "no-other-token", server, room["room"]) > 100


async def test_no_secret_reaches_either_friend(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    await play_two(a, b, lambda m: m["type"] == "event" and m["event"]["kind"] == "new_hand")
    await play_two(a, b, lambda m: m["type"] == "event" and m["seq"] >= 60)
    await b.close()
    await a.recv_until(presence(1, "away"))
    b2, _ = await Client.hello(server, b_room["token"], since=10)
    await a.close()
    await b2.close()
    assert check_seat(a, 0, b_room["token"], server, a_room["room"]) > 50
    assert check_seat(b, 1, a_room["token"], server, a_room["room"]) > 50
    assert check_seat(b2, 1, a_room["token"], server, a_room["room"]) >= 1
