"""Invariants of every table over random deals, the leak test of every table, PettingZoo's tests per table kind.

``SKAT_VARIANT_DEALS=10000 python -m pytest tests/test_skat_variant_properties.py`` runs the full
count of random deals per table (the suite runs a few hundred).
"""

from __future__ import annotations

import os
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import skat_v0
from envs.skat.observation_x import observe
from envs.skat.rules import DONE, SkatGame
from envs.skat.rules.extras import CLAIMED, CONCEDED, REVOKED
from envs.skat.rules.views import hidden_cards_of
from envs.skat.variants import NAMES

DEALS = int(os.environ.get("SKAT_VARIANT_DEALS", "150"))
TABLES = [{"variant": n} for n in NAMES[1:]] + [
    {"kontra": True, "supra": True, "concede": True},
    {"variant": "four_player", "kontra": True, "supra": True, "concede": True, "ramsch": True},
    {"variant": "schieberamsch", "ramsch_tens": "one", "ramsch_scoring": "all", "players": 4},
    {"variant": "ramsch_only", "ramsch_scoring": "fixed", "jungfrau": False, "durchmarsch": False},
    {"variant": "revolution", "revolution_exchange": 2, "kontra": True, "supra": True},
    {"variant": "idiotenskat", "ramsch": True, "concede": True},
    {"variant": "tournee", "kontra": True, "concede": True, "players": 4},
    {"variant": "officers", "kontra": True, "concede": True},
    {"variant": "sechserskat", "concede": True, "ramsch": True, "kontra": True},
    {"variant": "strohmann", "kontra": True, "concede": True},
    {"variant": "oma", "concede": True},
]


def _id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


@pytest.mark.parametrize("options", TABLES, ids=_id)
def test_random_deal_invariants(options):
    """Every card dealt once and kept once, masks never empty while a player must act, points add up."""
    game = SkatGame(**options)
    t = game.table
    for seed in range(DEALS):
        s = game.new_initial_state(seed, deal_index=seed)
        rng = random.Random(seed)
        assert all(s.hands[q].bit_count() == (t.hand_size if q < t.positions else 0) for q in range(3))
        while s.phase != DONE:
            legal = s.legal_actions()
            assert legal and s.legal_mask() == sum(1 << a for a in legal)
            held = s.hands[0] | s.hands[1] | s.hands[2]
            played = s.played[0] | s.played[1] | s.played[2]
            assert held & played == 0 and held & s.skat == 0 and played & s.skat == 0
            assert held | played | s.skat == t.pack.full
            s.apply_action(legal[rng.randrange(len(legal))])
        assert len(s.returns()) == t.score_len
        if s.passed_in:
            assert not any(s.scores)
            continue
        total = sum(s.points_of)
        skat = sum(s.points_of[c] for c in range(t.pack.size) if s.skat >> c & 1)
        x = s.x
        if x.ending in (REVOKED, CONCEDED) and s.trick_count < t.tricks or (
                s.contract is not None and s.contract.game == 5 and s.trick_count < t.tricks):
            continue  # ended early (a revoke, a concession before the second trick, a null lost): cards still held
        if s.contract is None:
            assert sum(s.points) + (skat if t.tournee else 0) == total  # the skat went to a player (NA: nobody)
        else:
            unused = sum(s.points_of[c] for c in range(32) if s.hands[2] >> c & 1) if t.dummy_mode == "unused" else 0
            assert sum(s.points) + skat + unused == total  # the dummy hand's points count for the defender
            assert s.outcome.declarer_points == s.points[s.declarer] + skat
            if x.ending not in (CLAIMED, CONCEDED):
                assert sum(s.tricks_won) == t.tricks


def _reshuffle(s, viewer: int, rng: random.Random):
    """A copy of ``s`` in which every card ``viewer`` cannot see is dealt differently."""
    t = s.clone()
    hidden = hidden_cards_of(t, viewer)
    pool = [c for m in hidden for c in range(t.table.pack.size) if m >> c & 1]
    rng.shuffle(pool)
    for q in range(4):
        n = hidden[q].bit_count()
        new = sum(1 << c for c in pool[:n])
        pool = pool[n:]
        if q < 3:
            t.hands[q] = (t.hands[q] & ~hidden[q]) | new
            if t.table.officers:
                t.x.hidden[q] = (t.x.hidden[q] & ~hidden[q]) | new
        else:
            t.skat = (t.skat & ~hidden[3]) | new
    return t


@pytest.mark.parametrize("options", TABLES, ids=_id)
def test_observations_leak_no_hidden_card(options):
    """Strohmann's dummy only after the declaration, Idiotenskat's own hand never, the skat, Officers' face-down
    cards, the Revolution's and ouvert hands only when open: a reshuffle of the unseen cards changes nothing."""
    game = SkatGame(**options)
    t = game.table
    rng = random.Random(1)
    for seed in range(max(DEALS // 5, 30)):
        s = game.new_initial_state(seed, deal_index=seed)
        for _ in range(rng.randrange(60)):
            if s.phase == DONE:
                break
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
        dealer = rng.randrange(t.seats)
        for seat in range(t.seats):
            viewer = t.position_of(seat, dealer)
            other = _reshuffle(s, viewer, rng)
            np.testing.assert_array_equal(observe(s, seat, dealer), observe(other, seat, dealer),
                                          err_msg=f"seat {seat} (position {viewer}) sees a hidden card")


KINDS = {"three-handed": {"variant": "tournee", "concede": True, "kontra": True, "supra": True},
         "three-handed list": {"variant": "list", "list_deals": 3},
         "four-handed": {"variant": "four_player", "kontra": True, "concede": True},
         "two-handed": {"variant": "strohmann", "kontra": True},
         "officers": {"variant": "officers"}}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_pettingzoo_api_and_seed_per_table_kind(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(skat_v0.env(**KINDS[kind]), num_cycles=400)
        seed_test(lambda: skat_v0.env(**KINDS[kind]), num_cycles=200)
