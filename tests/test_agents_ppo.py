"""Masked PPO: masking helpers, GAE, and that updates learn without ever choosing a masked action."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.networks import (
    ILLEGAL_LOGIT,
    Tanh,
    build_network,
    mask_logits,
    masked_entropy,
    masked_kl,
    masked_log_probs,
    masked_logp_entropy,
    network_spec,
    sample_actions,
)
from agents.ppo import PPO, PPOConfig, compute_gae
from envs.gym import aec_env
from train.opponents import OpponentPool
from train.rollout import RolloutSpec, RolloutWorker

GAME_OPTIONS = {"skat": {}, "thirtyone": {"num_players": 3}}


def test_mask_logits_uses_a_large_finite_negative():
    logits = torch.zeros(2, 4)
    mask = torch.tensor([[1, 0, 1, 0], [0, 0, 0, 0]], dtype=torch.int8)
    masked = mask_logits(logits, mask)
    assert masked[0, 1] == ILLEGAL_LOGIT == -1e8
    assert torch.isfinite(masked).all()
    log_probs = masked_log_probs(logits, mask)
    assert torch.isfinite(log_probs).all()  # even the all-masked row: no NaN
    assert torch.allclose(log_probs[0].exp(), torch.tensor([0.5, 0.0, 0.5, 0.0]))


def test_entropy_counts_legal_actions_only():
    logits = torch.randn(3, 6)
    mask = torch.tensor([[1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 0]])
    entropy = masked_entropy(masked_log_probs(torch.zeros(3, 6), mask), mask)
    assert torch.allclose(entropy, torch.tensor([np.log(2), np.log(6), 0.0], dtype=torch.float32), atol=1e-6)
    assert torch.isfinite(masked_entropy(masked_log_probs(logits, mask), mask)).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_fused_policy_terms_equal_log_softmax_and_entropy(dtype):
    """PPO's loss takes log p(action) and the entropy from masked_logp_entropy, with its gradient
    written out: the same values and gradients as the masked log-softmax, gathered, and masked_entropy."""
    gen = torch.Generator().manual_seed(0)
    logits = (torch.randn(64, 20, generator=gen, dtype=dtype) * 30).requires_grad_()  # spread past exp(-87)
    mask = torch.rand(64, 20, generator=gen) < 0.3
    mask[:, 3] = True
    actions = torch.multinomial(mask.float(), 1, generator=gen).squeeze(1)
    weights = torch.randn(2, 64, generator=gen, dtype=dtype)

    logp, entropy = masked_logp_entropy(logits, mask, actions)
    (weights[0] * logp + weights[1] * entropy).sum().backward()
    grad, logits.grad = logits.grad.clone(), None
    log_probs = masked_log_probs(logits, mask)
    expected_logp = log_probs.gather(1, actions.unsqueeze(1)).squeeze(1)
    expected_entropy = masked_entropy(log_probs, mask)
    (weights[0] * expected_logp + weights[1] * expected_entropy).sum().backward()

    tol = 1e-5 if dtype == torch.float32 else 1e-12
    assert torch.allclose(logp, expected_logp, atol=tol * 30)
    assert torch.allclose(entropy, expected_entropy, atol=tol)
    assert torch.allclose(grad, logits.grad, atol=tol)
    assert (grad[~mask] == 0).all()  # nothing flows to an illegal action


def test_the_fused_policy_terms_pass_gradcheck_and_stay_finite_without_legal_actions():
    gen = torch.Generator().manual_seed(1)
    logits = torch.randn(8, 6, generator=gen, dtype=torch.float64, requires_grad=True)
    mask = torch.rand(8, 6, generator=gen) < 0.5
    mask[:, 0] = True
    actions = torch.multinomial(mask.double(), 1, generator=gen).squeeze(1)
    assert torch.autograd.gradcheck(lambda x: masked_logp_entropy(x, mask, actions), (logits,))
    none = torch.zeros(2, 6, dtype=torch.bool)
    logp, entropy = masked_logp_entropy(torch.randn(2, 6), none, torch.tensor([0, 5]))
    assert torch.isfinite(logp).all() and torch.isfinite(entropy).all()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_the_fused_policy_terms_and_tanh_work_in_half_precision(dtype):
    gen = torch.Generator().manual_seed(3)
    logits, mask = torch.randn(16, 9, generator=gen), torch.rand(16, 9, generator=gen) < 0.5
    mask[:, 2] = True
    actions = torch.full((16,), 2)
    logp, entropy = masked_logp_entropy(logits.to(dtype), mask, actions)
    expected = masked_log_probs(logits, mask)[:, 2]
    assert torch.isfinite(entropy).all() and torch.allclose(logp.float(), expected, atol=0.05)
    assert torch.allclose(Tanh()(logits.to(dtype)).float(), torch.tanh(logits), atol=0.01)


def test_tanh_matches_torch_and_its_gradient():
    gen = torch.Generator().manual_seed(2)
    wide = torch.randn(300, 128, generator=gen) * 4
    view = wide[:, :64]  # the actor's half of a fused first layer: not contiguous
    assert torch.allclose(Tanh()(view), torch.tanh(view), atol=2e-7)
    with torch.no_grad():
        assert torch.allclose(Tanh()(wide), torch.tanh(wide), atol=2e-7)
    x = torch.randn(20, 7, generator=gen, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(Tanh(), (x,))


def test_kl_counts_legal_actions_only():
    mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
    uniform = masked_log_probs(torch.zeros(2, 4), mask)
    skewed = masked_log_probs(torch.tensor([[0.0, 1.0, 9.0, 9.0], [0.0, 1.0, 2.0, 3.0]]), mask)
    p = skewed[0, :2].exp()
    assert torch.allclose(masked_kl(skewed, uniform, mask)[0], (p * (p.log() - np.log(0.5))).sum(), atol=1e-6)
    assert torch.allclose(masked_kl(uniform, uniform, mask), torch.zeros(2))
    assert (masked_kl(uniform, skewed, mask) > 0).all()


def test_sampling_never_picks_a_masked_action():
    rng = np.random.default_rng(0)
    logits = torch.tensor(rng.normal(size=(500, 10)) * 20, dtype=torch.float32)
    mask = torch.tensor(rng.random((500, 10)) < 0.3)
    mask[:, 3] = True
    actions = sample_actions(masked_log_probs(logits, mask), rng)
    assert mask[np.arange(500), actions].all()


@pytest.mark.parametrize("num_actions", [57, 162])
def test_sampling_draws_what_numpys_gumbel_max_draws(num_actions):
    """The compiled draw (noise for legal actions only) gives the plain formula's actions, bit for bit,
    and leaves the generator where numpy's Gumbel leaves it."""
    gen = torch.Generator().manual_seed(num_actions)
    for trial in range(40):
        rows = 1 + trial * 13
        logits = torch.randn(rows, num_actions, generator=gen) * (0.1 + trial)
        mask = torch.rand(rows, num_actions, generator=gen) < (trial + 1) / 41
        mask[torch.arange(rows), torch.randint(0, num_actions, (rows,), generator=gen)] = True
        if trial % 5 == 0:
            mask[0] = False  # no legal action: every entry competes, as in the formula
        log_probs = masked_log_probs(logits, mask)
        plain, compiled = np.random.default_rng(trial), np.random.default_rng(trial)
        expected = (log_probs.numpy() + plain.gumbel(size=(rows, num_actions)).astype(np.float32)).argmax(axis=1)
        assert (sample_actions(log_probs, compiled) == expected).all()
        assert plain.random() == compiled.random()
    double = masked_log_probs(torch.randn(4, num_actions), torch.ones(4, num_actions, dtype=torch.bool)).double()
    assert sample_actions(double, np.random.default_rng(0)).shape == (4,)  # other dtypes: numpy's formula


def test_gae_on_two_trajectories():
    rewards = np.array([0.0, 1.0, 0.0, 0.0, -1.0], dtype=np.float32)
    values = np.array([0.5, 0.5, 0.2, 0.1, 0.0], dtype=np.float32)
    dones = np.array([False, True, False, False, True])
    adv, ret = compute_gae(rewards, values, dones, gamma=1.0, gae_lambda=1.0)
    # lambda = gamma = 1: returns are the undiscounted rewards-to-go of each trajectory
    assert np.allclose(ret, [1.0, 1.0, -1.0, -1.0, -1.0])
    assert np.allclose(adv, ret - values)
    adv0, ret0 = compute_gae(rewards, values, dones, gamma=0.9, gae_lambda=0.0)
    assert np.allclose(ret0, rewards + 0.9 * np.array([0.5, 0.0, 0.1, 0.0, 0.0]))  # one-step TD targets


def test_compiled_gae_gives_the_bits_of_the_python_loop():
    """The compiled loop against the plain Python loop on float32 scalars (the oracle here); float64
    inputs are computed in float32."""
    rng = np.random.default_rng(0)
    for _trial in range(50):
        n = int(rng.integers(1, 2000))
        rewards = (rng.normal(size=n) * (rng.random(n) < 0.2) * 3).astype(np.float32)
        values = rng.normal(size=n).astype(np.float32)
        dones = rng.random(n) < 0.1
        dones[-1] = True
        gamma, gae_lambda = float(rng.choice([0.0, 0.9, 0.99, 1.0])), float(rng.choice([0.0, 0.95, 1.0]))
        adv, ret = compute_gae(rewards, values, dones, gamma, gae_lambda)
        # the Python loop on float32 scalars, as it ran before the compiled one
        want = np.zeros(n, np.float32)
        last_gae, next_value = 0.0, 0.0
        for t in range(n - 1, -1, -1):
            nonterminal = 0.0 if dones[t] else 1.0
            delta = rewards[t] + gamma * next_value * nonterminal - values[t]
            last_gae = delta + gamma * gae_lambda * nonterminal * last_gae
            want[t] = last_gae
            next_value = values[t]
        assert adv.dtype == ret.dtype == np.float32
        assert np.array_equal(adv, want) and np.array_equal(ret, want + values)
        adv64, _ = compute_gae(rewards.astype(np.float64), values.astype(np.float64), dones, gamma, gae_lambda)
        assert np.allclose(adv64, adv, atol=1e-4)


def _worker(game: str, spec: dict, seed: int = 0) -> RolloutWorker:
    return RolloutWorker(RolloutSpec(game, GAME_OPTIONS[game], 4, "ppo", spec, {**spec, "kind": "policy"},
                                     learner_seats=1, num_steps=12, reward_scale=0.01, seed=seed))


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_ppo_updates_change_weights_and_respect_masks(game):
    torch.manual_seed(0)
    env = aec_env(game, **GAME_OPTIONS[game])
    seat = env.possible_agents[0]
    spec = network_spec("actor_critic", env.observation_space(seat)["observation"].shape[0],
                        env.action_space(seat).n, [32, 32], "tanh")
    learner = PPO(spec, PPOConfig(learning_rate=1e-3, update_epochs=2, num_minibatches=2))
    worker = _worker(game, spec)
    worker.network.load_state_dict(learner.network.state_dict())
    before = {k: v.clone() for k, v in learner.network.state_dict().items()}
    pool = OpponentPool({"random": 1.0, "self": 1.0}, 4, "uniform")
    rng = np.random.default_rng(0)
    worker.sync(pool.plan(), {})
    for update in range(3):
        batch, episodes = worker.collect(update, 0, [0, 1, 2, 3])
        assert len(batch["action"]) >= 4 * 12 and episodes
        assert batch["mask"][np.arange(len(batch["action"])), batch["action"]].all(), "picked a masked action"
        assert batch["done"][-1] and np.isfinite(batch["logp"]).all()
        metrics = learner.update(batch, progress=update / 3, rng=rng)
        assert all(np.isfinite(v) for k, v in metrics.items() if k != "losses/explained_variance")
        worker.network.load_state_dict(learner.network.state_dict())
    after = learner.network.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    # The playing part rebuilds as a policy-only network with the same logits.
    spec_p, state_p = learner.policy()
    policy = build_network(spec_p)
    policy.load_state_dict(state_p)
    obs = torch.from_numpy(batch["obs"][:5])
    assert torch.equal(policy.policy_logits(obs), learner.network.policy_logits(obs))


def test_learning_rate_anneals():
    spec = network_spec("actor_critic", 4, 3, [8], "tanh")
    learner = PPO(spec, PPOConfig(learning_rate=1e-3, update_epochs=1, num_minibatches=1))
    batch = {"obs": np.zeros((4, 4), np.float32), "mask": np.ones((4, 3), bool), "action": np.zeros(4, np.int64),
             "reward": np.ones(4, np.float32), "done": np.array([0, 1, 0, 1], bool),
             "logp": np.full(4, np.log(1 / 3), np.float32), "value": np.zeros(4, np.float32)}
    rng = np.random.default_rng(0)
    assert learner.update(batch, 0.0, rng)["charts/learning_rate"] == pytest.approx(1e-3)
    assert learner.update(batch, 0.75, rng)["charts/learning_rate"] == pytest.approx(2.5e-4)
