"""Uniform random play over the legal actions: the floor every learner must beat."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent, Observation, check_game


class RandomAgent(Agent):
    name = "random"
    shareable = True
    needs_observation = False

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.game = check_game(game)
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        legal = np.asarray(observation["action_mask"]).nonzero()[0]
        if not len(legal):
            raise ValueError("RandomAgent.act called with an empty action mask (no legal action)")
        return int(legal[int(self.rng.random() * len(legal))])  # a third of rng.integers' cost

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        """Vectorised: the legal action with the largest uniform draw, for every row at once."""
        mask = np.stack([o["action_mask"] for o in observations]).astype(bool)
        if not mask.any(axis=1).all():
            raise ValueError("RandomAgent.act_batch called with an empty action mask (no legal action)")
        return np.where(mask, self.rng.random(mask.shape), -1.0).argmax(axis=1).tolist()
