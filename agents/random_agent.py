"""Uniform random play over the legal actions: the floor every learner must beat."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Observation, check_game


class RandomAgent(Agent):
    name = "random"

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.game = check_game(game)
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("RandomAgent.act called with an empty action mask (no legal action)")
        return int(legal[self.rng.integers(legal.size)])
