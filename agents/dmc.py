"""Deep Monte-Carlo (DMC), as in DouZero (Zha et al., ICML 2021) and SkatZero: Q-values regressed on
Monte-Carlo returns, epsilon-greedy self-play, one network per role.

* **The Q-network** (:class:`RoleQNetwork`) maps an observation to one Q-value per action of the
  game's action table. A head over the whole table is the same function class as DouZero's
  "observation + one-hot action features" input, evaluated for every action in one pass. There is
  one MLP per *role*, chosen by the game's description from the observation itself
  (``envs.games.GameDescription.role_of``): Skat has four, as SkatZero splits its models by seat
  relative to the declarer (before the declaration, declarer, the defender after the declarer,
  the defender before it); Thirty-One has one.
* **Acting:** the legal action with the highest Q-value, a uniformly random legal action with
  probability ``epsilon`` (DouZero's exploration). Opponents built from the learner's weights
  (``self``, ``snapshot``) and shipped checkpoints play greedily (the network says so:
  ``plays_greedy``).
* **Learning:** every decision of a batch is a target: its return from there to the end of the
  episode (discounted by ``gamma``, 1 by default: the reward is paid when the deal ends). The loss is
  the mean squared error of Q(s, a) on the taken action, over ``update_epochs`` passes in
  minibatches, with RMSprop as DouZero uses it. No bootstrapping, no target network: card games are
  short, and Monte-Carlo targets are unbiased.

Select it with ``algorithm: dmc`` (config section ``dmc:``); the trainer, checkpoints, ``agents.load``
and evaluation treat it like PPO and NFSP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks import ACTIVATIONS, NETWORKS, build_network, mask_logits, mlp, run_layers


@dataclass
class DMCConfig:
    """DMC hyperparameters (the ``dmc:`` section of a training config). DouZero's where they apply."""

    learning_rate: float = 1e-4  # RMSprop
    alpha: float = 0.99  # RMSprop smoothing
    eps: float = 1e-5
    epsilon: float = 0.01  # exploration: a random legal action with this probability
    gamma: float = 1.0
    update_epochs: int = 4  # passes over each rollout batch
    minibatch_size: int = 256  # 4 x 256-row steps per 2k batch: one pass of big minibatches learned ~nothing
    max_grad_norm: float = 40.0

    def problems(self) -> dict[str, str]:
        """Values outside their range, by key (the config loader reports them as errors)."""
        out = {}
        for key in ("learning_rate", "eps"):
            if not getattr(self, key) > 0:
                out[key] = f"must be > 0, got {getattr(self, key)}"
        for key in ("alpha", "epsilon", "gamma"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                out[key] = f"must be in [0, 1], got {getattr(self, key)}"
        for key in ("update_epochs", "minibatch_size"):
            if getattr(self, key) < 1:
                out[key] = f"must be at least 1, got {getattr(self, key)}"
        if self.max_grad_norm < 0:
            out["max_grad_norm"] = f"must be >= 0, got {self.max_grad_norm}"
        return out


class RoleQNetwork(nn.Module):
    """One Q-value MLP per role; the role of each row comes from the observation (the game's description)."""

    kind = "q_roles"
    plays_greedy = True  # a playing agent takes the argmax of the Q-values

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "relu",
                 game: str = "") -> None:
        super().__init__()
        from envs.games import describe

        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; known: {sorted(ACTIVATIONS)}")
        description = describe(game)
        self.role_of = description.role_of
        self.spec = {"kind": self.kind, "obs_size": int(obs_size), "num_actions": int(num_actions),
                     "hidden": [int(w) for w in hidden], "activation": activation, "game": game}
        self.roles = nn.ModuleList(mlp(obs_size, hidden, num_actions, activation, out_std=1.0)
                                   for _ in range(description.num_roles))
        self.register_buffer("epsilon", torch.tensor(0.0))  # exploration, sent to rollout workers with the weights

    def q_values(self, obs: torch.Tensor) -> torch.Tensor:
        if len(self.roles) == 1:
            return run_layers(self.roles[0], obs)
        role = self.role_of(obs)
        out = obs.new_empty((obs.shape[0], self.spec["num_actions"]))
        for k, net in enumerate(self.roles):
            rows = (role == k).nonzero().squeeze(1)
            if len(rows):
                out[rows] = run_layers(net, obs[rows])
        return out

    def policy_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """What playing agents read: the Q-values (they play their argmax, see ``plays_greedy``)."""
        return self.q_values(obs)

    def policy_spec(self) -> dict[str, Any]:
        return dict(self.spec)

    def policy_state_dict(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().clone() for k, v in self.state_dict().items()}


NETWORKS[RoleQNetwork.kind] = RoleQNetwork  # build_network({"kind": "q_roles", ...})


class DMC:
    """The learner: the role Q-network, its RMSprop optimiser and the Monte-Carlo regression."""

    name = "dmc"
    Config = DMCConfig
    network_kind = RoleQNetwork.kind
    needs_game = True  # the network splits by the game's roles: its spec names the game

    def __init__(self, network_spec: dict[str, Any], cfg: DMCConfig) -> None:
        self.cfg = cfg
        self.network: RoleQNetwork = build_network(network_spec)
        self.network.epsilon.fill_(cfg.epsilon)
        self.optimizer = torch.optim.RMSprop(self.network.parameters(), lr=cfg.learning_rate, alpha=cfg.alpha,
                                             eps=cfg.eps)

    # --- acting (also run in rollout workers on a copy of ``network``) -------------------------

    @staticmethod
    @torch.no_grad()
    def act(network: RoleQNetwork, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
            epsilon: float | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Epsilon-greedy over the legal actions (``epsilon`` defaults to the network's training value)."""
        q = mask_logits(network.q_values(torch.from_numpy(obs)), torch.from_numpy(mask)).numpy()
        actions = q.argmax(axis=1)
        epsilon = float(network.epsilon) if epsilon is None else epsilon
        explore = np.flatnonzero(rng.random(len(actions)) < epsilon)
        if len(explore):
            legal = mask[explore]
            actions[explore] = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        return actions, {}

    # --- learning -------------------------------------------------------------------------------

    def update(self, batch: dict[str, np.ndarray], progress: float, rng: np.random.Generator) -> dict[str, float]:
        """Regress Q(s, a) on the Monte-Carlo return of every decision of a batch of whole trajectories."""
        cfg = self.cfg
        returns = monte_carlo_returns(batch["reward"], batch["done"], cfg.gamma)
        obs = torch.from_numpy(batch["obs"])
        actions = torch.from_numpy(batch["action"]).long()
        targets = torch.from_numpy(returns)
        n = len(actions)
        losses, q_means = [], []
        for _ in range(cfg.update_epochs):
            order = torch.from_numpy(rng.permutation(n))
            for start in range(0, n, cfg.minibatch_size):
                mb = order[start: start + cfg.minibatch_size]
                q = self.network.q_values(obs[mb]).gather(1, actions[mb].unsqueeze(1)).squeeze(1)
                loss = ((q - targets[mb]) ** 2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                if cfg.max_grad_norm:
                    nn.utils.clip_grad_norm_(self.network.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                losses.append(loss.item())
                q_means.append(q.mean().item())
        return {"charts/learning_rate": cfg.learning_rate, "charts/epsilon": float(self.network.epsilon),
                "losses/value_loss": float(np.mean(losses)), "losses/q_values": float(np.mean(q_means)),
                "losses/returns": float(returns.mean())}

    # --- checkpointing ---------------------------------------------------------------------------

    def policy(self) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
        return self.network.policy_spec(), self.network.policy_state_dict()

    def state_dict(self) -> dict[str, Any]:
        return {"network": self.network.state_dict(), "optimizer": self.optimizer.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.network.load_state_dict(state["network"])
        self.optimizer.load_state_dict(state["optimizer"])


def monte_carlo_returns(rewards: np.ndarray, done: np.ndarray, gamma: float) -> np.ndarray:
    """Return-to-go of every step of contiguous trajectories (``done`` marks each one's last step)."""
    out = np.zeros(len(rewards), dtype=np.float32)
    future = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        if done[t]:
            future = 0.0
        future = rewards[t] + gamma * future
        out[t] = future
    return out
