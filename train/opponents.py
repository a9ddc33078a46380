"""The opponent pool: who plays the seats the learner does not take.

Config ``opponents`` maps spec strings to weights; each non-learner seat of each deal draws one::

    random | rule       the baselines (agents.make)
    self                the learner's current weights (not trained on from that seat)
    snapshot            a past copy of the learner, added every ``snapshot_every`` updates,
                        at most ``pool_size`` kept, drawn uniformly or by recency
                        (the i-th oldest of k with weight i+1); "self" while the pool is empty
    path/to/file.pt     a fixed checkpoint

:class:`OpponentPool` lives in the trainer and is saved in checkpoints (plain data and state
dicts). It sends a plain-data :meth:`OpponentPool.plan` to the rollout workers, where a
:class:`SeatFiller` turns draws into agents, batching neural ones over all seats and envs.
"""

from __future__ import annotations

import bisect
import itertools
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
from torch import nn

import agents
from agents.networks import build_network
from agents.neural import NeuralAgent
from arena import AgentCache, check_shape

StateDict = dict[str, Any]


class OpponentPool:
    def __init__(self, weights: dict[str, float], pool_size: int, sampling: str) -> None:
        total = float(sum(weights.values()))
        self.specs = list(weights)
        self.weights = [w / total for w in weights.values()]
        self.pool_size = pool_size
        self.sampling = sampling
        self.snapshots: list[tuple[int, StateDict]] = []  # (id, network state dict), oldest first
        self.next_id = 0

    def add_snapshot(self, policy_state: StateDict) -> None:
        """Add a copy of the learner's playing network (``learner.policy()`` weights)."""
        self.snapshots.append((self.next_id, {k: v.detach().clone() for k, v in policy_state.items()}))
        self.next_id += 1
        del self.snapshots[: -self.pool_size]

    def snapshot_probabilities(self) -> list[float]:
        k = len(self.snapshots)
        raw = [1.0] * k if self.sampling == "uniform" else [float(i + 1) for i in range(k)]
        return [r / sum(raw) for r in raw]

    def plan(self) -> dict[str, Any]:
        """What a worker needs to draw opponents (the snapshot weights travel separately)."""
        return {"specs": self.specs, "weights": self.weights,
                "snapshot_ids": [i for i, _ in self.snapshots], "snapshot_probs": self.snapshot_probabilities()}

    def state_dict(self) -> dict[str, Any]:
        return {"snapshot_ids": [i for i, _ in self.snapshots], "snapshots": [s for _, s in self.snapshots],
                "next_id": self.next_id}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.snapshots = list(zip(state["snapshot_ids"], state["snapshots"], strict=True))[-self.pool_size :]
        self.next_id = state["next_id"]


class SeatFiller:
    """Worker side of the pool: draws an opponent per seat and builds (and caches) its agent."""

    def __init__(self, game: str, policy_spec: dict[str, Any], learner_network: nn.Module) -> None:
        self.game = game
        self.policy_spec = policy_spec
        self.cache = AgentCache(self._build, self._seed_shared)
        self.shared = self.cache.shared  # "self", snapshots, and shareable agents built so far
        self.shared["self"] = NeuralAgent(learner_network, game)
        self.env_shape: tuple[int, int] | None = None
        self.plan: dict[str, Any] = {"specs": ["self"], "weights": [1.0], "snapshot_ids": [], "snapshot_probs": []}
        self.rng = np.random.default_rng(0)
        self.rollout_seed = 0
        self._spec_cdf = [1.0]
        self._snapshot_cdf: list[float] = []

    def update_pool(self, plan: dict[str, Any], new_snapshots: dict[int, StateDict],
                    seated: Iterable[Any] = ()) -> None:
        """Take the current pool (once per update): drop old snapshots, build the new ones. A snapshot
        left out of the pool but still ``seated`` (a deal in flight across updates: batched collection)
        stays until its deals end; it is no longer drawn."""
        self.plan = plan
        self._spec_cdf = list(itertools.accumulate(plan["weights"]))
        self._snapshot_cdf = list(itertools.accumulate(plan["snapshot_probs"]))
        live = set(plan["snapshot_ids"]) | {k[1] for k in seated if isinstance(k, tuple)}
        for key in [k for k in self.shared if isinstance(k, tuple) and k[1] not in live]:
            del self.shared[key]
        for snapshot_id, state in new_snapshots.items():
            network = build_network(self.policy_spec)
            network.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
            self.shared["snapshot", snapshot_id] = NeuralAgent(network, self.game)

    def start_chunk(self, rng: np.random.Generator) -> None:
        """Take a chunk's RNG. Every agent's RNG is derived from it and the agent's key (and seat),
        never from what earlier chunks did, so a chunk plays the same in any process, and a
        resumed run draws exactly what the original did."""
        self.rng = rng
        self.rollout_seed = int(rng.integers(2**63))
        for key, agent in self.shared.items():
            if hasattr(agent, "rng"):
                agent.rng = np.random.default_rng(self._seed(key))
        self.cache.per_seat.clear()

    def _seed(self, key: Any, *where: int) -> int:
        name = f"snapshot:{key[1]}" if isinstance(key, tuple) else str(key)
        return int(np.random.SeedSequence([self.rollout_seed, zlib.crc32(name.encode()), *where]).generate_state(1)[0])

    def draw(self) -> Any:
        """One opponent key: a spec string or ("snapshot", id)."""
        spec = self.plan["specs"][_pick(self._spec_cdf, self.rng)]
        if spec != "snapshot":
            return spec
        ids = self.plan["snapshot_ids"]
        if not ids:
            return "self"
        return "snapshot", ids[_pick(self._snapshot_cdf, self.rng)]

    def draw_many(self, count: int) -> list[Any]:
        """``count`` keys, the ones ``count`` calls of :meth:`draw` give (the same random numbers): one
        array of uniforms for them all when no snapshot can be drawn (a snapshot's id is a second draw)."""
        if "snapshot" in self.plan["specs"]:
            return [self.draw() for _ in range(count)]
        picks = _picks(self._spec_cdf, self.rng.random(size=count))
        return [self.plan["specs"][i] for i in picks.tolist()]

    def agent(self, key: Any, env_index: int, seat: int, env_shape: tuple[int, int]) -> agents.Agent:
        """The agent for a drawn key: one shared instance if it keeps no per-deal state, else one per seat."""
        self.env_shape = env_shape
        return self.cache.get(key, env_index, seat)

    def _build(self, key: Any, env_index: int, seat: int) -> agents.Agent:
        agent = agents.make(key, game=self.game, seed=self._seed(key, env_index, seat))
        check_shape(agent, self.env_shape, str(key))
        return agent

    def _seed_shared(self, key: Any, agent: agents.Agent) -> None:
        agent.rng = np.random.default_rng(self._seed(key))  # as if reseeded by start_chunk


def _pick(cdf: list[float], rng: np.random.Generator) -> int:
    """An index drawn with the probabilities whose running sums are ``cdf`` (fast for short lists)."""
    return min(bisect.bisect_right(cdf, rng.random() * cdf[-1]), len(cdf) - 1)


def _picks(cdf: list[float], uniforms: np.ndarray) -> np.ndarray:
    """:func:`_pick` for many uniform numbers at once (the same indices)."""
    return np.minimum(np.searchsorted(cdf, uniforms * cdf[-1], side="right"), len(cdf) - 1)


def label(key: Any) -> str:
    """A short name of an opponent key for logs."""
    return "snapshot" if isinstance(key, tuple) else str(key)
