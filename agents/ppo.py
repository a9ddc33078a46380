"""Masked PPO, CleanRL-style: read it top to bottom.

The trainer (``train/``) collects whole episodes per learner seat with :meth:`PPO.act` and
hands them to :meth:`PPO.update` as one flat batch of numpy arrays, ordered so that every
seat's trajectory is contiguous and ends with ``done = True``::

    obs     (T, obs_size) float32   observation of the acting seat
    mask    (T, num_actions) bool   its legal actions, stored so the update re-applies them
    action  (T,) int64
    reward  (T,) float32            scaled reward that reached the seat after this action
    done    (T,) bool               last decision of the seat in its episode
    logp    (T,) float32            log-probability of the action when it was taken

The critic's values are computed at the start of the update, in one pass over the batch: the
weights are still those that collected it, so they are the values of collection time, without a
second network in every acting step. The update runs on :mod:`agents.sparse` batches when the
observations are mostly zeros (Thirty-One's are). Masking (illegal logit -1e8, entropy over legal
actions only) is done by ``agents.networks``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numba import njit
from torch import nn

from agents.legal_head import LegalRows, sample_legal, use_compact
from agents.networks import adam, build_network, masked_log_probs, masked_logp_entropy, run_layers, sample_actions
from agents.sparse import observation_batch


@dataclass
class PPOConfig:
    """PPO hyperparameters (the ``ppo:`` section of a training config). CleanRL defaults."""

    learning_rate: float = 2.5e-4
    anneal_lr: bool = True  # linearly to 0 over total_timesteps
    gamma: float = 0.99
    gae_lambda: float = 0.95
    update_epochs: int = 4
    num_minibatches: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None  # stop the epochs early once approx_kl exceeds it

    def problems(self) -> dict[str, str]:
        """Values outside their range, by key (the config loader reports them as errors)."""
        out = {}
        for key in ("learning_rate", "clip_coef"):
            if not getattr(self, key) > 0:
                out[key] = f"must be > 0, got {getattr(self, key)}"
        for key in ("update_epochs", "num_minibatches"):
            if getattr(self, key) < 1:
                out[key] = f"must be at least 1, got {getattr(self, key)}"
        for key in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                out[key] = f"must be in [0, 1], got {getattr(self, key)}"
        for key in ("ent_coef", "vf_coef", "max_grad_norm"):
            if getattr(self, key) < 0:
                out[key] = f"must be >= 0, got {getattr(self, key)}"
        if self.target_kl is not None and not self.target_kl > 0:
            out["target_kl"] = f"must be > 0 or null, got {self.target_kl}"
        return out


def compute_gae(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, gamma: float, gae_lambda: float
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimation over contiguous trajectories; returns (advantages, returns).

    Trajectories are complete episodes, so the value after a ``done`` step is 0 (no bootstrap). In
    float32 (PPO's batches are), as a compiled loop: the bits the plain Python loop over float32
    scalars gives, 200x faster (``tests/test_agents_ppo.py`` checks it against that loop).
    """
    rewards = np.ascontiguousarray(rewards, dtype=np.float32)
    values = np.ascontiguousarray(values, dtype=np.float32)
    advantages = np.empty_like(rewards)
    _gae_float32(rewards, values, np.asarray(dones, dtype=bool), float(gamma), float(gae_lambda), advantages)
    return advantages, advantages + values


@njit(cache=True, nogil=True)
def _gae_float32(rewards, values, dones, gamma, gae_lambda, advantages):  # pragma: no cover
    # The Python loop's arithmetic on float32 scalars: NumPy casts a Python float that meets one to
    # float32 first (NEP 50), and gamma * gae_lambda * nonterminal is a Python product before that.
    last_gae = np.float32(0.0)
    next_value = np.float32(0.0)
    gamma32 = np.float32(gamma)
    for t in range(len(rewards) - 1, -1, -1):
        nonterminal = 0.0 if dones[t] else 1.0
        delta = rewards[t] + (gamma32 * next_value) * np.float32(nonterminal) - values[t]
        last_gae = delta + np.float32(gamma * gae_lambda * nonterminal) * last_gae
        advantages[t] = last_gae
        next_value = values[t]


class PPO:
    """The learner: an actor-critic network, its Adam optimiser and the clipped-objective update."""

    name = "ppo"
    Config = PPOConfig
    network_kind = "actor_critic"

    def __init__(self, network_spec: dict[str, Any], cfg: PPOConfig) -> None:
        self.cfg = cfg
        self.network: nn.Module = build_network(network_spec)
        self.optimizer = adam(self.network.parameters(), lr=cfg.learning_rate, eps=1e-5)

    # --- acting (also run in rollout workers on a copy of ``network``) -------------------------

    @staticmethod
    @torch.no_grad()
    def act(
        network: nn.Module, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Sample one legal action per row; the extra ``logp`` goes into the batch."""
        head = network.actor[-1]
        if head.weight.dtype == torch.float32 and use_compact(mask, head.weight):  # the legal logits only
            hidden = run_layers(network.actor, torch.from_numpy(obs), 0, -1)
            actions, logp = sample_legal(hidden, head.weight, head.bias, mask, rng)
            return actions, {"logp": logp}
        log_probs = masked_log_probs(network.policy_logits(torch.from_numpy(obs)), torch.from_numpy(mask))
        actions = sample_actions(log_probs, rng)
        logp = log_probs.numpy()[np.arange(len(actions)), actions]
        return actions, {"logp": logp.astype(np.float32)}

    # --- learning -------------------------------------------------------------------------------

    def update(self, batch: dict[str, np.ndarray], progress: float, rng: np.random.Generator) -> dict[str, float]:
        """One PPO update on a rollout batch; ``progress`` in [0, 1] drives LR annealing."""
        cfg = self.cfg
        lr = cfg.learning_rate * max(0.0, 1.0 - progress) if cfg.anneal_lr else cfg.learning_rate
        for group in self.optimizer.param_groups:
            group["lr"] = lr

        b_obs = observation_batch(batch["obs"])  # sparse when mostly zeros
        with torch.no_grad():
            values = self.network.value(b_obs).numpy()
        advantages, returns = compute_gae(batch["reward"], values, batch["done"], cfg.gamma, cfg.gae_lambda)
        b_mask = torch.from_numpy(batch["mask"])
        compact = use_compact(batch["mask"], next(self.network.parameters()))
        legal = LegalRows.from_mask(batch["mask"], batch["action"]) if compact else None
        b_actions = torch.from_numpy(batch["action"]).long()
        b_logp = torch.from_numpy(batch["logp"])
        b_values = torch.from_numpy(values)
        b_advantages = torch.from_numpy(advantages)
        b_returns = torch.from_numpy(returns)

        batch_size = len(b_actions)
        minibatch_size = math.ceil(batch_size / cfg.num_minibatches)
        clipfracs: list[float] = []
        for _epoch in range(cfg.update_epochs):
            order = rng.permutation(batch_size)
            for start in range(0, batch_size, minibatch_size):
                mb = torch.from_numpy(np.sort(order[start : start + minibatch_size]))  # ascending: memory order
                # index_select copies whole rows: about 5x faster than tensor[mb] on CPU
                mb_logp, mb_advantages, mb_returns, mb_values, mb_actions = (
                    t.index_select(0, mb) for t in (b_logp, b_advantages, b_returns, b_values, b_actions))
                mb_obs = b_obs.index_select(0, mb)

                if legal is None:
                    logits, new_value = self.network.evaluate(mb_obs)
                    new_logp, entropy = masked_logp_entropy(logits, b_mask.index_select(0, mb), mb_actions)
                else:  # the policy head on the legal actions only: the same numbers, a fraction of the work
                    new_logp, entropy, new_value = self.network.evaluate_legal(mb_obs, legal.index_select(0, mb))
                log_ratio = new_logp - mb_logp
                ratio = log_ratio.exp()

                with torch.no_grad():
                    old_approx_kl = (-log_ratio).mean()
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())

                if cfg.norm_adv and len(mb) > 1:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                # Policy loss: the clipped surrogate objective
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss, optionally clipped around the old value estimate
                if cfg.clip_vloss:
                    v_loss_unclipped = (new_value - mb_returns) ** 2
                    v_clipped = mb_values + torch.clamp(new_value - mb_values, -cfg.clip_coef, cfg.clip_coef)
                    v_loss_clipped = (v_clipped - mb_returns) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((new_value - mb_returns) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - cfg.ent_coef * entropy_loss + v_loss * cfg.vf_coef

                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.network.parameters(), cfg.max_grad_norm)
                self.optimizer.step()

            if cfg.target_kl is not None and approx_kl.item() > cfg.target_kl:
                break

        y_pred, y_true = values, returns
        var_y = np.var(y_true)
        explained_var = float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)
        return {
            "charts/learning_rate": lr,
            "losses/value_loss": v_loss.item(),
            "losses/policy_loss": pg_loss.item(),
            "losses/entropy": entropy_loss.item(),
            "losses/old_approx_kl": old_approx_kl.item(),
            "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs)),
            "losses/explained_variance": explained_var,
        }

    # --- checkpointing ---------------------------------------------------------------------------

    def policy(self) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
        """The playing network (the actor): spec and weights, as checkpoints and snapshots keep it."""
        return self.network.policy_spec(), self.network.policy_state_dict()

    def state_dict(self) -> dict[str, Any]:
        return {"network": self.network.state_dict(), "optimizer": self.optimizer.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.network.load_state_dict(state["network"])
        self.optimizer.load_state_dict(state["optimizer"])
