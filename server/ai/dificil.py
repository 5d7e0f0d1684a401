"""Difícil (RULES.md 7): a determinized searcher that values the match, not the hand.

It sees only the seat's ``View``, like every level. For each decision:

1. **Candidates.** Normal's judgement ranks the legal moves (``Normal.ranked``); the best
   ``Tuning.candidates`` of them are searched (all of them in the last deal).
2. **The last deal is solved exactly.** Once the deck is empty the unseen cards are
   exactly the opponent's hand, so the rest of the hand is a game of perfect information
   of at most 8 plays: ``solver.solve`` searches it whole and values each ending by the
   chance of winning the match.
3. **Otherwise, determinized search.** ``Tuning.samples`` times it deals the opponent a
   hand and orders the deck from the unseen cards, consistent with what has been seen (an
   opponent who owns a pile holds a card that takes it, RULES.md 4.4). With the
   opponent's plays of this deal (``seen``, public), ``Tuning.oversample`` times as many
   hands are drawn and the worlds kept in proportion to how likely those plays were with
   each hand (``inference``: a hand that could not have made them is never kept). In
   each world it plays every candidate, then plays the rest of the deal out with Normal's
   judgement for both seats (greedy rollouts make such searchers weaker; the next deal
   too if ``Tuning.min_plays`` asks for it), and values the end of that deal by the
   chance of winning the match with what is still to come shared out as self-play says
   it is (``odds.deal_end_chance`` with ``dealend.json``: the 18-points rule, the race to
   21 counted in order). Every candidate is played out in the same worlds with the same
   rollout seeds, so the comparison is between moves, not between luck. With four
   players the three hidden hands are drawn, every seat's plays are read, the sides of
   the deal's end are the teams (with the shares of four-player self-play: the file's
   ``four`` section), and ``Tuning.four_share`` of the worlds are played (a deal is 16
   plays), more when few plays are left in the deal (``four_stretch``); the rollouts'
   Normal draws a single hand for the replies (``four_rollout``: cheaper, so more worlds).
   The rollouts play their legal moves without checking them again (``play_legal``).
4. **More worlds where they disagree.** If the best two candidates are within
   ``Tuning.disagree_z`` standard errors of each other over those worlds,
   ``Tuning.extra_samples`` more worlds are played for the best ``extra_candidates``; the
   move with the largest sum is chosen. With four players a decision spends at most
   ``Tuning.four_plays`` rollout plays, these extra worlds included.

Everything is driven by ``rng`` and fixed counts (samples, candidates, extra worlds,
rollout plays, solver nodes), never by a clock: a seed gives the same move on any machine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine import DECK, Card, Move, Position, View, legal_moves, play_legal, view_for
from ..engine.seats import others, team_of
from .dealend import Estimate
from .dealend import load as load_estimate
from .inference import Inference, Seen, resample
from .normal import Normal
from .normal import Tuning as NormalTuning
from .odds import deal_end_chance, hand_chance, result_chance
from .solver import solve

DECK_ORDER = {card: i for i, card in enumerate(DECK)}
DEAL_CARDS = 8  # cards a deal takes from the deck
REJECTION_TRIES = 20  # opponent hands drawn before one is mended to hold its pile cards


def _rollout_tuning() -> NormalTuning:
    return NormalTuning(samples=4, max_candidates=10, min_builds=3)


def _four_rollout_tuning() -> NormalTuning:
    return NormalTuning(samples=1, max_candidates=10, min_builds=3)


@dataclass(frozen=True, slots=True)
class Tuning:
    samples: int = 12  # worlds (opponent hand and deck order) per decision
    candidates: int = 6  # Normal's best moves searched at the root
    # rollouts stop at the end of the deal in which they reach this many plays (above 1,
    # near a deal's end they play the next deal too; 4 cost 40% more time and won no more
    # matches against Normal in 40 paired matches, 25 against 26)
    min_plays: int = 1
    solver_nodes: int = 30_000  # the last deal's exact search gives up past this
    oversample: int = 4  # opponent hands drawn per world kept, when its plays are weighed
    # where the best two candidates are within disagree_z standard errors of each other
    # over the worlds, extra_samples more worlds for the best extra_candidates
    extra_samples: int = 12
    extra_candidates: int = 3
    # with four players a deal is 16 plays, not 8: the rollouts cost twice as much, so this
    # share of the worlds is searched (0.5 s of CPU at p99, issue 26). 0.9 until the fifth
    # pass: more worlds raised the p99 (1.0: 0.470 against 0.299 s beside the old code),
    # whose tail was then the garbage collector's full collections (0.2-0.4 s each, walking
    # Normal's cached loose sums; now tuples it leaves alone) and the decisions at a deal's
    # first plays with extra worlds, now capped by four_plays. With both, 1.3 won 139/200
    # matches against Normal's team (0.9: 125/200) at a p99 of 0.25-0.33 s by 40 matches
    # (benchmarks/README.md, issue 26's fifth pass)
    four_share: float = 1.3
    # with four players, the rollout plays a decision may spend at most (the worlds times
    # the candidates times the plays left in the deal, the extra worlds included; 0: no
    # cap): a count, not a clock. The decisions at a deal's first plays whose best two
    # disagree set the p99 (5 x 11 + 3 x 11 rollouts of 16 plays with 0.9 of the worlds,
    # 1,408 plays): with 1.3 of the worlds uncapped they reach 2,048 plays, capped at 1,800
    # the extra worlds get what is left (400 decisions: p99 0.352 -> 0.258 s, max 0.435 ->
    # 0.295 s)
    four_plays: int = 1800
    # with four players a rollout plays out what is left of the deal: a decision late in a
    # deal has shorter rollouts, so it gets more worlds: four_stretch_plays / plays left
    # times as many (at most four_stretch times). Those decisions stay well below the cost
    # of a deal's first plays, which set the p99 (scaled from 16 plays left, the
    # decisions at 9-15 cost as much as the first ones and the p99 rose 0.44 -> 0.63 s).
    # four_stretch 1.0: the same worlds at every play
    four_stretch: float = 3.0
    four_stretch_plays: int = 9
    # Normal's best moves searched at the root with four players: one fewer than with two
    # (the CPU of a decision is in proportion; with 6 the p99 was 0.53 s at load 5-6)
    four_candidates: int = 5
    disagree_z: float = 1.0
    rollout: NormalTuning = field(default_factory=_rollout_tuning)
    # the rollouts' Normal with four players (None: ``rollout``, as with two): one hand
    # drawn for its replies, not four; the CPU saved goes to more worlds (four_share).
    # benchmarks/dificil_regret.py, 240 four-player decisions against a 128-world
    # reference: the regret falls steeply with the worlds (0.0089 / 0.0071 / 0.0046 /
    # 0.0038 at 0.35 / 0.7 / 1.4 / 2.8 of them, 4 hands drawn), one hand drawn costs 0.67x
    # the CPU at about the same regret for the same worlds (0.0077 against 0.0071, the
    # noise about 0.001); with 0.9 of the worlds 0.0056 at 0.99x the CPU of 0.7 and 4 hands
    four_rollout: NormalTuning | None = field(default_factory=_four_rollout_tuning)


class Dificil:
    name = "dificil"

    def __init__(self, tuning: Tuning | None = None, estimate: Estimate | None = None) -> None:
        self.tuning = tuning or Tuning()
        self.judge = Normal()
        self.policy = Normal(self.tuning.rollout)
        four = self.tuning.four_rollout
        self.four_policy = self.policy if four is None else Normal(four)
        self.estimate = estimate if estimate is not None else load_estimate()

    def choose(
        self, view: View, legal_moves: list[Move], rng: random.Random, seen: Sequence[Seen] = ()
    ) -> Move:
        """The move for ``view``; ``seen``: the plays of this hand as this seat saw them
        (``inference.Seen``; empty when the caller keeps none)."""
        if len(legal_moves) == 1:
            return legal_moves[0]
        ranked = [move for move, _ in self.judge.ranked(view, legal_moves, rng)]
        unseen = _unseen(view)
        # with four players the last deal is not open information (RULES.md 9.5): three
        # hands are hidden, so it is searched like the others, over sampled worlds
        if view.seat_count == 2 and view.deck_size == 0 and len(unseen) == view.opponent_hand_size:
            # the unseen cards are the opponent's hand: search every move, Normal's first
            first = set(ranked)
            ordered = ranked + [m for m in legal_moves if m not in first]
            world = _world(view, _hidden(view, unseen), ())
            solved = solve(world, ordered, view.seat, self.tuning.solver_nodes)
            if solved is not None:
                return solved
        count = self.tuning.candidates if view.seat_count == 2 else self.tuning.four_candidates
        return self.search(view, ranked[:count], rng, seen)

    def search(
        self, view: View, candidates: list[Move], rng: random.Random, seen: Sequence[Seen] = ()
    ) -> Move:
        """The candidate with the best total chance of winning over sampled worlds; where
        the worlds disagree on the best two, more worlds for the best few."""
        if len(candidates) == 1:
            return candidates[0]
        tuning = self.tuning
        unseen = _unseen(view)
        inference = {
            s: Inference(view, seen, self.estimate.model, s)
            for s in others(view.seat, view.seat_count)
        }
        samples, extra = tuning.samples, tuning.extra_samples
        length = 0  # a rollout's plays: what is left of the deal (four players)
        if view.seat_count > 2:
            share = tuning.four_share * _stretch(view, tuning)
            samples = max(2, round(samples * share))
            extra = round(extra * share)
            length = max(1, sum(view.hand_sizes))
            if tuning.four_plays:
                samples = max(2, min(samples, tuning.four_plays // (len(candidates) * length)))
        values = self._values(view, unseen, candidates, samples, inference, rng)
        totals = [sum(column) for column in values]
        order = sorted(range(len(candidates)), key=lambda i: (-round(totals[i], 9), i))
        top = order[: tuning.extra_candidates]
        if length and tuning.four_plays:
            # the extra worlds get what the budget has left
            spent = samples * len(candidates) * length
            extra = min(extra, max(0, tuning.four_plays - spent) // (len(top) * length))
        if extra and _disagree(values[order[0]], values[order[1]], tuning):
            more = self._values(view, unseen, [candidates[i] for i in top], extra, inference, rng)
            for i, column in zip(top, more, strict=True):
                totals[i] += sum(column)
            order = sorted(top, key=lambda i: (-round(totals[i], 9), i))
        return candidates[order[0]]

    def _values(
        self,
        view: View,
        unseen: list[Card],
        candidates: list[Move],
        count: int,
        inference: dict[int, Inference],
        rng: random.Random,
    ) -> list[list[float]]:
        """Each candidate's value in each of ``count`` sampled worlds (the same worlds and
        rollout seeds for every candidate)."""
        values: list[list[float]] = [[] for _ in candidates]
        for world in self.sample_worlds(view, unseen, rng, count, inference):
            seed = rng.getrandbits(64)
            for i, move in enumerate(candidates):
                values[i].append(self.rollout(world, move, view.seat, random.Random(seed)))
        return values

    def sample_worlds(
        self,
        view: View,
        unseen: list[Card],
        rng: random.Random,
        count: int,
        inference: dict[int, Inference] | Inference | None = None,
    ) -> list[Position]:
        """``count`` positions consistent with ``view``; with what the other players' plays
        of this deal say (``inference``, by seat), the hidden hands are drawn from
        ``Tuning.oversample`` times as many, in proportion to their likelihood. With four
        players each of the three hidden hands is drawn in turn from what is left, each
        pile owner holding a taker of its piles."""
        if isinstance(inference, Inference):
            inference = {inference.player: inference}
        readers = [i for i in (inference or {}).values() if i.informed]
        if view.seat_count == 2:
            opponent = others(view.seat, 2)[0]
            if not readers:
                hands = [self.sample_hand(view, unseen, rng) for _ in range(count)]
            else:
                drawn = [
                    self.sample_hand(view, unseen, rng)
                    for _ in range(count * self.tuning.oversample)
                ]
                hands = readers[0].pick(drawn, count, rng)
            hidden = [{opponent: hand} for hand in hands]
        elif not readers:
            hidden = [self.sample_hidden(view, unseen, rng) for _ in range(count)]
        else:
            many = [
                self.sample_hidden(view, unseen, rng) for _ in range(count * self.tuning.oversample)
            ]
            hidden = resample(many, [_likelihood(h, readers) for h in many], count, rng)
        worlds = []
        for hands_of in hidden:
            chosen = {c for hand in hands_of.values() for c in hand}
            deck = [c for c in unseen if c not in chosen]
            rng.shuffle(deck)
            # in a real game the rest is exactly the deck; a position written by hand may
            # leave cards out altogether
            worlds.append(_world(view, hands_of, tuple(deck[: view.deck_size])))
        return worlds

    def sample_hidden(
        self, view: View, unseen: list[Card], rng: random.Random
    ) -> dict[int, list[Card]]:
        """Every other player's hand, drawn in the order of play from the cards still
        unseen; a player who owns a pile holds a card that takes it."""
        pool = list(unseen)
        hands: dict[int, list[Card]] = {}
        for seat in others(view.seat, view.seat_count):
            size = min(view.hand_sizes[seat], len(pool))
            needed = sorted({p.value for p in view.piles if p.owner == seat})
            hand = _draw(pool, size, needed, rng)
            hands[seat] = hand
            taken = set(hand)
            pool = [c for c in pool if c not in taken]
        return hands

    def sample_world(self, view: View, unseen: list[Card], rng: random.Random) -> Position:
        """One position consistent with ``view`` (no inference)."""
        return self.sample_worlds(view, unseen, rng, 1)[0]

    def sample_hand(self, view: View, unseen: list[Card], rng: random.Random) -> list[Card]:
        """An opponent hand drawn from the unseen cards; an opponent who owns a pile holds
        a card that takes it."""
        size = min(view.opponent_hand_size, len(unseen))
        needed = sorted({p.value for p in view.piles if p.owner != view.seat})
        return _draw(unseen, size, needed, rng)

    def rollout(self, world: Position, move: Move, seat: int, rng: random.Random) -> float:
        """``seat``'s chance to win the match after ``move`` in ``world``: the rest of the
        deal (and the next one, if fewer than ``Tuning.min_plays`` plays were left) played
        by Normal's judgement for every seat (with four, the partner's too: a rollout is a
        world where every hand is known, the partner's only inside that world)."""
        # the candidates and the rollouts' moves are legal moves of their positions: played
        # without checking the rules again (``play_legal``)
        step = play_legal(world, move)
        plays = 1
        policy = self.policy if world.seat_count == 2 else self.four_policy
        while True:
            if step.result is not None:
                return result_chance(step.result, team_of(seat))
            position = step.position
            if step.dealt and plays >= self.tuning.min_plays:
                return self.deal_end(position, seat)
            view = view_for(position, position.turn)
            # the legal moves read only the mover's hand and the table: those of the position
            # itself are the view's (``view.as_position()``), and its indexed table is the
            # one play_legal reads next (built once a play, not twice)
            moves = legal_moves(position)
            if not moves:  # a world the rules never reach; value it as it stands
                team = team_of(seat)
                return hand_chance(position.scores, position.captured, position.limpias, team)
            chosen = moves[0] if len(moves) == 1 else policy.choose(view, moves, rng)
            step = play_legal(position, chosen)
            plays += 1

    def deal_end(self, position: Position, seat: int) -> float:
        """``seat``'s chance to win the match from a position just dealt: what has been
        captured is certain, what is still to come goes to each side with the learned
        deal-end shares (``dealend``). With four players the sides are the teams (the
        dealer's team and the other) and the shares are those fitted on four-player
        self-play (``fit_dealend.py --seats 4``), by the four-player deals left; if the file
        has none, the two-player shares read by the cards left in the deck (``DEAL_CARDS``
        of two players' deals)."""
        last = position.last_capturer
        dealer = team_of(position.dealer)
        key = "nobody" if last is None else ("dealer" if team_of(last) == dealer else "other")
        shares = None
        if position.seat_count > 2:
            four_deal = DEAL_CARDS * position.seat_count // 2
            shares = self.estimate.at_four(len(position.deck) // four_deal + 1, key)
        if shares is None:
            shares = self.estimate.at(len(position.deck) // DEAL_CARDS + 1, key)
        return deal_end_chance(
            position.scores,
            position.captured,
            position.limpias,
            dealer,
            shares,
            team_of(seat),
        )


def _stretch(view: View, tuning: Tuning) -> float:
    """How many times the worlds of a deal's first play a four-player decision gets:
    ``four_stretch_plays`` over the plays left in this deal (the rollouts' length), at
    least 1, at most ``four_stretch``."""
    left = sum(view.hand_sizes)  # every hand's cards: the plays left in this deal
    return max(1.0, min(tuning.four_stretch, tuning.four_stretch_plays / max(left, 1)))


def _disagree(a: list[float], b: list[float], tuning: Tuning) -> bool:
    """Whether the worlds leave the best two candidates too close to tell apart: their
    mean difference is within ``Tuning.disagree_z`` standard errors of zero (and not
    exactly zero everywhere: moves no world separates need no more worlds)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if variance <= 1e-12:
        return False
    return abs(mean) < tuning.disagree_z * math.sqrt(variance / n)


def _unseen(view: View) -> list[Card]:
    """The cards this seat has not seen, in a fixed order (a set's order is not)."""
    return sorted(view.unseen(), key=DECK_ORDER.__getitem__)


def _holds(hand: list[Card], values: list[int]) -> bool:
    return all(any(c.capture_value == v for c in hand) for v in values)


def _draw(pool: list[Card], size: int, needed: list[int], rng: random.Random) -> list[Card]:
    """A hand of ``size`` from ``pool`` holding a card of each value in ``needed`` (a pile
    owner's takers): drawn at random, mended when the draws keep missing."""
    hand: list[Card] = []
    for _ in range(REJECTION_TRIES):
        hand = rng.sample(pool, size)
        if _holds(hand, needed):
            return hand
    # rare: give it a taker of each of its piles first, then the rest at random
    hand = []
    for value in needed:
        takers = [c for c in pool if c.capture_value == value and c not in hand]
        if takers and not _holds(hand, [value]):
            hand.append(rng.choice(takers))
    hand = hand[:size]
    rest = [c for c in pool if c not in hand]
    return hand + rng.sample(rest, size - len(hand))


def _likelihood(hands: dict[int, list[Card]], readers: list[Inference]) -> float:
    weight = 1.0
    for reader in readers:
        weight *= reader.weight(hands[reader.player])
    return weight


def _hidden(view: View, unseen: list[Card]) -> dict[int, list[Card]]:
    """With two players and the deck empty: the unseen cards are the opponent's hand."""
    return {others(view.seat, view.seat_count)[0]: unseen}


def _world(view: View, hidden: dict[int, list[Card]], deck: tuple[Card, ...]) -> Position:
    hands: list[tuple[Card, ...]] = [() for _ in range(view.seat_count)]
    hands[view.seat] = view.hand
    for seat, hand in hidden.items():
        hands[seat] = tuple(hand)
    return Position(
        hands=tuple(hands),
        cards=view.cards,
        piles=view.piles,
        turn=view.turn,
        dealer=view.dealer,
        deck=deck,
        captured=view.captured,
        limpias=view.limpias,
        last_capturer=view.last_capturer,
        scores=view.scores,
    )
