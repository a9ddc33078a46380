"""A single-agent Gymnasium view of either game (or any AEC env with masked dict observations).

One seat is the agent; the other seats are played by fixed opponents inside ``step``. Works
with Stable-Baselines3 / sb3-contrib's ``MaskablePPO`` (the env has ``action_masks()``)::

    from agents import make
    from envs.gym import SingleAgentEnv
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv("skat", opponents=[make("rule", game="skat") for _ in range(2)],
                         reward_scale=0.01)
    MaskablePPO("MlpPolicy", env).learn(10_000)

* Observation: the seat's float32 vector (``dict_observation=True``: the PettingZoo dict with
  its ``action_mask``); ``info["action_mask"]`` holds the mask too.
* Reward: everything the seat received since its previous action (PettingZoo's cumulative
  reward), times ``reward_scale``; the episode ends when the seat is done.
* Seat: ``learner_seat=None`` rotates through all seats, one deal each (a seeded ``reset``
  starts again at seat 0); an int fixes it.
* Opponents: ``None`` -> uniform random legal moves (drawn from the env's seeded ``np_random``);
  one agent (anything with ``act(observation) -> int``) for every other seat; or a list with one
  agent per other seat (needed for agents that keep per-deal state). ``reset()`` is called on
  them at every deal.
* Illegal action: ``ValueError`` by default; ``illegal_reward=-1.0`` ends the episode with that
  reward instead (as PettingZoo's ``TerminateIllegalWrapper`` does). An action that is not an
  integer (``3.7``, ``"5"``, ``True``) is a ``ValueError`` either way.
* ``gymnasium.utils.env_checker.check_env`` passes with ``illegal_reward`` set: it steps with
  unmasked random actions, most of them illegal, which raise by default.

This module also holds the game name -> PettingZoo module lookup the rest of the project uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv

from envs import GAMES, aec_env, env_module  # noqa: E402,F401  (re-exported for older imports)
from envs.checks import as_integer


class SingleAgentEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        game: str | Callable[[], AECEnv],
        opponents: Any = None,
        learner_seat: int | None = None,
        env_options: dict[str, Any] | None = None,
        reward_scale: float = 1.0,
        dict_observation: bool = False,
        illegal_reward: float | None = None,
    ) -> None:
        self.aec = aec_env(game, **(env_options or {})) if isinstance(game, str) else game()
        self.seats = list(self.aec.possible_agents)
        # Opponents that read only the mask skip the observation (the project's envs offer action_mask).
        self._action_mask = getattr(self.aec, "action_mask", None) or (lambda a: self.aec.observe(a)["action_mask"])
        n = len(self.seats)
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be in 0..{n - 1} (or None to rotate), got {learner_seat}")
        self.learner_seat = learner_seat
        if opponents is None or hasattr(opponents, "act"):
            self.opponents = [opponents] * (n - 1)
        else:
            self.opponents = list(opponents)
            if len(self.opponents) != n - 1:
                raise ValueError(f"need one opponent per other seat ({n - 1}), got {len(self.opponents)}")
        self.reward_scale = reward_scale
        self.dict_observation = dict_observation
        self.illegal_reward = illegal_reward

        space = self.aec.observation_space(self.seats[0])
        self.action_space = self.aec.action_space(self.seats[0])
        self.observation_space = space if dict_observation else space["observation"]
        self._episodes = 0
        self._agent = self.seats[0]
        self._seat_of_opponent: dict[str, Any] = {}
        self._obs: dict[str, np.ndarray] | None = None
        self._done = True

    # --- Gymnasium API --------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._episodes = 0  # a seeded reset starts the seat rotation over (reproducible)
        while True:  # a deal in which the seat never gets to act is skipped
            seat = self.learner_seat if self.learner_seat is not None else self._episodes % len(self.seats)
            self._episodes += 1
            self._agent = self.seats[seat]
            others = [a for a in self.seats if a != self._agent]
            self._seat_of_opponent = dict(zip(others, self.opponents, strict=True))
            for opponent in {id(o): o for o in self.opponents if o is not None}.values():
                if hasattr(opponent, "reset"):
                    opponent.reset()
            self.aec.reset(seed=int(self.np_random.integers(2**31)))
            _, done = self._advance()
            if not done:
                self._done = False
                return self._observation(), {"action_mask": self._obs["action_mask"]}

    def step(self, action: Any):
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset() first")
        action = as_integer(action, "action")  # 3.7 is an error, not action 3
        mask = self._obs["action_mask"]
        if not (0 <= action < len(mask) and mask[action]):
            if self.illegal_reward is None:
                raise ValueError(f"illegal action {action} for {self._agent}; legal: {np.flatnonzero(mask).tolist()}")
            self._done = True
            self._obs = {k: v.copy() for k, v in self._obs.items()}  # a new object for every step's return
            info = {"action_mask": self._obs["action_mask"], "illegal": True}
            return self._observation(), float(self.illegal_reward), True, False, info
        self.aec.step(action)
        reward, done = self._advance()
        self._done = done
        return self._observation(), reward * self.reward_scale, done, False, {"action_mask": self._obs["action_mask"]}

    def action_masks(self) -> np.ndarray:
        """The legal actions of the current observation (sb3-contrib's MaskablePPO calls this)."""
        return self._obs["action_mask"].astype(bool)

    def close(self) -> None:
        self.aec.close()

    # --- internals ------------------------------------------------------------------------------

    def _advance(self) -> tuple[float, bool]:
        """Play the other seats until the agent acts again or is done: (reward, done)."""
        aec = self.aec
        while aec.agents:
            agent = aec.agent_selection
            _, reward, terminated, truncated, _ = aec.last(observe=False)
            if agent == self._agent:
                self._obs = aec.observe(agent)
                return float(reward), bool(terminated or truncated)
            if terminated or truncated:
                aec.step(None)
                continue
            opponent = self._seat_of_opponent[agent]
            if opponent is None:
                legal = np.flatnonzero(self._action_mask(agent))
                aec.step(int(legal[self.np_random.integers(legal.size)]))
            elif not getattr(opponent, "needs_observation", True):
                aec.step(opponent.act({"action_mask": self._action_mask(agent)}))
            else:
                aec.step(opponent.act(aec.observe(agent)))
        return 0.0, True  # the agent left the game without a final visit (not PettingZoo-conform)

    def _observation(self) -> Any:
        return self._obs if self.dict_observation else self._obs["observation"]
