"""Normal (RULES.md 7): a one-ply player with an expectation over the opponent's replies.

For every candidate move it looks at the table the move leaves and asks, over a few
opponent hands drawn from the cards it has not seen (seeded by ``rng``): what is the best
capture the opponent can make there (cards, spades, the 10♦, the 2♠, aces, a limpia), and
what can this seat capture afterwards with the cards it keeps (its piles, its pairs); and
whether the opponent could rather raise one of this seat's simple piles to take it later.
Near the end of a hand it also counts who will be the last to capture and get the table.
Cards are weighed by what they are worth in the hand's scoring (RULES.md 6): the 10♦,
the 2♠, aces, spades and cards while "más picas" and "más cartas" are still open, limpias.

It only ever sees the seat's ``View``: its own hand, the table, the captured cards, the
number of cards in the opponent's hand and in the deck. When the deck is empty the unseen
cards are exactly the opponent's hand, and the expectation becomes exact.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..engine import DECK, Card, Move, View
from ..engine.cards import TEN_OF_DIAMONDS, TWO_OF_SPADES
from ..engine.hints import best_packing
from ..engine.moves import MAX_VALUE, loose_sums
from ..engine.scoring import HALF_DECK, LATE_SCORE
from ..engine.seats import TEAMS, next_seat, other_team, team_of, team_seats

SPADES_NEEDED = 7
PACKING_BUDGET = 60  # search steps per capture on a crowded table (see _best_packing)

# A table for the simulation: loose cards, and piles as (value, owner, cards, double).
SimPile = tuple[int, int, tuple[Card, ...], bool]
SimTable = tuple[tuple[Card, ...], tuple[SimPile, ...]]
# A capture found by the simulation: (weight of the items taken, table after, limpia).
Capture = tuple[float, SimTable, bool]


@dataclass(frozen=True, slots=True)
class Weights:
    """What capturing things is worth, in match points, for each seat."""

    card: tuple[dict[str, float], dict[str, float]]  # by card code
    limpia: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Tuning:
    samples: int = 24  # opponent hands drawn per decision
    card_weight: float = 0.2  # one card toward "más cartas"
    spade_weight: float = 0.1  # one spade toward "más picas"
    follow: float = 0.8  # how much this seat's next capture counts
    end_weight: float = 1.0  # the end-of-hand sweep, when it is within sight
    steal_weight: float = 0.8  # a pile the opponent raises, to take it a turn later
    max_captures_per_card: int = 2
    max_candidates: int = 24
    min_builds: int = 6  # builds looked at even when captures and trails fill the list
    # four players: this seat's own next capture comes three plays later, not two
    follow_four: float = 0.5


class Normal:
    name = "normal"

    def __init__(self, tuning: Tuning | None = None) -> None:
        self.tuning = tuning or Tuning()

    def choose(self, view: View, legal_moves: list[Move], rng: random.Random) -> Move:
        if len(legal_moves) == 1:
            return legal_moves[0]
        return _Decision(view, self.tuning, rng).best(legal_moves)

    def ranked(
        self, view: View, legal_moves: list[Move], rng: random.Random
    ) -> list[tuple[Move, float]]:
        """Normal's candidate moves with its expected value of each, best first (ties in
        the legal order)."""
        scored = _Decision(view, self.tuning, rng).scored(legal_moves)
        order = sorted(range(len(scored)), key=lambda i: (-round(scored[i][1], 9), i))
        return [scored[i] for i in order]


def _weights(view: View, tuning: Tuning) -> Weights:
    """Per seat: a card's weight is its share of the categories still open (más cartas and
    más picas until someone has clinched them), plus the points it carries (10♦ 2, 2♠ 1,
    each ace 1; the last two not for a seat that started the hand with 18 or more)."""
    counts = tuple(len(cards) for cards in view.captured)
    spades = tuple(sum(1 for c in cards if c.suit == "s") for cards in view.captured)
    card_w = 0.0 if max(counts) > HALF_DECK else tuning.card_weight
    spade_w = 0.0 if max(spades) >= SPADES_NEEDED else tuning.spade_weight
    late = (view.scores[0] >= LATE_SCORE, view.scores[1] >= LATE_SCORE)
    return _weight_tables(card_w, spade_w, late)


@lru_cache(maxsize=64)
def _weight_tables(card_w: float, spade_w: float, late: tuple[bool, bool]) -> Weights:
    """The weights of ``_weights`` for what they depend on (a handful of cases, built once
    each: read only)."""
    tables: list[dict[str, float]] = []
    limpias: list[float] = []
    for p in TEAMS:  # per team (with two players: per seat)
        table: dict[str, float] = {}
        for card in DECK:
            w = card_w
            if card.suit == "s":
                w += spade_w
            if card == TEN_OF_DIAMONDS:
                w += 2.0
            if not late[p]:
                if card == TWO_OF_SPADES:
                    w += 1.0
                if card.rank == 1:
                    w += 1.0
            table[card.code] = w
        tables.append(table)
        # a late player's limpias only cancel the opponent's
        limpias.append(1.0 if not late[p] else (0.5 if not late[other_team(p)] else 0.0))
    return Weights((tables[0], tables[1]), (limpias[0], limpias[1]))


class _TableInfo:
    """A simulated table with its sums indexed, and the best captures on it (cached)."""

    __slots__ = ("loose", "piles", "sums", "cache")

    def __init__(self, table: SimTable) -> None:
        self.loose, self.piles = table
        self.sums: Sums | None = None
        self.cache: dict[tuple[int, int], Capture | None] = {}

    def best_capture(
        self, rank: int, weights: dict[str, float], limpia: float, player: int
    ) -> Capture | None:
        """The most valuable capture (for ``player``) with a card of ``rank``, without the
        played card's own weight; None if that rank takes nothing."""
        key = (rank, player)
        if key in self.cache:
            return self.cache[key]
        found = self._best_capture(rank, weights, limpia)
        self.cache[key] = found
        return found

    def _best_capture(self, rank: int, weights: dict[str, float], limpia: float) -> Capture | None:
        loose, piles = self.loose, self.piles
        value = MAX_VALUE if rank == 1 else rank
        taken_mask = 0
        gain = 0.0
        for i, card in enumerate(loose):
            if card.rank == rank:
                taken_mask |= 1 << i
                gain += weights[card.code]
        kept_piles: list[SimPile] = []
        took_pile = False
        for pile in piles:
            if pile[0] == value:
                took_pile = True
                for card in pile[2]:
                    gain += weights[card.code]
            else:
                kept_piles.append(pile)
        if self.sums is None:
            self.sums = _loose_sums(loose)
        groups: Sequence[int] = self.sums[value]
        if rank == 1 and taken_mask:
            groups = [g for g in groups if not g & taken_mask]
        if groups:
            extra_mask, extra_gain = _best_packing(groups, [weights[c.code] for c in loose])
            taken_mask |= extra_mask
            gain += extra_gain
        if not taken_mask and not took_pile:
            return None
        rest = tuple(c for i, c in enumerate(loose) if not taken_mask >> i & 1)
        cleared = not rest and not kept_piles
        if cleared:
            gain += limpia
        return gain, (rest, tuple(kept_piles)), cleared


# the masks of loose cards by their sum, as tuples: a cached table of ints only, which the
# garbage collector stops tracking (as lists, the 32,768 tables of the cache below were
# half a million lists that every full collection walked: 0.2-0.4 s of CPU each, the
# slowest of Difícil's decisions, issue 26)
Sums = tuple[tuple[int, ...], ...]


@lru_cache(maxsize=32768)
def _loose_sums(loose: tuple[Card, ...]) -> Sums:
    """The masks of 2+ of ``loose`` by their sum (the engine's ``Table.multi``), cached:
    rollouts meet the same tables again and again. Read only. The engine's ``loose_sums``
    alone, not a whole ``Table`` (its other indexes are not read)."""
    return tuple(tuple(masks) for masks in loose_sums(loose)[1])


def _best_packing(groups: Sequence[int], weights: list[float]) -> tuple[int, float]:
    """The most valuable union of disjoint groups (masks of loose cards), with its weight:
    the engine's search for *Llevarte*, with a small step budget so a decision never stalls
    on a table far more crowded than games make."""
    if len(groups) == 1:
        return groups[0], sum(w for i, w in enumerate(weights) if groups[0] >> i & 1)
    weight, mask = best_packing(groups, (1 << len(weights)) - 1, weights, PACKING_BUDGET)
    return mask, weight


class _Decision:
    def __init__(self, view: View, tuning: Tuning, rng: random.Random) -> None:
        self.view = view
        self.tuning = tuning
        self.rng = rng
        # weights, captures and the sweep are the team's; piles and turns the seat's. With
        # two players seat and team are the same number.
        self.seat = view.seat
        self.me = team_of(view.seat)
        self.opp = other_team(self.me)
        self.next = next_seat(view.seat, view.seat_count)  # who replies: an opponent
        self.four = view.seat_count > 2
        self.mates = team_seats(self.me, view.seat_count)  # this seat and its partner
        self.weights = _weights(view, tuning)
        self.w_me = self.weights.card[self.me]
        self.w_opp = self.weights.card[self.opp]
        self.l_me = self.weights.limpia[self.me]
        self.l_opp = self.weights.limpia[self.opp]
        # the unseen cards, least valuable to the opponent first (the one it would trail)
        self.unseen = sorted(view.unseen(), key=lambda c: (self.w_opp[c.code], c.value, c.suit))
        self.pile_index = {pile.id: j for j, pile in enumerate(view.piles)}
        self.table: SimTable = (
            view.cards,
            tuple((p.value, p.owner, p.cards, p.double) for p in view.piles),
        )

    # -- the opponent's possible hands ------------------------------------------------

    def opponent_hands(self) -> tuple[list[tuple[int, ...]], bool]:
        """Hands the opponent may hold for the reply, as sorted indices into ``unseen``, and
        whether the next deal comes first (the reply is then made from a fresh hand and this
        seat's next cards are unknown)."""
        view = self.view
        size = view.opponent_hand_size
        fresh = False
        if size == 0:
            if view.deck_size == 0:
                return [], False
            size, fresh = 4, True
        count = len(self.unseen)
        size = min(size, count)
        if not fresh and view.deck_size == 0 and count == size:
            # the unseen cards are exactly the opponent's hand
            return [tuple(range(count))], False
        needed = sorted({pile[0] for pile in self.table[1] if pile[1] == self.next})
        takers_of = {
            v: [i for i, c in enumerate(self.unseen) if c.capture_value == v] for v in needed
        }
        indices = range(count)
        rng = self.rng
        hands: list[tuple[int, ...]] = []
        for _ in range(self.tuning.samples):
            hand = rng.sample(indices, size)
            if not fresh:
                # a pile owner always holds the card that takes the pile (RULES.md 4.4)
                for value in needed:
                    takers = takers_of[value]
                    if takers and not any(i in takers for i in hand):
                        hand[rng.randrange(size)] = rng.choice(takers)
            hands.append(tuple(sorted(hand)))
        return hands, fresh

    # -- candidates ---------------------------------------------------------------------

    def apply(self, move: Move) -> tuple[float, SimTable, bool]:
        """The table after one of this seat's moves, the weight captured and whether it is
        a capture."""
        loose, piles = self.table
        take = move.take
        if move.kind == "trail":
            return 0.0, ((*loose, move.card), piles), False
        taken_loose = [c for c in loose if c.code in take]
        rest = tuple(c for c in loose if c.code not in take)
        taken_piles = [piles[self.pile_index[i]] for i in take if i in self.pile_index]
        kept = tuple(p for p in piles if not any(p is t for t in taken_piles))
        used = list(taken_loose)
        for pile in taken_piles:
            used.extend(pile[2])
        if move.kind == "capture":
            gain = self.w_me[move.card.code] + sum(self.w_me[c.code] for c in used)
            if not rest and not kept:
                gain += self.l_me
            return gain, (rest, kept), True
        value = move.value or 0
        simple = (
            not taken_piles and sum(c.value for c in taken_loose) + move.card.value == value
        ) or (
            not taken_loose
            and len(taken_piles) == 1
            and taken_piles[0][1] != self.seat
            and not taken_piles[0][3]
            and taken_piles[0][0] + move.card.value == value
        )
        new_pile: SimPile = (value, self.seat, (*used, move.card), not simple)
        return 0.0, (rest, (*kept, new_pile)), False

    def candidates(self, moves: list[Move]) -> list[tuple[Move, float, SimTable, bool]]:
        """The moves worth a closer look: for each card its most valuable captures, the
        builds that gather the most, and every trail. A quick pass over the take-sets only:
        a crowded table can have thousands of legal moves."""
        loose, piles = self.table
        w_me = self.w_me
        item_weight = {c.code: w_me[c.code] for c in loose}
        for pile in self.view.piles:
            item_weight[pile.id] = sum(w_me[c.code] for c in pile.cards)
        all_items = len(item_weight)
        captures: dict[str, list[tuple[float, int]]] = {}
        builds: list[tuple[float, int]] = []
        chosen: set[int] = set()
        for index, move in enumerate(moves):
            if move.kind == "trail":
                chosen.add(index)
                continue
            weight = sum(item_weight[item] for item in move.take)
            if move.kind == "capture":
                if len(move.take) == all_items:
                    weight += self.l_me
                captures.setdefault(move.card.code, []).append((-weight, index))
            else:
                builds.append((-weight, index))
        for entries in captures.values():
            entries.sort()  # ties keep the legal order
            chosen.update(index for _, index in entries[: self.tuning.max_captures_per_card])
        room = max(self.tuning.max_candidates - len(chosen), self.tuning.min_builds)
        builds.sort()
        chosen.update(index for _, index in builds[:room])
        return [(moves[i], *self.apply(moves[i])) for i in sorted(chosen)]

    # -- evaluation ---------------------------------------------------------------------

    def best(self, moves: list[Move]) -> Move:
        best_score = float("-inf")
        best_moves: list[Move] = []
        for move, score in self.scored(moves):
            if score > best_score + 1e-9:
                best_score, best_moves = score, [move]
            elif score > best_score - 1e-9:
                best_moves.append(move)
        return best_moves[0] if len(best_moves) == 1 else self.rng.choice(best_moves)

    def scored(self, moves: list[Move]) -> list[tuple[Move, float]]:
        """The candidate moves (see ``candidates``) with their expected values."""
        hands, fresh = self.opponent_hands()
        my_hand = self.view.hand
        scored: list[tuple[Move, float]] = []
        for move, gain, table, captured in self.candidates(moves):
            rest = list(my_hand)
            rest.remove(move.card)
            scored.append((move, gain + self.after(table, tuple(rest), hands, fresh, captured)))
        return scored

    def after(
        self,
        table: SimTable,
        rest: tuple[Card, ...],
        hands: list[tuple[int, ...]],
        fresh: bool,
        captured: bool,
    ) -> float:
        """Expected value, for this seat, of what follows a move that left ``table``."""
        view = self.view
        last = view.last_capturer
        last_me = captured or (last is not None and team_of(last) == self.me)
        if not hands:  # this seat plays the last card of the hand
            if view.deck_size == 0:
                return self._sweep(table, last_me)
            return 0.0
        # the end of the hand is within sight: the sweep goes to the last capturer
        end_in_sight = (
            not self.four
            and view.deck_size == 0
            and len(rest) <= 1
            and view.opponent_hand_size <= 1
        )
        info = _TableInfo(table)
        # the best capture there of each unseen card in a hand drawn, and its value for the
        # opponent (only those: with few hands drawn most cards are in none)
        unseen = self.unseen
        values: list[float] = [0.0] * len(unseen)
        replies: list[Capture | None] = [None] * len(unseen)
        w_opp, l_opp, opp = self.w_opp, self.l_opp, self.opp
        for i in {i for hand in hands for i in hand}:
            card = unseen[i]
            found = replies[i] = info.best_capture(card.rank, w_opp, l_opp, opp)
            values[i] = -1.0 if found is None else found[0] + w_opp[card.code]
        # this team's simple piles, which the opponent may raise and make its own
        raisable = [
            (j, pile[0], sum(w_opp[c.code] for c in pile[2]))
            for j, pile in enumerate(table[1])
            if pile[1] in self.mates and not pile[3] and pile[0] < MAX_VALUE
        ]
        follow: dict[int, float] = {}
        total = 0.0
        for hand in hands:
            best = max(hand, key=values.__getitem__)  # ties: the first, least valuable
            reply = replies[best]
            if raisable:
                steal = self._steal(hand, raisable, values[best])
                if steal is not None:
                    j, stolen = steal
                    total -= stolen
                    if fresh:
                        continue
                    key = -1000 - j
                    cached = follow.get(key)
                    if cached is None:
                        rest_piles = table[1][:j] + table[1][j + 1 :]
                        cached = follow[key] = self._follow_up(
                            (table[0], rest_piles), rest, last_me, end_in_sight
                        )
                    total += cached
                    continue
            if reply is not None:
                total -= values[best]
                if fresh:
                    continue
                key = id(reply)
                cached = follow.get(key)
                if cached is None:
                    cached = follow[key] = self._follow_up(reply[1], rest, False, end_in_sight)
            else:
                if fresh:
                    continue
                trailed = hand[0]  # the least valuable card of the hand
                key = -1 - trailed
                cached = follow.get(key)
                if cached is None:
                    next_table = ((*table[0], self.unseen[trailed]), table[1])
                    cached = follow[key] = self._follow_up(next_table, rest, last_me, end_in_sight)
            total += cached
        return total / len(hands)

    def _steal(
        self, hand: tuple[int, ...], raisable: list[tuple[int, int, float]], best_capture: float
    ) -> tuple[int, float] | None:
        """The opponent's best raise of one of this seat's simple piles (RULES.md 4.2), if it
        beats its best capture: (pile index, value for the opponent). A raise needs a card
        to add and another that takes the new value; the pile is taken a turn later, so it
        counts at ``steal_weight``."""
        unseen, w_opp = self.unseen, self.w_opp
        found: tuple[int, float] | None = None
        best_value = best_capture
        for j, value, weight in raisable:
            for i in hand:
                card = unseen[i]
                raised = value + card.value
                if raised > MAX_VALUE:
                    continue
                if not any(k != i and unseen[k].capture_value == raised for k in hand):
                    continue
                gain = self.tuning.steal_weight * (weight + w_opp[card.code])
                if gain > best_value:
                    found, best_value = (j, gain), gain
        return found

    def _follow_up(
        self, table: SimTable, rest: tuple[Card, ...], last_me: bool, end_in_sight: bool
    ) -> float:
        """This seat's best capture on ``table`` with the cards it kept, and the end sweep.
        With four players the partner plays first: its piles still on the table are the
        team's (it holds their takers, RULES.md 4.4), and this seat's own capture comes
        three plays later (``follow_four``)."""
        best: Capture | None = None
        best_gain = 0.0
        if rest:
            info = _TableInfo(table)
            for card in rest:
                found = info.best_capture(card.rank, self.w_me, self.l_me, self.me)
                if found is not None:
                    g = found[0] + self.w_me[card.code]
                    if best is None or g > best_gain:
                        best_gain, best = g, found
        if self.four:
            partner = sum(
                self.w_me[c.code]
                for pile in table[1]
                if pile[1] in self.mates and pile[1] != self.seat
                for c in pile[2]
            )
            return self.tuning.follow * partner + self.tuning.follow_four * best_gain
        value = self.tuning.follow * best_gain
        if end_in_sight:
            if best is not None:
                value += self._sweep(best[1], True)
            else:
                left = table if not rest else ((*table[0], *rest), table[1])
                value += self._sweep(left, last_me)
        return value

    def _sweep(self, table: SimTable, last_me: bool) -> float:
        loose, piles = table
        cards = list(loose)
        for pile in piles:
            cards.extend(pile[2])
        if last_me:
            return self.tuning.end_weight * sum(self.w_me[c.code] for c in cards)
        return -self.tuning.end_weight * sum(self.w_opp[c.code] for c in cards)
