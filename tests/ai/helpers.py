"""Positions and seeded games for the computer-player tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache

from server.ai import LEVELS, Player, choose_for_position
from server.engine import DECK, Card, Match, Move, Pile, Position, legal_moves, view_for
from server.engine.seats import others, team_of


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in text.split())


def position(
    hand: str,
    table: str,
    opponent: str = "",
    *,
    piles: tuple[Pile, ...] = (),
    deck_size: int = 8,
    scores: tuple[int, int] = (0, 0),
    dealer: int = 1,
) -> Position:
    """Seat 0 to move with ``hand``; ``table`` loose; the opponent (seat 1) holds ``opponent``;
    ``deck_size`` of the other cards make the deck (in DECK order) and the rest were captured
    by seat 1 earlier in the hand, so every card is somewhere."""
    mine, loose, theirs = cards(hand), cards(table), cards(opponent)
    used = set(mine) | set(loose) | set(theirs)
    for pile in piles:
        used.update(pile.cards)
    rest = [c for c in DECK if c not in used]
    return Position(
        hands=(mine, theirs),
        cards=loose,
        piles=piles,
        turn=0,
        dealer=dealer,
        deck=tuple(rest[:deck_size]),
        captured=((), tuple(rest[deck_size:])),
        last_capturer=1 if rest[deck_size:] else None,
        scores=scores,
    )


def choose(level: str, pos: Position, seed: int = 0) -> Move:
    view = view_for(pos, pos.turn)
    moves = legal_moves(view.as_position())
    move = LEVELS[level].choose(view, moves, random.Random(seed))
    assert move in moves
    return move


def game_positions(
    seed: int,
    players: tuple[Player, Player],
    limit: int = 10_000,
) -> Iterator[tuple[Position, list[Move], Move]]:
    """Plays a seeded match between ``players`` (seat 0, seat 1) and yields, before each
    move, the position, the legal moves and the move chosen."""
    match = Match.new(f"ai-test-{seed}")
    rngs = (random.Random(f"{seed}:0"), random.Random(f"{seed}:1"))
    for _ in range(limit):
        if match.finished:
            return
        pos = match.position
        view = view_for(pos, pos.turn)
        moves = legal_moves(view.as_position())
        move = players[pos.turn].choose(view, moves, rngs[pos.turn])
        yield pos, moves, move
        match, _ = match.play(move)


def shuffle_hidden(pos: Position, seed: int) -> Position:
    """The same position for the seat to move with the opponent's hand and the deck dealt
    differently: the cards the seat cannot see are shuffled together and redistributed."""
    other = 1 - pos.turn
    hidden = list(pos.hands[other]) + list(pos.deck)
    random.Random(seed).shuffle(hidden)
    size = len(pos.hands[other])
    hands = list(pos.hands)
    hands[other] = tuple(hidden[:size])
    return pos.replace(hands=(hands[0], hands[1]), deck=tuple(hidden[size:]))


@cache
def four_player_positions(count: int = 60) -> tuple[Position, ...]:
    """Positions with a choice from seeded four-player matches, Normal's team against
    Fácil's, every stage of a hand (the last deal included)."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        match = Match.new(f"four-ai-{seed}", 4)
        plays = 0
        while not match.finished and plays < 150:
            position = match.position
            level = ("normal", "facil")[team_of(position.turn) ^ seed % 2]
            if plays % 4 == seed % 4 and len(legal_moves(position)) > 1:
                found.append(position)
            match, _ = match.play(choose_for_position(level, position, f"{seed}:{plays}"))
            plays += 1
        seed += 1
    return tuple(found[:count])


def shuffle_hidden_four(position: Position, seed: int) -> Position:
    """The same position for the seat to move, the three other hands and the deck dealt
    otherwise (each hand keeps its size)."""
    seats = others(position.turn, 4)
    hidden = [c for s in seats for c in position.hands[s]] + list(position.deck)
    random.Random(seed).shuffle(hidden)
    hands = list(position.hands)
    for s in seats:
        size = len(hands[s])
        hands[s], hidden = tuple(hidden[:size]), hidden[size:]
    return position.replace(hands=tuple(hands), deck=tuple(hidden))
