"""Cards: the 52 cards of a French deck, their text form and their values."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import NotationError

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("s", "h", "d", "c")  # picas, corazones, diamantes, tréboles


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A card: rank 1 (ace) to 13 (king) and a suit letter."""

    rank: int
    suit: str
    # derived once, read often (the move generator's hot path)
    code: str = field(init=False, compare=False, repr=False)
    value: int = field(init=False, compare=False, repr=False)
    capture_value: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rank, int) or not 1 <= self.rank <= 13 or self.suit not in SUITS:
            raise NotationError(f"bad card {self.rank!r}{self.suit!r}")
        object.__setattr__(self, "code", f"{RANKS[self.rank - 1]}{self.suit}")
        # value inside a sum: its number, J 11, Q 12, K 13, the ace 1
        object.__setattr__(self, "value", self.rank)
        # value when played to capture: the ace takes 14
        object.__setattr__(self, "capture_value", 14 if self.rank == 1 else self.rank)

    @classmethod
    def parse(cls, text: object) -> Card:
        """Reads a card such as ``As``, ``10d`` or ``Qh``; anything else raises NotationError."""
        if isinstance(text, str):
            card = _BY_CODE.get(text)
            if card is not None:
                return card
        raise NotationError(f"bad card {text!r}")

    @property
    def is_ace(self) -> bool:
        return self.rank == 1

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
_BY_CODE: dict[str, Card] = {card.code: card for card in DECK}

TEN_OF_DIAMONDS = Card(10, "d")
TWO_OF_SPADES = Card(2, "s")
