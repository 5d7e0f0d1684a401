"""The deal-end estimate (issue 19): the shipped file loads with the expected shape, a
missing or malformed one falls back to even odds, and even shares are the plain model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.ai.dealend import DEALS, EVEN, FIELDS, PATH, Estimate, load, parse
from server.ai.dificil import Dificil
from server.ai.odds import Shares, deal_end_chance, hand_chance
from server.engine import Match

from .helpers import cards


def test_the_shipped_estimate_loads_with_every_deal() -> None:
    estimate = load()
    assert estimate.fitted
    data = json.loads(PATH.read_text())
    assert set(data["shares"]) >= {f"{d}:any" for d in range(1, DEALS)}
    for deals in range(1, DEALS):
        shares = estimate.at(deals, "any")
        assert shares != EVEN
        for name in FIELDS:
            assert 0.0 <= getattr(shares, name) <= 1.0
        assert shares.limpia_dealer + shares.limpia_other <= 1.0
    # a last capturer the file has too few of falls back to the deal's "any" row
    assert estimate.at(1, "nobody") in (estimate.shares.get((1, "nobody")), estimate.at(1, "any"))
    assert 0.0 < estimate.model.trail_with_capture <= 1.0
    assert 0.0 < estimate.model.missed_limpia <= 1.0
    assert Dificil().estimate.shares == estimate.shares


def test_a_missing_or_bad_file_falls_back_to_even_odds(tmp_path: Path) -> None:
    missing = load(tmp_path / "none.json")
    assert not missing.fitted and missing.at(3, "dealer") == EVEN
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert not load(bad).fitted
    good = json.loads(PATH.read_text())
    broken: object
    for broken in (
        {"shares": {"9:any": good["shares"]["1:any"]}},  # no such deal
        {"shares": {"1:any": {**good["shares"]["1:any"], "cards": 1.5}}},
        {"shares": {"1:any": {"cards": 0.5}}},  # fields missing
        {"shares": {}, "model": {"trail_with_capture": 0.0}},
        [],
    ):
        with pytest.raises(ValueError):
            parse(broken)
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(broken))
        assert not load(path).fitted


def test_even_shares_are_the_plain_model_and_the_dealer_share_moves_the_odds() -> None:
    captured = (cards("10d 2s 3h 4h 5h"), cards("As 6c 7c"))
    for seat in (0, 1):
        plain = hand_chance((5, 9), captured, (1, 0), seat)
        assert abs(deal_end_chance((5, 9), captured, (1, 0), 1, EVEN, seat) - plain) < 1e-9
    # the more of what is left the dealer takes, the better for the dealer
    dealer_heavy = Shares(cards=0.7, spades=0.7, points=0.7)
    for dealer in (0, 1):
        even = deal_end_chance((5, 9), captured, (1, 0), dealer, EVEN, dealer)
        more = deal_end_chance((5, 9), captured, (1, 0), dealer, dealer_heavy, dealer)
        assert more > even + 0.01
    limpias = Shares(limpia_dealer=0.6, limpia_other=0.1)
    assert deal_end_chance((5, 9), captured, (0, 0), 0, limpias, 0) > deal_end_chance(
        (5, 9), captured, (0, 0), 0, EVEN, 0
    )


def test_rollouts_end_at_the_deal_with_the_estimate() -> None:
    dificil = Dificil()
    position = Match.new("deal-end").position
    value = dificil.deal_end(position, 0)
    assert 0.0 < value < 1.0
    assert abs(value + dificil.deal_end(position, 1) - 1.0) < 1e-9


def test_four_players_have_shares_of_their_own() -> None:
    """``fit_dealend.py --seats 4``: the file's ``four`` section, per team, for the one or
    two four-player deals still to play; without it, four players fall back to the
    two-player shares read by the cards left."""
    estimate = load()
    data = json.loads(PATH.read_text())
    assert set(data["four"]["shares"]) >= {"1:any", "2:any"}
    for deals in (1, 2):
        found = estimate.at_four(deals, "dealer")
        assert found is not None and found != EVEN
    assert Estimate(shares=estimate.shares).at_four(1, "any") is None
    # the two-player shares are not the four-player ones
    assert estimate.at(1, "any") != estimate.at_four(1, "any")
    four: object
    for four in ({"shares": {"9:any": data["four"]["shares"]["1:any"]}}, {"shares": []}, []):
        with pytest.raises(ValueError):
            parse({**data, "four": four})
    position = Match.new("deal-end-four", 4).position
    fitted, plain = Dificil(), Dificil(estimate=Estimate(shares=estimate.shares))
    for seat in range(4):
        value = fitted.deal_end(position, seat)
        assert 0.0 < value < 1.0
    assert fitted.deal_end(position, 0) + fitted.deal_end(position, 1) == pytest.approx(1.0)
    assert fitted.deal_end(position, 0) == fitted.deal_end(position, 2)
    assert fitted.deal_end(position, 0) != plain.deal_end(position, 0)
