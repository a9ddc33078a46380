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

    def action_values(self) -> dict[int, float] | None:
        """What the last :meth:`act` estimated each legal action to be worth, in the game's score (a search
        agent's move values), or None where it compared none. ``pretrain.soft_temperature`` clones them."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r})"


class ArrayAgent(Agent):
    """An agent that decides a batch of its game's main observation layout (``array_size`` floats) at
    once: ``act_arrays`` hands such rows to ``_act_rows`` in one call and any other layout (an extended
    table's) to ``act`` row by row; ``act_batch`` stacks the observation dicts for it."""

    array_size: int = 0

    def _act_rows(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def act_arrays(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions (int64 [N]) for many games (observations [N, D], masks [N, A]): ``act``'s moves."""
        obs, masks = np.asarray(observations), np.asarray(masks)
        if obs.ndim == 2 and obs.shape[1] == self.array_size:
            return self._act_rows(obs, masks)
        return np.asarray([self.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)],
                          np.int64)

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        if len(observations) > 1 and all(np.shape(o["observation"]) == (self.array_size,) for o in observations):
            return self.act_arrays(np.stack([o["observation"] for o in observations]),
                                   np.stack([o["action_mask"] for o in observations])).tolist()
        return [self.act(o) for o in observations]


def legal_actions(observation: Observation) -> np.ndarray:
    """Indices of the legal actions in an observation's mask."""
    return np.flatnonzero(observation["action_mask"])


def check_game(game: Any) -> str:
    """``game`` if it names a game (``envs.games.describe`` knows it), else a ValueError naming the known ones."""
    from envs.games import describe

    describe(game)
    return game
