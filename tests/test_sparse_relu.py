"""agents.sparse_relu (a ReLU MLP's forward over the weights of non-zero inputs) against torch's dense one."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoint import load as load_checkpoint
from agents.endgame_expert import EndgameExpertNetwork
from agents.networks import mlp
from agents.sparse_relu import MAX_ROWS, SparseReluForward
from envs.skat.observation import OBSERVATION_SIZE
from tests.test_skat_endgame_features import _play_observations


def _sparse_rows(n: int, size: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    values = torch.rand(n, size, generator=g)
    return values * (torch.rand(n, size, generator=g) < 0.15)


@pytest.mark.parametrize("rows", [1, 3, MAX_ROWS])
def test_the_sparse_forward_is_the_dense_one_up_to_rounding(rows):
    torch.manual_seed(1)
    layers = mlp(120, [64, 64, 48], 20, "relu", out_std=1.0)
    fast = SparseReluForward(layers)
    x = _sparse_rows(rows, 120, seed=rows)
    with torch.no_grad():
        assert fast.applies(x)
        assert torch.allclose(fast(x), layers(x), atol=1e-5, rtol=1e-5)


def test_only_small_batches_without_autograd_take_the_sparse_path():
    fast = SparseReluForward(mlp(8, [4], 2, "relu", out_std=1.0))
    small, big = torch.zeros(MAX_ROWS, 8), torch.zeros(MAX_ROWS + 1, 8)
    assert not fast.applies(small)  # autograd on: training must see the module's own forward
    with torch.no_grad():
        assert fast.applies(small) and not fast.applies(big)


def test_changed_weights_are_read_again():
    torch.manual_seed(2)
    layers = mlp(30, [16], 5, "relu", out_std=1.0)
    fast = SparseReluForward(layers)
    x = _sparse_rows(2, 30, seed=0)
    with torch.no_grad():
        before = fast(x)
        other = mlp(30, [16], 5, "relu", out_std=1.0)
        layers.load_state_dict(other.state_dict())  # in place, as loading a checkpoint does
        assert not torch.allclose(fast(x), before)
        assert torch.allclose(fast(x), other(x), atol=1e-5)
        layers[0].weight.add_(1.0)  # as an optimizer step does
        assert torch.allclose(fast(x), layers(x), atol=1e-5)


def test_other_layers_are_refused():
    with pytest.raises(ValueError, match="Linear, ReLU"):
        SparseReluForward(mlp(8, [4], 2, "tanh", out_std=1.0))


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
    assert torch.allclose(single, batched, atol=1e-4)
    assert torch.equal(single.argmax(1), batched.argmax(1))
