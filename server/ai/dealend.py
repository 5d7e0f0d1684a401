"""The learned deal-end estimate and the opponent model's factors (issue 19), from
dealend.json.

At the end of a deal Difícil's rollouts stop and value the position by the chance of
winning the match (``odds.deal_end_chance``). What the cards still to come are worth to
each side is not even: the dealer plays last in every deal and tends to make the last
capture, which takes the table. ``scripts/fit_dealend.py`` measures it over self-play and
writes, for each number of deals still to play (1 to 5) and who captured last (the
dealer, the other player, nobody), the shares of ``odds.Shares``; and the factors of the
opponent model of ``inference.Model``. Its ``four`` section holds the same shares measured
over four-player self-play (``--seats 4``), per team (the dealer's and the other), by the
four-player deals still to play (1 or 2: a deal is 16 cards).

A missing or malformed file gives the plain even estimate and the default factors
(``load`` never raises): a bad data file makes Difícil weaker, never broken.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from .inference import Model
from .odds import Shares

log = logging.getLogger(__name__)

PATH = Path(__file__).with_name("dealend.json")
DEALS = 6  # deals in a hand (RULES.md 2)
LAST = ("dealer", "other", "nobody", "any")  # who captured last, as the file's keys say
FIELDS = ("cards", "spades", "points", "limpia_dealer", "limpia_other")


@dataclass(frozen=True, slots=True)
class Estimate:
    shares: dict[tuple[int, str], Shares] = field(default_factory=dict)
    model: Model = field(default_factory=Model)
    fitted: bool = False
    four: dict[tuple[int, str], Shares] = field(default_factory=dict)  # four players

    def at(self, deals_left: int, last: str) -> Shares:
        """The shares with ``deals_left`` deals still to play (the one just dealt
        included) and ``last`` (one of ``LAST``) the last capturer; those of any last
        capturer if the file has too few of that one, even shares if it has none."""
        found = self.shares.get((deals_left, last))
        return found if found is not None else self.shares.get((deals_left, "any"), EVEN)

    def at_four(self, deals_left: int, last: str) -> Shares | None:
        """The four-player shares (``deals_left``: four-player deals, 1 or 2; ``last``: the
        dealer's team, the other, nobody), as ``at``; None if the file has no four-player
        section."""
        if not self.four:
            return None
        found = self.four.get((deals_left, last))
        return found if found is not None else self.four.get((deals_left, "any"), EVEN)


EVEN = Shares()


def parse(data: object) -> Estimate:
    """The estimate in ``data`` (the file's JSON); raises ValueError if it is malformed."""
    if not isinstance(data, dict):
        raise ValueError("not an object")
    shares = _shares(data.get("shares"))
    four_data = data.get("four", {"shares": {}})
    if not isinstance(four_data, dict):
        raise ValueError("bad four")
    four = _shares(four_data.get("shares"))
    factors = data.get("model", {})
    if not isinstance(factors, dict):
        raise ValueError("bad model")
    model = Model()
    trail = factors.get("trail_with_capture", model.trail_with_capture)
    limpia = factors.get("missed_limpia", model.missed_limpia)
    for v in (trail, limpia):
        if not isinstance(v, int | float) or not 0.0 < v <= 1.0:
            raise ValueError("bad model factor")
    return Estimate(shares, Model(float(trail), float(limpia)), fitted=True, four=four)


def _shares(rows: object) -> dict[tuple[int, str], Shares]:
    if not isinstance(rows, dict):
        raise ValueError("no shares")
    shares: dict[tuple[int, str], Shares] = {}
    for key, row in rows.items():
        deals, _, last = str(key).partition(":")
        if not deals.isdigit() or not 1 <= int(deals) < DEALS or last not in LAST:
            raise ValueError(f"bad key {key!r}")
        if not isinstance(row, dict) or set(row) != set(FIELDS):
            raise ValueError(f"bad row {key!r}")
        values = [row[name] for name in FIELDS]
        if not all(isinstance(v, int | float) and 0.0 <= v <= 1.0 for v in values):
            raise ValueError(f"bad shares {key!r}")
        if values[3] + values[4] > 1.0:
            raise ValueError(f"bad limpia chances {key!r}")
        shares[int(deals), last] = Shares(*(float(v) for v in values))
    return shares


def load(path: Path = PATH) -> Estimate:
    """The estimate shipped beside this module; the even one if it is missing or bad."""
    try:
        return parse(json.loads(path.read_text()))
    except (OSError, ValueError) as error:
        log.warning("deal-end estimate not loaded from %s (%s); even odds", path, error)
        return Estimate()
