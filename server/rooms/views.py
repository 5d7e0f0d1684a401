"""What anyone is told about a room, built in this one place, as pure functions of a
``Moment`` (the room as it stands, with the time ``now`` passed in, never read here):

- ``seat_view``: THE view of a seat (docs/protocol.md, "View V"); ``watcher_view``: THE
  view of a watcher (what is face up, no hand, no deck); each is its move part
  (``move_view``, ``watcher_move_view``: what a move's frame carries) and its room part
  (``room_view``: who sits where and how they are, which a move leaves alone);
  ``presence``: a seat's presence;
- ``summary``: the public summary; ``my_game``: a seat's entry in Mis partidas;
- ``replay_position``: a step of a finished match's replay (both hands: it is over).

The facts they carry (tallies, options, a hand's counts) are ``facts.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from ..config import Settings
from ..engine import Match, public_view, view_json
from ..engine.scoring import reached
from ..engine.seats import TEAMS, others
from ..protocol.names import COMPUTER_NAME, is_given
from ..store import RoomState, SeatListing
from .facts import CATEGORIES_ES, options, tally


@dataclass(frozen=True, slots=True)
class Moment:
    """A room as it stands at ``now`` (epoch seconds): what every view is built from."""

    state: RoomState
    match: Match
    last_move: dict[str, Any] | None
    watchers: int
    settings: Settings
    now: float


def room_status(state: RoomState, match: Match) -> str:
    """``waiting`` (a friend has not joined), ``playing`` or ``finished``."""
    for seat in state.seats:  # (not ``state.names``: asked several times a move)
        if seat.name is None:
            return "waiting"
    return "finished" if match.finished else "playing"


def wants_rematch(state: RoomState, seat: int) -> bool:
    """A seat the computer plays always wants another match."""
    return state.level_of(seat) is not None or state.seats[seat].rematch


def grace_left(m: Moment, seat: int, *, confirmed: bool = False) -> float:
    """Seconds before the other seat may hand ``seat`` to the computer: the grace period, or
    in a por-turnos room the long one (``turns_grace_seconds``) unless the other player
    asked for the computer in so many words (``confirmed``)."""
    grace = (
        m.settings.turns_grace_seconds
        if m.state.turns and not confirmed
        else m.settings.grace_seconds
    )
    since = m.state.seats[seat].since or 0.0
    return max(0.0, since + grace - m.now)


def presence(m: Moment, seat: int) -> dict[str, Any]:
    """The seat's presence as one state (docs/protocol.md, "Presence P")."""
    state = m.state
    level = state.level_of(seat)
    if level is not None:
        return {"state": "computer", "grace_left": None, "level": level}
    seat_state = state.seats[seat]
    if state.names[seat] is None:
        return {"state": "arriving", "grace_left": None, "level": None}
    if seat_state.presence == "here":
        return {"state": "here", "grace_left": None, "level": None}
    return {
        "state": seat_state.presence,
        "grace_left": round(grace_left(m, seat), 1),
        "level": None,
    }


@dataclass(frozen=True, slots=True)
class Shared:
    """What every seat and watcher shares of one change, built once: its move part, and its
    room part when it is sent (``None``: a move's frame, which carries no room part)."""

    move: dict[str, Any]
    room: dict[str, Any] | None


def common(m: Moment, *, room: bool = True) -> Shared:
    """The part of the view both seats and the watchers share (built once per change);
    ``room=False``: its move part alone (a move's frame)."""
    return Shared(common_move(m), common_room(m) if room else None)


def common_move(m: Moment) -> dict[str, Any]:
    """The shared keys a move may change: every move's frame carries them."""
    position = m.match.position
    state = m.state
    return {
        "scores": list(m.match.scores),  # after the last hand (position: before)
        "hand_sizes": [len(hand) for hand in position.hands],
        "seq": state.seq,
        "hand_number": m.match.hand_number,
        "status": room_status(state, m.match),
        "winner": m.match.winner,
        "last_move": m.last_move,
        "tally": [tally(position.captured[team]) for team in TEAMS],
    }


def common_room(m: Moment) -> dict[str, Any]:
    """The shared keys of the room part: who sits where and how they are, the match's
    number and the room's settings. A move never changes them (or tells the change in a
    message of its own: ``state``, ``presence``, ``watchers``), so a move's frame omits them
    (docs/protocol.md, "View V")."""
    state = m.state
    return {
        "seat_count": state.seat_count,
        "names": list(state.names),
        "players": [player(state, seat) for seat in range(state.seat_count)],
        "match": state.match_no,
        "presence": [presence(m, seat) for seat in range(state.seat_count)],
        "rematch": [wants_rematch(state, seat) for seat in range(state.seat_count)],
        "categories": CATEGORIES_ES,
        "turns": state.turns,
        # por turnos: how long a friend must be away before the computer is offered
        "turns_grace": m.settings.turns_grace_seconds if state.turns else None,
        "watchers": m.watchers,
    }


def player(state: RoomState, seat: int) -> dict[str, Any]:
    """Who plays ``seat`` now: a person, or the computer at its level (its chair's, or a
    takeover's: the friend comes back), and whose chair it is."""
    level = state.level_of(seat)
    return {
        "kind": "person" if level is None else "computer",
        "level": level,
        # whose chair it is: the computer's own, or a person's (the computer may play it for
        # now, and gives it back)
        "chair": "computer" if state.computer_seat(seat) else "person",
        # whether names[seat] is a name its person gave (not a default name nor the
        # computer's, which a client words from its catalog)
        "named": is_given(state.names[seat], seat),
    }


def seat_view(m: Moment, seat: int, shared: Shared | None = None) -> dict[str, Any]:
    """THE view of ``seat``: every message to a seat that carries a view is built here
    (``shared``: ``common(m)`` when already built for this change): its move part and its
    room part."""
    shared = shared if shared is not None and shared.room is not None else common(m)
    view = move_view(m, seat, shared)
    view.update(room_view(m, seat, shared))
    return view


def move_view(m: Moment, seat: int, shared: Shared | None = None) -> dict[str, Any]:
    """The move part of ``seat``'s view: what a move's ``events`` frame carries (the seat's
    view without its room part, ``room_view``)."""
    position = m.match.position
    view = view_json(position, seat)
    del view["opponent_hand_size"]  # the engine's form for two; the wire has hand_sizes
    del view["seat"]  # the room part's
    view.update(shared.move if shared is not None else common_move(m))
    my_turn = view["status"] == "playing" and position.turn == seat and not position.hand_over
    view["options"] = options(position) if my_turn else []
    return view


def room_view(m: Moment, seat: int | None, shared: Shared | None = None) -> dict[str, Any]:
    """THE room part of a view (``seat``: a seat's; None: the watchers'): the keys a move's
    frame omits. Every key of a view is in its move part or here, never both
    (tests/server/test_delta_frame.py)."""
    room = shared.room if shared is not None and shared.room is not None else common_room(m)
    if seat is None:
        return room
    view = {"seat": seat, **room}
    # while a friend's chair is free, everyone seated may pass the table's invitation on
    waiting = room_status(m.state, m.match) == "waiting"
    view["invite"] = m.state.invite if waiting else None
    view["watch_url"] = f"/v/{m.state.watch}" if m.state.watch else None
    return view


def watcher_view(m: Moment, shared: Shared | None = None) -> dict[str, Any]:
    """THE view of a watcher: every message to a watcher that carries a view is built here.
    What is face up (the engine's public view: no hand, no deck) and what both seats share;
    who plays each seat. All watchers get the same view."""
    shared = shared if shared is not None and shared.room is not None else common(m)
    view = watcher_move_view(m, shared)
    view.update(room_view(m, None, shared))
    return view


def watcher_move_view(m: Moment, shared: Shared | None = None) -> dict[str, Any]:
    """The move part of the watchers' view (a move's frame to them)."""
    view = public_view(m.match.position).to_json()
    view.update(shared.move if shared is not None else common_move(m))
    return view


def summary(m: Moment) -> dict[str, Any]:
    """The room's public summary (docs/protocol.md, ``GET /api/rooms/{room}``)."""
    state = m.state
    seats = []
    free = state.free_chairs()
    for i in range(state.seat_count):
        now = presence(m, i)
        seats.append({
            "seat": i,
            "name": state.names[i],
            "named": is_given(state.names[i], i),
            "kind": "computer" if state.computer_seat(i) else "person",
            "level": now["level"],
            "connected": now["state"] in ("here", "computer"),
            "free": i in free,
        })  # fmt: skip
    return {
        "room": state.id,
        "mode": state.mode,
        "seat_count": state.seat_count,
        "turns": state.turns,
        "status": room_status(state, m.match),
        "seats": seats,
        "scores": list(m.match.scores),
        "hand_number": m.match.hand_number,
        "winner": m.match.winner,
        "match": state.match_no,
    }


def waits_for(game: SeatListing, turn: int | None) -> bool:
    """The game waits for this seat: its turn (not played by the computer for now), or
    another player asked for a rematch and this one has not answered."""
    seat = game.seat
    if game.status == "playing":
        return turn == seat and game.takeover[seat] is None
    if game.status == "finished" and game.mode == "friend":
        asked = any(game.rematch[s] for s in others(seat, len(game.names)))
        return asked and not game.rematch[seat]
    return False


def my_game(
    game: SeatListing, now: float, scores: tuple[int, ...], turn: int | None
) -> dict[str, Any]:
    """A seat's entry in Mis partidas, from its stored listing (``scores`` and ``turn``:
    the listing's, or a rebuilt copy's where the listing predates them)."""
    seat = game.seat
    computers = game.computers or tuple(
        game.level if game.mode == "computer" and s != seat else None
        for s in range(len(game.names))
    )
    last = game.last_move_at or game.created_at
    finished = game.match_no - 1 + (game.status == "finished")
    return {
        "room": game.room_id,
        "seat": seat,
        "mode": game.mode,
        "turns": game.turns,
        "status": game.status,
        "match": game.match_no,
        "seat_count": len(game.names),
        "names": list(game.names),
        "players": [
            {
                "name": COMPUTER_NAME if computers[s] is not None else game.names[s],
                "kind": "person" if computers[s] is None else "computer",
                "level": computers[s] or game.takeover[s],
                "named": is_given(game.names[s], s),
            }
            for s in range(len(game.names))
        ],
        "scores": list(scores),
        "winner": reached(cast("tuple[int, int]", scores)) if game.status == "finished" else None,
        "turn": turn,
        "my_turn": game.status == "playing" and turn == seat,
        "waits_for_me": waits_for(game, turn),
        "rematch": list(game.rematch),
        "last_move_ago": max(0, round(now - last)),
        "moved": game.last_move_at is not None,
        "finished_matches": finished,
    }


def replay_position(match: Match) -> dict[str, Any]:
    """Everything on the table at this point of a finished match, both hands included; of
    the deck only its size (what is left of it at the end of a match was never dealt)."""
    p = match.position
    return {
        "hands": [[c.code for c in hand] for hand in p.hands],
        "table": {
            "cards": [c.code for c in p.cards],
            "piles": [pile.to_json() for pile in p.piles],
        },
        "turn": p.turn,
        "dealer": p.dealer,
        "deck_size": len(p.deck),
        "captured_counts": [len(p.captured[team]) for team in TEAMS],
        "limpias": list(p.limpias),
        "last_capturer": p.last_capturer,
        "scores": list(match.scores),
        "hand_number": match.hand_number,
        "tally": [tally(p.captured[team]) for team in TEAMS],
    }
