"""The rules of casino dominicano as pure functions and plain values (standard library only).

RULES.md is the rule book and NOTATION.md the text form; this package follows both.
"""

from .cards import DECK, Card
from .errors import EngineError, IllegalMove, InvalidMove, NotationError
from .hints import BuildIdea, CardOptions, card_options, hand_options
from .match import Match, shuffled_deck, start_hand
from .moves import (
    Move,
    Step,
    check_move,
    legal_moves,
    moves_for_card,
    play,
    play_legal,
    play_step,
)
from .position import Pile, Position
from .scoring import CATEGORIES, CATEGORY_NAMES_ES, HandResult, score_hand
from .view import PublicView, View, public_view, view_for, view_json

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES_ES",
    "DECK",
    "BuildIdea",
    "Card",
    "CardOptions",
    "EngineError",
    "HandResult",
    "IllegalMove",
    "InvalidMove",
    "Match",
    "Move",
    "NotationError",
    "Pile",
    "Position",
    "PublicView",
    "Step",
    "View",
    "card_options",
    "check_move",
    "hand_options",
    "legal_moves",
    "moves_for_card",
    "play",
    "play_legal",
    "play_step",
    "public_view",
    "score_hand",
    "shuffled_deck",
    "start_hand",
    "view_for",
    "view_json",
]
