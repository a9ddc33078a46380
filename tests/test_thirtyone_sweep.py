"""Invariants over many random games of every Thirty-One variant (the issue asks for 10,000 per variant).

``make test`` plays ``THIRTYONE_SWEEP_GAMES`` (default 24) games per variant, a few seconds in all; the full
sweep is ``THIRTYONE_SWEEP_GAMES=10000 python -m pytest tests/test_thirtyone_sweep.py -n 2`` (minutes).
Game g has ``2 + g % 8`` players (2..9) and seed g; every step checks the invariants of
``test_thirtyone_properties.check_invariants`` (each card in one place, hands, visible cards, knowledge,
tokens) and that the legal actions are sorted, distinct and match the action mask; every game must end,
its returns must sum to zero, and token returns must be the money: the winner takes every other player's
tokens.
"""

from __future__ import annotations

import os
import random

import pytest

from envs.thirtyone import ThirtyOneGame
from envs.thirtyone.variants import VARIANT_NAMES
from tests.test_thirtyone_properties import check_invariants

GAMES = int(os.environ.get("THIRTYONE_SWEEP_GAMES", "24"))
MAX_STEPS = 200_000


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_random_games_of_every_variant(name: str) -> None:
    games = {n: ThirtyOneGame(variant=name, num_players=n) for n in range(2, 10)}
    rounds = 0
    for g in range(GAMES):
        game = games[2 + g % 8]
        s = game.new_initial_state(seed=g)
        rng = random.Random(g)
        for _ in range(MAX_STEPS):
            check_invariants(s)
            if s.is_terminal():
                break
            legal = s.legal_actions()
            assert legal and legal == sorted(set(legal)), (name, g)
            mask = s.legal_bytes()
            assert len(mask) == game.num_actions and [a for a in range(game.num_actions) if mask[a]] == legal
            s.apply_action(rng.choice(legal))
        assert s.is_terminal(), f"{name} game {g} did not end"
        r = s.returns()
        assert abs(sum(r)) < 1e-9, (name, g, r)
        if game.options.reward_scheme == "tokens":
            start = game.options.lives
            assert sorted(r) == [-float(start)] * (s.n - 1) + [float(start * (s.n - 1))], (name, g, r)
        else:
            assert max(r) == 1.0
        rounds += s.round_no
    assert rounds >= GAMES
