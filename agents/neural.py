"""The playing agent of a trained policy network (from a checkpoint or the live learner)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from agents import checkpoint
from agents.base import Agent, Observation, check_game
from agents.networks import greedy_actions, masked_log_probs, sample_actions


class NeuralAgent(Agent):
    """Plays a policy network's masked distribution: sampled, or its argmax when ``greedy``.

    Stateless across deals, so one instance may serve many seats and envs at once; use
    :meth:`act_arrays` / :meth:`act_batch` to decide for many observations in one forward pass.
    """

    name = "neural"
    shareable = True

    def __init__(self, network: nn.Module, game: str, greedy: bool = False, seed: int | None = None,
                 metadata: dict[str, Any] | None = None) -> None:
        self.network = network.eval()
        self.game = check_game(game)
        self.greedy = greedy or getattr(network, "plays_greedy", False)  # Q-networks play their argmax
        self.rng = np.random.default_rng(seed)
        self.metadata = metadata or {}

    @torch.no_grad()
    def act_arrays(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions for a stacked batch: ``obs`` (B, obs_size) float32, ``mask`` (B, num_actions)."""
        log_probs = masked_log_probs(self.network.policy_logits(torch.from_numpy(obs)), torch.from_numpy(mask))
        return greedy_actions(log_probs) if self.greedy else sample_actions(log_probs, self.rng)

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        obs = np.stack([o["observation"] for o in observations]).reshape(len(observations), -1)  # flat, as trained
        obs = obs.astype(np.float32, copy=False)
        mask = np.stack([o["action_mask"] for o in observations]).astype(bool)
        return self.act_arrays(obs, mask).tolist()

    def act(self, observation: Observation) -> int:
        if not observation["action_mask"].any():
            raise ValueError("NeuralAgent.act called with an empty action mask (no legal action)")
        return self.act_batch([observation])[0]

    def __repr__(self) -> str:
        source = self.metadata.get("source", "network")
        return f"NeuralAgent(game={self.game!r}, greedy={self.greedy}, source={source!r})"


def load(path: str | os.PathLike, game: str | None = None, greedy: bool = False,
         seed: int | None = None, policy: str | None = None) -> NeuralAgent:
    """Rebuild a CPU playing agent from a checkpoint file alone (see ``agents.checkpoint``).

    ``policy`` names one of the checkpoint's playing policies (None: the main one); one stored as
    greedy (NFSP's ``best_response``: argmax of its Q-values) is always played greedily.
    """
    data = checkpoint.load(path, game=game)
    network, always_greedy = checkpoint.load_named_policy(data, policy, path)
    source = f"{path}#{policy}" if policy else str(path)
    metadata = dict(data["metadata"], source=source, policy=policy or data["metadata"].get("policy_name", "main"))
    return NeuralAgent(network, data["metadata"]["game"], greedy=greedy or always_greedy, seed=seed,
                       metadata=metadata)
