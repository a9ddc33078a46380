"""What an agent would play in the person's seat, with its probabilities.

A network agent gives its masked policy (``agents.networks.masked_log_probs``, the same masking
it plays with); the random agent is uniform over the legal moves; any other agent is asked for
its move, which is then certain (rule-based play is deterministic).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from agents.networks import masked_log_probs
from agents.neural import NeuralAgent
from agents.random_agent import RandomAgent
from play.core import Move


def hint(agent: Any, observation: dict[str, np.ndarray], legal: Sequence[Move], top: int = 5
         ) -> list[tuple[Move, float]]:
    """The ``top`` most likely moves of ``agent`` for this observation, most likely first."""
    by_action = {m.action: m for m in legal}
    if isinstance(agent, NeuralAgent):
        with torch.no_grad():
            obs = torch.from_numpy(np.asarray(observation["observation"], dtype=np.float32)[None])
            mask = torch.from_numpy(np.asarray(observation["action_mask"]).astype(bool)[None])
            probs = masked_log_probs(agent.network.policy_logits(obs), mask).exp()[0].numpy()
        ranked = sorted(by_action, key=lambda a: -probs[a])
        return [(by_action[a], float(probs[a])) for a in ranked[:top]]
    if isinstance(agent, RandomAgent):
        p = 1.0 / len(by_action)
        return [(by_action[a], p) for a in list(by_action)[:top]]
    action = int(agent.act(observation))
    return [(by_action[action], 1.0)] if action in by_action else []
