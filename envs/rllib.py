"""Skat and Thirty-One as RLlib ``MultiAgentEnv``s (turn-based), for RLlib's new API stack.

Needs the ``ray`` extra (``pip install '.[ray]'``); nothing else in the project imports this
module. Usage::

    from envs.rllib import TurnBasedEnv, env_creator
    from ray.tune.registry import register_env

    register_env("skat", env_creator)        # env_config: {"game": "skat", "env_options": {...}}
    config = PPOConfig().environment("skat", env_config={"game": "skat", "reward_scale": 0.01})

See ``examples/rllib_skat_ppo.py`` for PPO with action masking and self-play.

* Agents: the PettingZoo seats (``player_0``, ...); the observation dict of ``reset`` and
  ``step`` holds only the agent to act next (turn-based, like RLlib's TicTacToe example), plus
  the final observation of a seat that has just finished (``terminateds[seat] = True``: at the
  end of a deal every seat, with ``terminateds["__all__"] = True``; in Thirty-One also a seat
  knocked out of the game).
* Observations: ``{"observations": float32 vector, "action_mask": float32 0/1 vector}``, the
  layout RLlib's action-masking RLModule
  (``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``)
  expects: it takes the log of the mask, so the mask is float. A finished seat's mask is all zero.
* Rewards: PettingZoo's ``last()`` semantics, as in ``train.rollout``: everything a seat received
  since its previous action, reported when it is next selected (to act, or once more when the
  deal ends), times ``reward_scale``. RLlib adds rewards that arrive for an agent while it does
  not act to its previous action. One episode is one deal (Thirty-One: one round or one game,
  by its ``episode`` option).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from envs.gym import aec_env

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("envs.rllib needs RLlib, an optional extra: pip install -e '.[ray]' "
                      "(or pip install 'ray[rllib]==2.60.0')") from e

OBS_KEY = "observations"  # the keys ActionMaskingTorchRLModule reads
MASK_KEY = "action_mask"


class TurnBasedEnv(MultiAgentEnv):
    """One AEC env of ``game`` (``"skat"`` or ``"thirtyone"``) as an RLlib multi-agent env.

    ``config`` (RLlib's ``env_config``): ``game``, ``env_options`` (the env's ``raw_env``
    options), ``reward_scale`` (default 1.0).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.game = config.get("game", "skat")
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.aec = aec_env(self.game, **dict(config.get("env_options") or {}))
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        first = self.possible_agents[0]
        inner = self.aec.observation_space(first)
        num_actions = int(self.aec.action_space(first).n)
        space = gym.spaces.Dict({
            OBS_KEY: gym.spaces.Box(inner["observation"].low.astype(np.float32),
                                    inner["observation"].high.astype(np.float32), dtype=np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (num_actions,), dtype=np.float32),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(num_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._done: set[str] = set()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        # Each deal gets a seed of its own from this env's stream (reproducible with a seeded reset).
        self.aec.reset(seed=int(self._rng.integers(2**31)), options=options)
        self._done = set()
        self.agents = list(self.aec.agents)
        obs, rewards, terminateds, truncateds, infos = self._advance()
        # Nothing can happen before the first decision; a reward here would be lost by RLlib.
        return obs, infos

    def step(self, action_dict: dict[str, Any]):
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act; got actions for {sorted(action_dict)}")
        self.aec.step(int(action_dict[agent]))
        return self._advance()

    def _advance(self):
        """Run the AEC env to its next decision (or the end of the deal); RLlib's five dicts."""
        aec = self.aec
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        terminateds: dict[str, bool] = {}
        truncateds: dict[str, bool] = {}
        infos: dict[str, Any] = {}
        while aec.agents:
            agent = aec.agent_selection
            _, reward, terminated, truncated, _ = aec.last(observe=False)
            if reward:
                rewards[agent] = rewards.get(agent, 0.0) + float(reward) * self.reward_scale
            if terminated or truncated:  # a seat that is out: its final observation, then PettingZoo's dead step
                obs[agent] = self._observe(agent, final=True)
                terminateds[agent], truncateds[agent] = bool(terminated), bool(truncated and not terminated)
                self._done.add(agent)
                aec.step(None)
                continue
            obs[agent] = self._observe(agent)
            rewards.setdefault(agent, 0.0)
            break
        self.agents = [a for a in aec.agents if a not in self._done]
        over = not aec.agents
        terminateds["__all__"] = over and not any(truncateds.values())
        truncateds["__all__"] = over and any(truncateds.values())
        if over and hasattr(aec, "episode_stats"):
            infos = {a: {"episode_stats": aec.episode_stats()} for a in obs}
        return obs, rewards, terminateds, truncateds, infos

    def _observe(self, agent: str, final: bool = False) -> dict[str, np.ndarray]:
        raw = self.aec.observe(agent)
        mask = np.zeros(raw["action_mask"].shape, np.float32) if final else raw["action_mask"].astype(np.float32)
        return {OBS_KEY: np.asarray(raw["observation"], np.float32), MASK_KEY: mask}

    def close(self) -> None:
        self.aec.close()


def env_creator(config: dict[str, Any] | None = None) -> TurnBasedEnv:
    """For ``ray.tune.registry.register_env(name, env_creator)``."""
    return TurnBasedEnv(config)
