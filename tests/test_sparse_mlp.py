"""agents.sparse_mlp (an MLP's forward over the weights of non-zero inputs) against torch's dense one."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoint import load as load_checkpoint
from agents.endgame_expert import EndgameExpertNetwork
from agents.networks import mlp
from agents.sparse_mlp import MAX_ROWS, SparseInputMLP
from envs.skat.observation import OBSERVATION_SIZE
from tests.test_skat_endgame_features import _play_observations


def _sparse_rows(n: int, size: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    values = torch.rand(n, size, generator=g)
    return values * (torch.rand(n, size, generator=g) < 0.15)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize("rows", [1, 3, MAX_ROWS])
def test_the_sparse_forward_is_the_dense_one_up_to_rounding(rows, activation):
    torch.manual_seed(1)
    layers = mlp(120, [64, 64, 48], 20, activation, out_std=1.0)
    x = _sparse_rows(rows, 120, seed=rows)
    with torch.no_grad():
        before = layers(x)
        fast = SparseInputMLP(layers)  # lays the weights out by input: the module computes the same
        assert torch.allclose(layers(x), before, atol=1e-6)  # (its matrix product may sum in another order)
        assert fast.applies(x)
        assert torch.allclose(fast(x), before, atol=1e-5, rtol=1e-5)


def test_only_small_batches_without_autograd_take_the_sparse_path():
    layers = mlp(8, [4], 2, "relu", out_std=1.0)
    fast = SparseInputMLP(layers)
    small, big = torch.zeros(MAX_ROWS, 8), torch.zeros(MAX_ROWS + 1, 8)
    assert not fast.applies(small)  # autograd on: training must see the module's own forward
    with torch.no_grad():
        assert fast.applies(small) and not fast.applies(big)
        layers[0].weight = torch.nn.Parameter(layers[0].weight.detach().clone())  # no longer the laid-out one
        assert not fast.applies(small)


def test_the_module_trains_and_loads_as_before_and_the_sparse_path_follows():
    torch.manual_seed(2)
    layers = mlp(30, [16], 5, "relu", out_std=1.0)
    fast = SparseInputMLP(layers)
    x = _sparse_rows(2, 30, seed=0)
    optimizer = torch.optim.SGD(layers.parameters(), lr=0.1)
    layers(x).square().sum().backward()
    optimizer.step()  # in place, on the laid-out weights
    with torch.no_grad():
        assert torch.allclose(fast(x), layers(x), atol=1e-5)
        other = mlp(30, [16], 5, "relu", out_std=1.0)
        layers.load_state_dict(other.state_dict())  # in place, as loading a checkpoint does
        assert torch.allclose(fast(x), other(x), atol=1e-5)
        assert all(torch.equal(a, b) for a, b in zip(layers.state_dict().values(), other.state_dict().values(),
                                                     strict=True))


def test_other_layers_are_refused():
    with pytest.raises(ValueError, match="Linear"):
        SparseInputMLP(torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Sigmoid(), torch.nn.Linear(4, 2)))


def test_an_endgame_expert_plays_the_same_cards_one_row_at_a_time():
    base = load_checkpoint("checkpoints/skat_ppo.pt")
    meta = base["metadata"]
    torch.manual_seed(3)
    net = EndgameExpertNetwork(OBSERVATION_SIZE, meta["num_actions"], [64, 64], base=meta["network"], features=True,
                               from_trick=3)
    net.base.load_state_dict(base["policy"])
    for p in net.expert.parameters():
        torch.nn.init.normal_(p, std=0.3)
    obs = torch.from_numpy(np.stack(_play_observations(8, seed=5)))
    assert net.late(obs).sum() > 50
    with torch.no_grad():
        batched = net.policy_logits(obs)  # a batch: torch's dense forward
        single = torch.cat([net.policy_logits(obs[i : i + 1]) for i in range(len(obs))])
        assert torch.allclose(net.base_logits(obs[:1]), net.base.policy_logits(obs[:1]), atol=1e-5)
    assert torch.allclose(single, batched, atol=1e-4)
    assert torch.equal(single.argmax(1), batched.argmax(1))
    saved = net.policy_state_dict()  # stored contiguous, as before the weights were laid out by input
    assert all(v.is_contiguous() for v in saved.values())
    assert torch.equal(saved["base.actor.0.weight"], base["policy"]["actor.0.weight"])
