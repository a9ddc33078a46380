"""PPO's policy head on the legal actions only gives the dense head's numbers: values, gradients, PPO."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import agents.ppo as ppo_module
from agents.gumbel import gumbel_argmax
from agents.legal_head import COMPACT_BELOW, LegalRows, legal_logp_entropy, sample_legal, use_compact
from agents.networks import ILLEGAL_LOGIT, build_network, masked_log_probs, masked_logp_entropy
from agents.ppo import PPO, PPOConfig
from agents.sparse import SparseRows


def random_case(seed: int, rows: int, actions: int, width: int, dtype: torch.dtype, legal_share: float = 0.2,
                scale: float = 1.0) -> tuple[torch.Tensor, torch.nn.Linear, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    hidden = (torch.randn(rows, width, dtype=dtype) * scale).requires_grad_()
    head = torch.nn.Linear(width, actions).to(dtype)
    mask = rng.random((rows, actions)) < legal_share
    mask[rng.integers(rows, size=max(1, rows // 4)), :] = False  # some rows: a single legal action
    mask[np.arange(rows), rng.integers(actions, size=rows)] = True
    taken = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
    return hidden, head, mask, taken


def both_heads(hidden: torch.Tensor, head: torch.nn.Linear, mask: np.ndarray, taken: np.ndarray
               ) -> list[tuple[torch.Tensor, ...]]:
    """(logp, entropy, grad hidden, grad weight, grad bias) of the dense and the compact head, for the
    same mixture of the two outputs."""
    weights = torch.randn(2, len(mask), dtype=hidden.dtype, generator=torch.Generator().manual_seed(9))
    results = []
    for compact in (False, True):
        hidden.grad = head.weight.grad = head.bias.grad = None
        if compact:
            logp, entropy = legal_logp_entropy(hidden, head.weight, head.bias, LegalRows.from_mask(mask, taken))
        else:
            logp, entropy = masked_logp_entropy(head(hidden), torch.from_numpy(mask), torch.from_numpy(taken))
        (weights[0] * logp + weights[1] * entropy).sum().backward()
        results.append((logp.detach(), entropy.detach(), hidden.grad.clone(), head.weight.grad.clone(),
                        head.bias.grad.clone()))
    return results


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("scale", [1.0, 30.0])  # 30: logits spread past exp(-87)
def test_the_legal_head_equals_the_dense_head_in_values_and_gradients(dtype, scale):
    hidden, head, mask, taken = random_case(0, 97, 162, 24, dtype, scale=scale)
    dense, compact = both_heads(hidden, head, mask, taken)
    tol = 2e-5 * scale if dtype == torch.float32 else 1e-11 * scale
    for name, want, got in zip(("logp", "entropy", "grad hidden", "grad weight", "grad bias"), dense, compact,
                               strict=True):
        assert torch.allclose(got, want, atol=tol, rtol=1e-4 if dtype == torch.float32 else 1e-9), name
        assert got.dtype == dtype
    assert (compact[3][~mask.any(axis=0)] == 0).all()  # an action never legal gets no gradient


def test_the_legal_head_passes_gradcheck():
    hidden, head, mask, taken = random_case(1, 9, 7, 5, torch.float64, legal_share=0.4)
    legal = LegalRows.from_mask(mask, taken)
    weight = head.weight.detach().clone().requires_grad_()
    bias = head.bias.detach().clone().requires_grad_()
    assert torch.autograd.gradcheck(lambda h, w, b: legal_logp_entropy(h, w, b, legal), (hidden, weight, bias))


def test_a_row_without_legal_actions_counts_every_action_as_legal_as_the_dense_head_does():
    hidden, head, mask, taken = random_case(2, 6, 5, 4, torch.float32)
    mask[2] = False
    dense, compact = both_heads(hidden, head, mask, taken)
    for want, got in zip(dense, compact, strict=True):
        assert torch.isfinite(got).all() and torch.allclose(got, want, atol=1e-5)


def test_a_taken_action_outside_its_mask_is_refused_with_the_row():
    mask = np.array([[True, False, True], [False, True, False]])
    with pytest.raises(ValueError, match=r"not legal under its row's mask in 1 rows \(first: row 1, action 2\)"):
        LegalRows.from_mask(mask, np.array([0, 2]))


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 30), actions=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_a_minibatch_of_legal_rows_is_the_legal_rows_of_the_minibatch(rows: int, actions: int, seed: int):
    rng = np.random.default_rng(seed)
    mask = rng.random((rows, actions)) < 0.3
    mask[np.arange(rows), rng.integers(actions, size=rows)] = True
    taken = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
    pick = rng.integers(rows, size=rng.integers(1, 2 * rows + 1))  # any order, repeats allowed
    chosen = LegalRows.from_mask(mask, taken).index_select(0, torch.from_numpy(pick))
    direct = LegalRows.from_mask(mask[pick], taken[pick])
    assert torch.equal(chosen.rows.to_dense(), direct.rows.to_dense())
    assert torch.equal(chosen.rows.to_dense(), torch.from_numpy(mask[pick]))
    assert np.array_equal(chosen.taken, direct.taken)
    flat = chosen.rows.starts + chosen.taken
    assert np.array_equal(chosen.rows.col[flat], taken[pick])  # the position points at the taken action


def test_the_compact_head_is_used_for_sparse_masks_on_cpu_in_float32_or_float64():
    few = np.zeros((10, 40), bool)
    few[:, :3] = True
    many = np.ones((10, 40), bool)
    assert use_compact(few, torch.zeros(1)) and use_compact(few, torch.zeros(1, dtype=torch.float64))
    assert not use_compact(many, torch.zeros(1)) and many.mean() >= COMPACT_BELOW
    assert not use_compact(few, torch.zeros(1, dtype=torch.float16))
    assert not use_compact(few, torch.zeros(1, device="meta"))


@pytest.mark.parametrize("sparse_obs", [False, True])
def test_ppo_update_with_the_legal_head_learns_what_the_dense_head_learns(monkeypatch: pytest.MonkeyPatch,
                                                                          sparse_obs: bool):
    spec = {"kind": "actor_critic", "obs_size": 150, "num_actions": 40, "hidden": [32, 16], "activation": "tanh"}
    rng = np.random.default_rng(4)
    obs = np.where(rng.random((96, 150)) < (0.04 if sparse_obs else 0.5), 1.0, 0.0).astype(np.float32)
    mask = rng.random((96, 40)) < 0.08
    mask[np.arange(96), rng.integers(40, size=96)] = True
    done = np.zeros(96, bool)
    done[23::24] = True
    batch = {"obs": obs, "mask": mask, "action": np.array([rng.choice(np.flatnonzero(row)) for row in mask]),
             "done": done, "reward": rng.normal(size=96).astype(np.float32),
             "logp": np.full(96, -1.2, np.float32)}
    learned = []
    for compact in (False, True):
        monkeypatch.setattr(ppo_module, "use_compact", lambda mask, weight, compact=compact: compact)
        torch.manual_seed(5)
        ppo = PPO(spec, PPOConfig(update_epochs=2, num_minibatches=3, ent_coef=0.01))
        metrics = ppo.update(batch, 0.0, np.random.default_rng(6))
        learned.append((metrics, ppo.network.state_dict()))
    (dense_metrics, dense_weights), (compact_metrics, compact_weights) = learned
    assert not torch.equal(dense_weights["actor.4.weight"], build_network(spec).state_dict()["actor.4.weight"])
    for key, value in dense_weights.items():
        assert torch.allclose(value, compact_weights[key], atol=1e-5), key
    for key in ("losses/policy_loss", "losses/entropy", "losses/value_loss", "losses/approx_kl"):
        assert dense_metrics[key] == pytest.approx(compact_metrics[key], rel=1e-4, abs=1e-7), key


def test_legal_rows_keep_the_sparse_rows_of_the_mask():
    mask = np.array([[False, True, True], [True, False, False]])
    legal = LegalRows.from_mask(mask, np.array([2, 0]))
    assert isinstance(legal.rows, SparseRows) and len(legal) == 2
    assert legal.rows.starts.tolist() == [0, 2] and legal.rows.ends.tolist() == [2, 3]
    assert legal.rows.col.tolist() == [1, 2, 0]
    assert legal.taken.tolist() == [1, 0]


@pytest.mark.parametrize("legal_share", [0.05, 0.3])
def test_sampling_on_the_legal_logits_draws_what_the_dense_head_draws(legal_share):
    """PPO's acting: the dense Gumbel-max draw, given the same uniform numbers at the legal places,
    picks the same actions up to float rounding (the legal logits are summed in another order, so a
    near-tie may fall the other way: the drawn action is then within rounding of the best perturbed
    value), and the log-probabilities are the dense head's."""
    hidden, head, mask, _ = random_case(3, 400, 162, 32, torch.float32, legal_share=legal_share, scale=3.0)
    mask[7] = False  # no legal action: drawn from all, as the dense draw does
    with torch.no_grad():
        log_probs = masked_log_probs(head(hidden), torch.from_numpy(mask))
    got, logp = sample_legal(hidden.detach(), head.weight, head.bias, mask, np.random.default_rng(11))
    drawn_at = mask.copy()
    drawn_at[7] = True
    uniforms = np.full(mask.shape, 0.5)
    uniforms[drawn_at] = np.random.default_rng(11).random(size=int(drawn_at.sum()))  # row by row, in order
    want = np.empty(len(mask), np.int64)
    gumbel_argmax(log_probs.numpy(), uniforms, ILLEGAL_LOGIT / 2, want)
    rows = np.arange(len(got))
    assert (got == want).mean() >= 0.99
    perturbed = log_probs.numpy().astype(np.float64) - np.log(-np.log(1.0 - uniforms))
    assert np.all((perturbed[rows, got] >= perturbed[rows, want] - 1e-4)[rows != 7])
    assert mask[rows != 7, got[rows != 7]].all()
    assert logp.dtype == np.float32
    assert np.allclose(logp, log_probs.numpy()[rows, got], atol=1e-5)


def test_sampling_on_the_legal_logits_follows_the_policy():
    """Over many draws each legal action comes up as often as its probability says."""
    torch.manual_seed(4)
    hidden, head = torch.randn(1, 8), torch.nn.Linear(8, 20)
    mask = np.zeros((1, 20), bool)
    mask[0, [2, 5, 11, 19]] = True
    with torch.no_grad():
        probs = masked_log_probs(head(hidden), torch.from_numpy(mask)).exp().numpy()[0]
    rng = np.random.default_rng(0)
    counts = np.zeros(20)
    for _ in range(200):
        actions, _ = sample_legal(hidden.expand(100, 8), head.weight, head.bias, mask.repeat(100, 0), rng)
        counts += np.bincount(actions, minlength=20)
    assert counts[~mask[0]].sum() == 0
    assert np.abs(counts / counts.sum() - probs).max() < 0.01  # 20,000 draws: a few standard errors


def test_ppo_acts_with_the_legal_head_and_keeps_its_log_probabilities():
    spec = {"kind": "actor_critic", "obs_size": 30, "num_actions": 50, "hidden": [16, 16], "activation": "tanh"}
    torch.manual_seed(0)
    network = build_network(spec)
    rng = np.random.default_rng(1)
    obs = rng.normal(size=(64, 30)).astype(np.float32)
    mask = rng.random((64, 50)) < 0.1
    mask[:, 0] = True
    actions, extra = PPO.act(network, obs, mask, np.random.default_rng(2))
    with torch.no_grad():
        log_probs = masked_log_probs(network.policy_logits(torch.from_numpy(obs)), torch.from_numpy(mask))
    hidden = network.actor[:-1](torch.from_numpy(obs)).detach()
    head = network.actor[-1]
    assert np.array_equal(actions, sample_legal(hidden, head.weight, head.bias, mask, np.random.default_rng(2))[0])
    assert mask[np.arange(64), actions].all()
    assert np.allclose(extra["logp"], log_probs.numpy()[np.arange(64), actions], atol=1e-5)
