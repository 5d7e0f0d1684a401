"""An independent determinized searcher, Difícil's second yardstick (issue 19).

Written from the rule book (RULES.md) on the engine's moves only, sharing nothing with
``server/ai``: for each decision, until ``budget`` seconds of CPU time are spent, it deals
the cards its seat has not seen at random into an opponent hand and a deck (a world
consistent with the view: an opponent who owns a pile holds a card of its value), plays
each candidate move there and the rest of the hand out greedily for both seats (capture
the most cards, else trail the lowest card, else the first legal move), and scores the
end: the match won or lost, else the hand's points difference. The move with the best
mean over the worlds is chosen. A clock, not a count: it is a benchmark opponent, not a
level of the game.

    .venv/bin/python benchmarks/selfplay.py --against searcher --matches 100
"""

from __future__ import annotations

import random
import time

from server.engine import Card, Move, Position, View, legal_moves, play_step

BUDGET = 0.2  # CPU seconds per decision
MAX_CANDIDATES = 12
WIN = 100.0  # a match won, against a hand's points (at most 21 or so)


class Searcher:
    name = "searcher"

    def __init__(self, budget: float = BUDGET) -> None:
        self.budget = budget

    def choose(self, view: View, moves: list[Move], rng: random.Random) -> Move:
        if len(moves) == 1:
            return moves[0]
        candidates = sorted(moves, key=_greedy_key, reverse=True)[:MAX_CANDIDATES]
        totals = [0.0] * len(candidates)
        unseen = sorted(view.unseen())
        deadline = time.process_time() + self.budget
        worlds = 0
        while worlds == 0 or time.process_time() < deadline:
            world = _world(view, unseen, rng)
            for i, move in enumerate(candidates):
                totals[i] += _rollout(world, move, view.seat)
            worlds += 1
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]


def _greedy_key(move: Move) -> tuple[int, int]:
    if move.kind == "capture":
        return 2, len(move.take)
    if move.kind == "build":
        return 1, len(move.take)
    return 0, -move.card.value


def _greedy(position: Position) -> Move:
    moves = legal_moves(position)
    captures = [m for m in moves if m.kind == "capture"]
    if captures:
        return max(captures, key=lambda m: (len(m.take), m.card.value))
    trails = [m for m in moves if m.kind == "trail"]
    if trails:
        return min(trails, key=lambda m: m.card.value)
    return moves[0]


def _world(view: View, unseen: list[Card], rng: random.Random) -> Position:
    size = min(view.opponent_hand_size, len(unseen))
    needed = {p.value for p in view.piles if p.owner != view.seat}
    for _ in range(50):
        cards = unseen[:]
        rng.shuffle(cards)
        hand = cards[:size]
        if all(any(c.capture_value == v for c in hand) for v in needed):
            break
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[view.seat] = view.hand
    hands[1 - view.seat] = tuple(hand)
    return Position(
        hands=(hands[0], hands[1]),
        cards=view.cards,
        piles=view.piles,
        turn=view.turn,
        dealer=view.dealer,
        deck=tuple(cards[size : size + view.deck_size]),
        captured=view.captured,
        limpias=view.limpias,
        last_capturer=view.last_capturer,
        scores=view.scores,
    )


def _rollout(world: Position, move: Move, seat: int) -> float:
    step = play_step(world, move)
    while step.result is None:
        position = step.position
        if not legal_moves(position):
            return 0.0
        step = play_step(position, _greedy(position))
    result = step.result
    if result.winner is not None:
        return WIN if result.winner == seat else -WIN
    return float(sum(result.points[seat]) - sum(result.points[1 - seat]))
