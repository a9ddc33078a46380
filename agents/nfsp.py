"""Neural Fictitious Self-Play (Heinrich & Silver 2016, arXiv:1603.01121), CleanRL-style: read it top to bottom.

Two networks over the same observation vector, both masked (``agents.networks``, illegal logit -1e8):

* the **best response** (BR): a Q-network trained by DQN on a circular replay buffer of all the
  learner's transitions -- epsilon-greedy over the legal actions, masked max in the bootstrap
  target (an illegal action is never chosen nor bootstrapped), target network, squared TD error
  (``rl_loss``: a best response needs the *expected* return; the Huber loss of Atari DQN estimates
  something between mean and median once returns spread over more than +-1, as card games' do);
* the **average policy** (AVG): a softmax policy trained by supervised learning (cross-entropy on
  masked logits) on a reservoir buffer of the learner's own BR-mode (state, action) pairs, so it
  tracks the average of the past best responses.

Warm start (``pretrain.teacher``, train/pretrain): the average policy is cloned on the teacher's
decisions and the Q-network is fitted to them as DQfD does (Hester et al. 2018): regression on the
returns plus a large-margin loss that puts the teacher's move first; with ``demo_weight`` the margin
loss stays in every RL step, on a kept sample of those decisions; with ``anchor_weight`` every SL step
adds the KL divergence from the warm-start policy, so the average moves only as far as the reservoir's
moves outweigh it.

Anticipatory dynamics: at the start of each episode, each learner seat independently acts with
the BR with probability ``eta`` (default 0.1), else with the AVG, for the whole episode. Only
BR-mode decisions go into the reservoir; every decision goes into the replay buffer.

The trainer (``train/``) uses the same interface as :class:`agents.ppo.PPO`. Rollouts call
:meth:`NFSP.actor` once per rollout chunk: it draws each trajectory's mode and acts with
:meth:`NFSP.act`, which adds ``best_response`` (bool per decision) to the batch. The acting
network carries ``epsilon`` and ``eta`` as buffers, so the rollout workers receive them with the
weights. Playing (evaluation, ``self``/``snapshot`` opponents, checkpoints) uses the AVG;
checkpoints also ship the BR under the name ``best_response`` (``agents.load(path,
policy="best_response")``, played greedily).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks import (
    NETWORKS,
    PolicyMLP,
    adam,
    build_network,
    mask_logits,
    masked_kl,
    masked_log_probs,
    mlp,
    sample_actions,
)
from agents.nfsp_buffers import ReplayBuffer, ReservoirBuffer


@dataclass
class NFSPConfig:
    """NFSP hyperparameters (the ``nfsp:`` section of a training config)."""

    eta: float = 0.1  # anticipatory parameter: probability that a seat plays its best response for an episode
    rl_learning_rate: float = 5e-4  # Adam, best-response Q-network
    sl_learning_rate: float = 5e-4  # Adam, average-policy network
    gamma: float = 1.0  # card-game episodes are short and rewarded at the end
    batch_size: int = 128  # minibatch of each gradient step (both networks)
    learn_every: int = 32  # learner decisions per gradient step of each network
    learning_starts: int = 1000  # a buffer must hold this many samples before its network learns
    replay_size: int = 100_000  # circular RL buffer (transitions)
    reservoir_size: int = 200_000  # reservoir SL buffer (BR-mode state/action pairs)
    target_update_every: int = 300  # RL gradient steps between copies of the Q-network to the target
    epsilon_start: float = 0.06  # BR exploration, decayed linearly ...
    epsilon_end: float = 0.0
    exploration_fraction: float = 0.5  # ... over this fraction of total_timesteps
    max_grad_norm: float = 10.0  # gradient clipping of both networks (0: off)
    rl_loss: str = "mse"  # "mse": Q estimates the expected return; "huber" (smooth L1, delta 1): robust to outliers,
    #                       but biased toward the median when returns spread over more than +-1 (Kuhn: -2..2)
    save_buffers: bool = False  # keep both buffers in latest.pt (exact resume; files get large)
    demo_weight: float = 0.0  # with a warm start (pretrain.teacher): weight of DQfD's large-margin loss on the
    #                           teacher's decisions in every RL step, which keeps the best response at the teacher's
    #                           move until TD finds a better one by more than pretrain.q_margin; 0: warm start only
    demo_size: int = 100_000  # teacher decisions kept for it (a uniform sample of the warm start's)
    demo_reservoir: int = 0  # with a warm start: this many of the teacher's decisions enter the reservoir before
    #                          any best-response move, as the first policy of the average (fictitious play's
    #                          initial strategy); 0: the average policy is fitted to best-response moves only
    anchor_weight: float = 0.0  # with a warm start: weight of KL(warm-start policy || average policy) on every SL
    #                             batch, which keeps the average near the policy it started from (a KL-regularized
    #                             average, as piKL regularizes toward an imitation policy: arXiv:2112.07544); 0: off

    def problems(self) -> dict[str, str]:
        """Values outside their range, by key (the config loader reports them as errors)."""
        out = {}
        for key in ("eta", "epsilon_start", "epsilon_end", "exploration_fraction", "gamma"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                out[key] = f"must be in [0, 1], got {getattr(self, key)}"
        if self.demo_weight < 0:
            out["demo_weight"] = f"must be >= 0, got {self.demo_weight}"
        for key in ("demo_reservoir", "anchor_weight"):
            if getattr(self, key) < 0:
                out[key] = f"must be >= 0, got {getattr(self, key)}"
        for key in ("batch_size", "learn_every", "replay_size", "reservoir_size", "target_update_every", "demo_size"):
            if getattr(self, key) < 1:
                out[key] = f"must be at least 1, got {getattr(self, key)}"
        for key in ("rl_learning_rate", "sl_learning_rate"):
            if not getattr(self, key) > 0:
                out[key] = f"must be > 0, got {getattr(self, key)}"
        if self.rl_loss not in RL_LOSSES:
            out["rl_loss"] = f"expected one of {sorted(RL_LOSSES)}, got {self.rl_loss!r}"
        if self.learning_starts < 0 or self.max_grad_norm < 0:
            out["learning_starts" if self.learning_starts < 0 else "max_grad_norm"] = "must be >= 0"
        return out


RL_LOSSES = {"mse": nn.functional.mse_loss, "huber": nn.functional.smooth_l1_loss}


def large_margin_loss(q: torch.Tensor, mask: torch.Tensor, action: torch.Tensor, margin: float) -> torch.Tensor:
    """DQfD's supervised loss (Hester et al. 2018, arXiv:1704.03732), per row:
    ``max over legal a of [Q(s, a) + margin * (a != teacher's)] - Q(s, teacher's)``.

    Zero once the teacher's move leads every other legal move by ``margin``: greedy on Q then plays
    the teacher's move, and the other moves are not pushed further down.
    """
    q_taken = q.gather(1, action[:, None]).squeeze(1)
    others = torch.full_like(q, margin).scatter_(1, action[:, None], 0.0)
    return mask_logits(q + others, mask).max(dim=1).values - q_taken


def linear_schedule(start: float, end: float, fraction: float, progress: float) -> float:
    """``start`` -> ``end`` linearly while ``progress`` goes from 0 to ``fraction``, then ``end``."""
    if fraction <= 0:
        return end
    return start + (end - start) * min(1.0, progress / fraction)


# --- networks --------------------------------------------------------------------------------


class NFSPNetwork(PolicyMLP):
    """The average policy (``actor``, what plays) and the best-response Q-network (``q``)."""

    kind = "nfsp"

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "relu") -> None:
        super().__init__(obs_size, num_actions, hidden, activation)
        self.q = mlp(obs_size, hidden, num_actions, activation, out_std=1.0)
        # Exploration state, synced to the rollout workers with the weights.
        self.register_buffer("epsilon", torch.tensor(0.0))
        self.register_buffer("eta", torch.tensor(0.1))

    def q_values(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked Q-values; mask them with :func:`agents.networks.mask_logits`."""
        return self.q(obs)

    def policy_spec(self) -> dict[str, Any]:
        """Spec of a playing network (a :class:`PolicyMLP`): the average policy, or the BR's Q-values."""
        return {**self.spec, "kind": PolicyMLP.kind}

    def policy_state_dict(self) -> dict[str, torch.Tensor]:
        """Average-policy weights; they load into a :class:`PolicyMLP`."""
        return {k: v.detach().clone() for k, v in self.state_dict().items() if k.startswith("actor.")}

    def best_response_state_dict(self) -> dict[str, torch.Tensor]:
        """Q-network weights renamed to load into a :class:`PolicyMLP` whose logits are the Q-values."""
        return {f"actor.{k}": v.detach().clone() for k, v in self.q.state_dict().items()}


NETWORKS[NFSPNetwork.kind] = NFSPNetwork  # build_network({"kind": "nfsp", ...}) once this module is imported


# --- the learner -----------------------------------------------------------------------------


class NFSP:
    """The learner: both networks, the target Q-network, two Adam optimisers, both buffers."""

    name = "nfsp"
    Config = NFSPConfig
    network_kind = NFSPNetwork.kind
    policy_name = "average"  # the checkpoint's main playing policy; "best_response" ships next to it

    def __init__(self, network_spec: dict[str, Any], cfg: NFSPConfig) -> None:
        self.cfg = cfg
        self.network: NFSPNetwork = build_network(network_spec)
        self.network.eta.fill_(cfg.eta)
        self.network.epsilon.fill_(cfg.epsilon_start)
        self.target_q = copy.deepcopy(self.network.q).requires_grad_(False)
        self.rl_optimizer = adam(self.network.q.parameters(), lr=cfg.rl_learning_rate)
        self.sl_optimizer = adam(self.network.actor.parameters(), lr=cfg.sl_learning_rate)
        obs_size, num_actions = network_spec["obs_size"], network_spec["num_actions"]
        self.replay = ReplayBuffer(cfg.replay_size, obs_size, num_actions)
        self.reservoir = ReservoirBuffer(cfg.reservoir_size, obs_size, num_actions)
        self.demos: dict[str, torch.Tensor] = {}  # the warm start's teacher decisions (``demo_weight``)
        self.demo_margin = 0.0
        self.demo_losses: list[float] = []  # of the RL steps since the last update's metrics
        self.anchor: nn.Module | None = None  # the average policy as the first SL step found it (``anchor_weight``)
        self.anchor_losses: list[float] = []
        self.rl_steps = 0  # gradient steps of each network
        self.sl_steps = 0
        self.pending = 0  # learner decisions not yet paid for by a gradient step

    def warm_started(self) -> None:
        """After a warm start (train/pretrain: both networks fitted to a teacher) the target is that Q-network."""
        self.target_q.load_state_dict(self.network.q.state_dict())

    @property
    def needs_demonstrations(self) -> bool:
        """Teacher decisions are wanted but not here (a resumed run: checkpoints do not store them, and a
        reservoir saved without its data restarts empty)."""
        cfg = self.cfg
        return (cfg.demo_weight > 0 and not self.demos) or (cfg.demo_reservoir > 0 and self.reservoir.seen == 0)

    def keep_demonstrations(self, data: dict[str, np.ndarray], margin: float, rng: np.random.Generator) -> None:
        """Keep up to ``demo_size`` of the teacher's decisions (obs, mask, action) for ``demo_weight``, and put
        ``demo_reservoir`` of them into a reservoir that has seen nothing yet."""
        n = len(data["action"])
        if self.cfg.demo_weight > 0 and n:
            rows = np.sort(rng.permutation(n)[: self.cfg.demo_size])
            self.demos = {k: torch.from_numpy(np.ascontiguousarray(data[k][rows])) for k in ("obs", "mask", "action")}
            self.demo_margin = margin
        if self.cfg.demo_reservoir > 0 and n and self.reservoir.seen == 0:
            rows = np.sort(rng.permutation(n)[: self.cfg.demo_reservoir])
            self.reservoir.add(data["obs"][rows], data["mask"][rows], data["action"][rows], rng)

    # --- acting (also run in rollout workers on a copy of ``network``) -------------------------

    @staticmethod
    @torch.no_grad()
    def act(network: NFSPNetwork, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
            best_response: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """One legal action per row: epsilon-greedy BR where ``best_response`` (per row), else sampled AVG."""
        best_response = np.zeros(len(obs), bool) if best_response is None else np.asarray(best_response, bool)
        obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(mask)
        actions = sample_actions(masked_log_probs(network.policy_logits(obs_t), mask_t), rng)
        rows = np.flatnonzero(best_response)
        if len(rows):
            q = mask_logits(network.q_values(obs_t[rows]), mask_t[rows])
            greedy = q.argmax(dim=1).numpy()
            uniform = sample_actions(masked_log_probs(torch.zeros_like(q), mask_t[rows]), rng)  # a legal action
            explore = rng.random(len(rows)) < float(network.epsilon)
            actions[rows] = np.where(explore, uniform, greedy)
        return actions, {"best_response": best_response}

    @classmethod
    def actor(cls, network: NFSPNetwork, rng: np.random.Generator):
        """The acting function of one rollout: each trajectory (episode x seat) draws its mode once."""
        eta = float(network.eta)
        modes: dict[int, bool] = {}

        def act(obs: np.ndarray, mask: np.ndarray, traj: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
            for t in traj.tolist():
                if t not in modes:
                    modes[t] = bool(rng.random() < eta)
            return cls.act(network, obs, mask, rng, np.array([modes[t] for t in traj.tolist()], bool))

        return act

    # --- learning -------------------------------------------------------------------------------

    def update(self, batch: dict[str, np.ndarray], progress: float, rng: np.random.Generator) -> dict[str, float]:
        """Store a rollout batch, then one RL and one SL gradient step per ``learn_every`` decisions."""
        cfg = self.cfg
        epsilon = float(self.network.epsilon)  # what this batch was collected with
        br = batch["best_response"]
        self.replay.add(batch["obs"], batch["mask"], batch["action"], batch["reward"], batch["done"])
        self.reservoir.add(batch["obs"][br], batch["mask"][br], batch["action"][br], rng)

        self.pending += len(batch["action"])
        steps, self.pending = divmod(self.pending, cfg.learn_every)
        rl, sl = [], []
        for _ in range(steps):
            if self.replay.size >= cfg.learning_starts:
                rl.append(self._rl_step(rng))
            if self.reservoir.size >= cfg.learning_starts:
                sl.append(self._sl_step(rng))
        self.network.epsilon.fill_(linear_schedule(cfg.epsilon_start, cfg.epsilon_end, cfg.exploration_fraction,
                                                   progress))

        metrics = {
            "charts/learning_rate": cfg.rl_learning_rate,
            "charts/epsilon": epsilon,
            "charts/best_response_fraction": float(np.mean(br)),
            "charts/reservoir_size": self.reservoir.size,
            "charts/replay_size": self.replay.size,
        }
        if rl:  # losses are logged once their network learns
            metrics["losses/rl_loss"] = float(np.mean([loss for loss, _ in rl]))
            metrics["losses/q_values"] = float(np.mean([q for _, q in rl]))
        if sl:
            metrics["losses/sl_loss"] = float(np.mean(sl))
        if self.demo_losses:  # how far the best response has moved from the teacher's moves (0: not at all)
            metrics["losses/demo_margin_loss"] = float(np.mean(self.demo_losses))
            self.demo_losses.clear()
        if self.anchor_losses:  # how far the average policy has moved from its warm start (0: not at all)
            metrics["losses/anchor_kl"] = float(np.mean(self.anchor_losses))
            self.anchor_losses.clear()
        return metrics

    def _rl_step(self, rng: np.random.Generator) -> tuple[float, float]:
        """DQN on the replay buffer: ``rl_loss`` against r + gamma * max over next legal actions of target Q."""
        b = self.replay.sample(self.cfg.batch_size, rng)
        with torch.no_grad():
            next_q = mask_logits(self.target_q(b["next_obs"]), b["next_mask"]).max(dim=1).values
            target = b["reward"] + self.cfg.gamma * torch.where(b["done"], torch.zeros_like(next_q), next_q)
        q = self.network.q_values(b["obs"]).gather(1, b["action"].unsqueeze(1)).squeeze(1)
        loss = RL_LOSSES[self.cfg.rl_loss](q, target)
        if self.demos:
            i = torch.from_numpy(rng.integers(0, len(self.demos["action"]), self.cfg.batch_size))
            q_demo = self.network.q_values(self.demos["obs"][i])
            margin = large_margin_loss(q_demo, self.demos["mask"][i], self.demos["action"][i], self.demo_margin)
            loss = loss + self.cfg.demo_weight * margin.mean()
            self.demo_losses.append(margin.mean().item())
        self._step(self.rl_optimizer, loss, self.network.q)
        self.rl_steps += 1
        if self.rl_steps % self.cfg.target_update_every == 0:
            self.target_q.load_state_dict(self.network.q.state_dict())
        return loss.item(), q.mean().item()

    def _sl_step(self, rng: np.random.Generator) -> float:
        """Supervised learning on the reservoir: cross-entropy of the BR's actions under the masked AVG."""
        b = self.reservoir.sample(self.cfg.batch_size, rng)
        log_probs = masked_log_probs(self.network.policy_logits(b["obs"]), b["mask"])
        loss = -log_probs.gather(1, b["action"].unsqueeze(1)).mean()
        if self.cfg.anchor_weight > 0:
            if self.anchor is None:  # the warm start (or what a resumed warm start loaded): fixed from now on
                self.anchor = copy.deepcopy(self.network.actor).requires_grad_(False)
            with torch.no_grad():
                anchor_log_probs = masked_log_probs(self.anchor(b["obs"]), b["mask"])
            kl = masked_kl(anchor_log_probs, log_probs, b["mask"]).mean()
            loss = loss + self.cfg.anchor_weight * kl
            self.anchor_losses.append(kl.item())
        self._step(self.sl_optimizer, loss, self.network.actor)
        self.sl_steps += 1
        return loss.item()

    def _step(self, optimizer: torch.optim.Optimizer, loss: torch.Tensor, module: nn.Module) -> None:
        optimizer.zero_grad()
        loss.backward()
        if self.cfg.max_grad_norm > 0:
            nn.utils.clip_grad_norm_(module.parameters(), self.cfg.max_grad_norm)
        optimizer.step()

    # --- checkpointing ---------------------------------------------------------------------------

    def policy(self) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
        """The playing network (the average policy): spec and weights, as checkpoints and snapshots keep it."""
        return self.network.policy_spec(), self.network.policy_state_dict()

    def other_policies(self) -> dict[str, dict[str, Any]]:
        """Further playing policies a checkpoint ships: the best response, played greedily on its Q-values."""
        return {"best_response": {"network": self.network.policy_spec(),
                                  "policy": self.network.best_response_state_dict(), "greedy": True}}

    def state_dict(self) -> dict[str, Any]:
        """Everything to resume: networks, target, optimisers, counters; the buffers only with ``save_buffers``."""
        with_data = self.cfg.save_buffers
        return {"network": self.network.state_dict(), "target_q": self.target_q.state_dict(),
                "rl_optimizer": self.rl_optimizer.state_dict(), "sl_optimizer": self.sl_optimizer.state_dict(),
                "counters": {"rl_steps": self.rl_steps, "sl_steps": self.sl_steps, "pending": self.pending},
                "replay": self.replay.state_dict(with_data), "reservoir": self.reservoir.state_dict(with_data),
                **({"anchor": self.anchor.state_dict()} if self.anchor is not None else {})}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.network.load_state_dict(state["network"])
        self.target_q.load_state_dict(state["target_q"])
        self.rl_optimizer.load_state_dict(state["rl_optimizer"])
        self.sl_optimizer.load_state_dict(state["sl_optimizer"])
        counters = state["counters"]
        self.rl_steps, self.sl_steps, self.pending = counters["rl_steps"], counters["sl_steps"], counters["pending"]
        self.replay.load_state_dict(state["replay"])
        self.reservoir.load_state_dict(state["reservoir"])
        if "anchor" in state:
            self.anchor = copy.deepcopy(self.network.actor).requires_grad_(False)
            self.anchor.load_state_dict(state["anchor"])
        self.network.eta.fill_(self.cfg.eta)  # a config key, so ``--set nfsp.eta=...`` applies on resume
