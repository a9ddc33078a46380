"""The sparse first layer gives the dense layer's numbers: rows, transposes, products, gradients, PPO."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import agents.sparse as sparse
from agents.networks import build_network
from agents.ppo import PPO, PPOConfig
from agents.sparse import SparseRows, observation_batch


def random_obs(rng: np.random.Generator, rows: int, cols: int, density: float) -> np.ndarray:
    values = rng.normal(size=(rows, cols)).astype(np.float32)
    return np.where(rng.random((rows, cols)) < density, values, 0.0).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 40), cols=st.integers(1, 70), density=st.sampled_from([0.0, 0.03, 0.3, 1.0]),
       seed=st.integers(0, 2**16))
def test_rows_and_row_selection_match_the_dense_batch(rows: int, cols: int, density: float, seed: int):
    rng = np.random.default_rng(seed)
    obs = random_obs(rng, rows, cols, density)
    batch = SparseRows.from_dense(obs)
    assert len(batch) == rows
    assert torch.equal(batch.to_dense(), torch.from_numpy(obs))
    pick = rng.integers(rows, size=rng.integers(1, 2 * rows + 1))  # any order, repeats allowed
    chosen = batch[torch.from_numpy(pick)]
    assert torch.equal(chosen.to_dense(), torch.from_numpy(obs[pick]))


@pytest.mark.parametrize("density", [0.0, 0.02, 0.5])
def test_linear_forward_and_gradients_match_the_dense_product(density: float):
    rng = np.random.default_rng(1)
    obs = random_obs(rng, 33, 90, density)
    weight = torch.randn(7, 90, requires_grad=True)
    bias = torch.randn(7, requires_grad=True)
    grads = []
    for inputs in (torch.from_numpy(obs), SparseRows.from_dense(obs)):
        out = sparse.linear(inputs, weight, bias)
        (out.tanh() * torch.arange(7.0)).sum().backward()
        grads.append((out.detach(), weight.grad.clone(), bias.grad.clone()))
        weight.grad = bias.grad = None
    for dense, sparse_ in zip(*grads, strict=True):
        assert torch.allclose(dense, sparse_, atol=1e-5)


def test_linear_passes_gradcheck_in_float64():
    obs = random_obs(np.random.default_rng(7), 9, 30, 0.2)
    weight = torch.randn(4, 30, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(4, dtype=torch.float64, requires_grad=True)
    rows = SparseRows.from_dense(obs)
    assert torch.autograd.gradcheck(lambda w, b: sparse.linear(rows, w, b), (weight, bias))
    assert torch.allclose(sparse.linear(rows, weight, bias), torch.from_numpy(obs).double() @ weight.T + bias)


def test_observation_batch_is_sparse_only_for_mostly_zero_observations():
    rng = np.random.default_rng(2)
    assert isinstance(observation_batch(random_obs(rng, 50, 200, 0.02)), SparseRows)
    assert isinstance(observation_batch(np.zeros((4, 10), np.float32)), SparseRows)
    dense = observation_batch(random_obs(rng, 50, 200, 0.5))
    assert isinstance(dense, torch.Tensor) and dense.shape == (50, 200)


def test_actor_critic_evaluate_matches_its_actor_and_critic():
    spec = {"kind": "actor_critic", "obs_size": 120, "num_actions": 9, "hidden": [16, 8], "activation": "relu"}
    torch.manual_seed(0)
    net = build_network(spec)
    obs = random_obs(np.random.default_rng(3), 25, 120, 0.05)
    logits, values = net.policy_logits(torch.from_numpy(obs)), net.value(torch.from_numpy(obs))
    for inputs in (torch.from_numpy(obs), SparseRows.from_dense(obs)):
        got_logits, got_values = net.evaluate(inputs)
        assert torch.allclose(got_logits, logits, atol=1e-5) and torch.allclose(got_values, values, atol=1e-5)
    rows = SparseRows.from_dense(obs)  # the critic alone (PPO's values): the bits of the joint product
    assert torch.equal(net.value(rows), net.evaluate(rows)[1])


def test_ppo_update_on_sparse_and_dense_batches_learns_the_same(monkeypatch: pytest.MonkeyPatch):
    spec = {"kind": "actor_critic", "obs_size": 200, "num_actions": 6, "hidden": [32, 32], "activation": "tanh"}
    rng = np.random.default_rng(4)
    obs = random_obs(rng, 64, 200, 0.03)
    mask = rng.random((64, 6)) < 0.6
    mask[:, 0] = True
    done = np.zeros(64, bool)
    done[15::16] = True
    batch = {"obs": obs, "mask": mask, "action": np.zeros(64, np.int64), "done": done,
             "reward": rng.normal(size=64).astype(np.float32), "logp": np.full(64, -1.5, np.float32)}
    learned = []
    for threshold in (0.0, 1.0):  # 0: always dense; 1: always sparse
        monkeypatch.setattr(sparse, "SPARSE_BELOW", threshold)
        torch.manual_seed(5)
        ppo = PPO(spec, PPOConfig(update_epochs=2, num_minibatches=2))
        metrics = ppo.update(batch, 0.0, np.random.default_rng(6))
        learned.append((metrics, ppo.network.state_dict()))
    (dense_metrics, dense_weights), (sparse_metrics, sparse_weights) = learned
    for key, value in dense_weights.items():
        assert torch.allclose(value, sparse_weights[key], atol=1e-5), key
    assert dense_metrics["losses/value_loss"] == pytest.approx(sparse_metrics["losses/value_loss"], rel=1e-4)
