"""A tiny PettingZoo AEC env that is not ours, written the way PettingZoo's classic envs are.

Nim: a pile of 4..7 stones (drawn from the seed), two players take 1, 2 or 3 stones in turn, and
whoever takes the last stone wins (+1, the other -1). Like PettingZoo's classic envs it observes
a 2-D int8 array (row 0: the pile size one-hot, row 1: the stones taken so far by each player) with
an int8 action mask, so the tests check that the generic path (``game: tests.nim_aec``) flattens
and converts what it gets. Needs nothing beyond PettingZoo.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

MAX_PILE = 7


def env(**kwargs: Any) -> AECEnv:
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    metadata = {"render_modes": [], "name": "nim_v0", "is_parallelizable": False}

    def __init__(self, max_take: int = 3) -> None:
        super().__init__()
        if not 1 <= max_take <= 3:
            raise ValueError(f"max_take must be 1..3, got {max_take}")
        self.max_take = max_take
        self.possible_agents = ["player_0", "player_1"]
        self.observation_spaces = {a: spaces.Dict({"observation": spaces.Box(0, 7, (2, MAX_PILE + 1), np.int8),
                                                   "action_mask": spaces.Box(0, 1, (3,), np.int8)})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(3) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.pile = int(self._rng.integers(4, MAX_PILE + 1))
        self.taken = [0, 0]
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = np.zeros((2, MAX_PILE + 1), np.int8)
        obs[0, self.pile] = 1
        me = self.possible_agents.index(agent)
        obs[1, 0], obs[1, 1] = self.taken[me], self.taken[1 - me]
        mask = np.zeros(3, np.int8)
        if agent == self.agent_selection and not self.terminations[agent]:
            mask[: min(self.max_take, self.pile)] = 1
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < min(self.max_take, self.pile):
            raise ValueError(f"{agent}: illegal action {action!r} with {self.pile} stones left")
        self._cumulative_rewards[agent] = 0
        me = self.possible_agents.index(agent)
        self.pile -= int(action) + 1
        self.taken[me] += int(action) + 1
        other = self.possible_agents[1 - me]
        if self.pile == 0:
            self.rewards = {agent: 1, other: -1}
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = other
