"""An endgame expert played over suit views (``suit_views``): the mean over the game's suit relabellings."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import agents
from agents.checkpoint import load as load_checkpoint
from agents.endgame_expert import EndgameExpertNetwork
from envs.skat import actions
from envs.skat.observation import HAND, observe
from envs.skat.rules import PLAY
from envs.skat.rules.game import SkatGame
from envs.skat.symmetry import suit_views
from tests.test_endgame_expert import _network as expert_network
from tests.test_skat_symmetry import random_action
from train.pretrain.expert import fit_endgame_expert, random_views
from train.pretrain.expert import main as expert_main

SHIPPED = "checkpoints/skat_exit_dagger.pt"


def _network(views: int) -> EndgameExpertNetwork:
    # every card play is late: null games end early
    return expert_network(from_trick=1, features=True, suit_views=views)


def _late_rows(deals: int = 30) -> tuple[torch.Tensor, list[int]]:
    """Observations of the card play in deals played at random, with their game types."""
    rng, rows, games = random.Random(1), [], []
    for seed in range(deals):
        state = SkatGame().new_initial_state(seed)
        while not state.is_terminal():
            obs = observe(state, state.current_player)
            if state.phase == PLAY and obs[HAND:HAND + 32].sum() > 1:  # one card left: played as it is
                rows.append(obs)
                games.append(state.game_type)
            state.apply_action(random_action(state, rng))
    return torch.from_numpy(np.stack(rows)), games


def test_every_view_of_a_position_gets_the_same_policy():
    """Over all of a game's views the mean is invariant: the policy of a relabelled position is the
    relabelled policy, for every suit game, grand and null."""
    net = _network(24)
    obs, games = _late_rows()
    assert {("suit", "suit", "suit", "suit", "grand", "null")[g] for g in games} == {"suit", "grand", "null"}
    with torch.no_grad():
        played = net.policy_logits(obs)
        for i in range(0, len(obs), 23):
            for view in suit_views(games[i]):
                seen = net.policy_logits(obs[i:i + 1, view.obs_gather])[0]
                torch.testing.assert_close(seen[view.action_map], played[i], rtol=1e-4, atol=1e-4)
        # one row at a time (as an agent plays) gives the batch's numbers
        torch.testing.assert_close(net.policy_logits(obs[3:4])[0], played[3], rtol=1e-4, atol=1e-4)


def test_one_view_is_the_plain_product_and_bad_counts_are_refused():
    net = _network(1)
    obs, _ = _late_rows(6)
    with torch.no_grad():
        expected = torch.log_softmax(net.expert_logits(obs), 1) + 0.5 * torch.log_softmax(net.base_logits(obs), 1)
        torch.testing.assert_close(net.policy_logits(obs), expected)
    assert "suit_views" not in net.policy_spec()
    net.set_suit_views(3)
    assert net.policy_spec()["suit_views"] == 3
    for bad in (0, 2.5):
        with pytest.raises(ValueError, match="suit_views"):
            net.set_suit_views(bad)


def test_a_rewrite_with_suit_views_loads_and_plays(tmp_path):
    out = tmp_path / "views.pt"
    assert expert_main(["--rewrite", SHIPPED, "--suit-views", "6", "--out", str(out)]) == 0
    assert load_checkpoint(str(out))["metadata"]["network"]["suit_views"] == 6
    agent = agents.load(str(out), game="skat")
    assert agent is not None


def test_random_views_relabel_each_row_within_its_game_and_keep_unknown_rows():
    obs, games = _late_rows(12)
    games = np.array(games)
    games[:3] = -1  # before the game is known: the row as it is
    rng = np.random.default_rng(0)
    seen: set[tuple[int, ...]] = set()
    for _ in range(5):
        viewed, maps = random_views(obs, games, rng)
        for i, g in enumerate(games):
            if g < 0:
                assert torch.equal(viewed[i], obs[i]) and torch.equal(maps[i], torch.arange(maps.shape[1]))
                continue
            view = next(v for v in suit_views(int(g)) if np.array_equal(v.action_map, maps[i].numpy()))
            assert torch.equal(viewed[i], obs[i, view.obs_gather])
            seen.add(view.perm)
    assert len(seen) > 6  # more than the identity, beyond one game's six suit-game views


def test_an_augmented_fit_learns_the_relabelled_positions_too():
    """Fitted on a few positions only, each seen in random suit views, the expert picks the teacher's best
    card in every view of them, mapped; the plain fit sees only the positions as they are."""
    obs, games = _late_rows(3)
    keep = np.flatnonzero(np.array(games) < 4)[:8]  # suit games: six views each
    obs = obs[keep]
    mask = np.zeros((len(obs), actions.NUM_ACTIONS), dtype=np.float32)
    for i, row in enumerate(obs.numpy()):
        mask[i, actions.PLAY + np.flatnonzero(row[HAND:HAND + 32])] = 1
    rng = np.random.default_rng(3)
    values = np.where(mask > 0, rng.integers(0, 60, mask.shape), np.nan).astype(np.float32)
    repeat = 64
    data = {"obs": np.repeat(obs.numpy(), repeat, 0), "mask": np.repeat(mask, repeat, 0),
            "action": np.repeat(np.nanargmax(values, 1), repeat, 0), "values": np.repeat(values, repeat, 0),
            "deal": np.repeat(np.arange(len(obs)), repeat)}
    base = load_checkpoint(SHIPPED)
    network, metrics = fit_endgame_expert(base, data, [64], 1, 0.5, 0.5, 12, 32, 3e-3, 0.0, seed=1,
                                          progress=False, features=True, suit_augment=True)
    assert metrics["expert/train_decisions"] == len(data["obs"])
    best = np.nanargmax(values, 1)
    with torch.no_grad():
        for i, g in enumerate(np.array(games)[keep]):
            for view in suit_views(int(g)):
                choice = network.expert_logits(obs[i:i + 1, view.obs_gather])[0]
                choice = torch.where(torch.from_numpy(mask[i][np.argsort(view.action_map)]) > 0, choice, -1e9)
                assert int(choice.argmax()) == view.action_map[best[i]]
