"""The one agent interface used by training, evaluation, benchmarks and human play.

An agent sees exactly what a seat sees: the PettingZoo observation dict of the acting seat
(``{"observation": float32 vector, "action_mask": int8 vector}``) and returns a legal action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Observation = dict[str, np.ndarray]


class Agent:
    """Base class: subclasses override ``act``; ``act_batch`` may be overridden for speed."""

    game: str = ""  # "skat" or "thirtyone"
    name: str = "agent"
    # True if the agent keeps no per-deal state, so one instance may play many seats and tables
    # at once (the trainer and evaluation then batch its decisions through act_batch).
    shareable: bool = False
    # False if the agent reads only observation["action_mask"]: collectors may then hand it
    # {"action_mask": ...} alone and skip building the observation vector.
    needs_observation: bool = True

    def act(self, observation: Observation) -> int:
        raise NotImplementedError

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        return [self.act(obs) for obs in observations]

    def reset(self) -> None:
        """Called at the start of every deal; agents that keep state clear it here."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r})"


def legal_actions(observation: Observation) -> np.ndarray:
    """Indices of the legal actions in an observation's mask."""
    return np.flatnonzero(observation["action_mask"])


def check_game(game: Any) -> str:
    """``game`` if it names a game (``envs.games.describe`` knows it), else a ValueError naming the known ones."""
    from envs.games import describe

    describe(game)
    return game
