"""agents.skat_endgame_features against the rules core's trick tables, on the seats of random deals."""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.skat_endgame_features import NUM_FEATURES, EndgameFeatures
from envs.skat.cards import EFF_SUIT, GRAND, NUM_CARDS, ORDER, POINTS, holding_card
from envs.skat.observation import decode, observe
from envs.skat.rules import PLAY, SkatGame
from tests.skat_helpers import random_playout


def _play_observations(deals: int, seed: int) -> list[np.ndarray]:
    rows: list[np.ndarray] = []
    rng = random.Random(seed)
    game = SkatGame()

    def keep(state) -> None:
        if state.phase == PLAY:
            rows.append(observe(state, state.current_player))

    for _ in range(deals):
        random_playout(game.new_initial_state(rng.randrange(2**31)), rng, keep)
    return rows


def _bits(x: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if x >> c & 1]


def test_features_match_the_trick_tables_at_every_card_play_decision():
    rows = _play_observations(40, seed=3)
    assert len(rows) > 300
    features = EndgameFeatures()(torch.from_numpy(np.stack(rows))).numpy()
    assert features.shape == (len(rows), NUM_FEATURES)
    for vector, f in zip(rows, features, strict=True):
        v = decode(vector)
        g = GRAND if v.ramsch else v.game_type
        eff, order = EFF_SUIT[g], ORDER[g]
        seen = v.hand | v.skat_put | v.skat_taken
        for x in (*v.played, *v.trick):
            seen |= x
        out = [c for c in range(NUM_CARDS) if not seen >> c & 1]
        assert np.flatnonzero(f[:32]).tolist() == out
        higher = [sum(eff[d] == eff[c] and ORDER[g][d] > order[c] for d in out) / 8 for c in range(NUM_CARDS)]
        assert np.allclose(f[32:64], higher)
        assert np.flatnonzero(f[64:96]).tolist() == [c for c in _bits(v.hand) if higher[c] == 0]
        trick = v.trick_order
        holder = np.flatnonzero(f[96:128]).tolist()
        assert holder == ([trick[holding_card(eff, order, g, trick)]] if trick else [])
        for c in range(NUM_CARDS):  # a card takes the trick iff, played now, it would hold it
            takes = bool(trick) and holding_card(eff, order, g, [*trick, c]) == len(trick)
            assert f[128 + c] == float(takes), (v, c)
        assert np.allclose(f[160:165], [sum(eff[c] == s for c in out) / 8 for s in range(5)])
        assert np.allclose(f[165:170], [sum(eff[c] == s for c in _bits(v.hand)) / 8 for s in range(5)])
        assert np.flatnonzero(f[170:175]).tolist() == ([eff[trick[0]]] if trick else [])
        assert np.isclose(f[175], sum(POINTS[c] for c in trick) / 30)


def test_one_row_at_a_time_the_compiled_features_are_the_batched_ones_bit_for_bit():
    rows = torch.from_numpy(np.stack(_play_observations(20, seed=8)))
    noise = torch.rand(200, rows.shape[1], generator=torch.Generator().manual_seed(0)).round()
    rows = torch.cat([rows, noise])  # and rows no deal has: several game types, cards seen twice...
    features = EndgameFeatures()
    batched = features(rows)  # autograd on: the torch path, whatever the batch
    with torch.no_grad():
        single = torch.cat([features(rows[i : i + 1]) for i in range(len(rows))])
        assert torch.equal(features(rows[:5]), batched[:5])
    assert torch.equal(single, batched)
