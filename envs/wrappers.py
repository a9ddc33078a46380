"""One-layer version of PettingZoo's classic wrapper stack, for speed.

PettingZoo's classic envs wrap ``raw_env`` in TerminateIllegalWrapper(illegal_reward=-1),
AssertOutOfBoundsWrapper and OrderEnforcingWrapper. Each layer forwards attribute reads through
``__getattr__``, so a single ``env.last()`` + ``env.step()`` costs dozens of chained lookups (about
100 us per decision on our machine, several times the cost of a Skat move). ``ClassicWrapper``
does the same three checks in one layer, with the hot attributes read straight off the raw env
(``agent_iter``, ``last`` and ``step`` included; tests/test_wrappers.py plays both stacks side by
side). It is an ``OrderEnforcingWrapper`` subclass, so code that looks for that class still finds it.
"""

from __future__ import annotations

from operator import index as _index
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from envs.checks import as_action

_BEFORE_RESET = "{} cannot be accessed before reset"
# Action types that skip the general AssertOutOfBounds test (bool is not among them: an int
# subclass, but no action).
_INT_TYPES = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8})


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the raw env directly."""

    def __init__(self, env: ClassicWrapper, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._raw = env._raw

    def __next__(self) -> str:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        env = self.env
        if not env._has_updated:  # PettingZoo's assert, raised explicitly so that python -O keeps it
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        env._has_updated = False
        return raw.agent_selection


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class ClassicWrapper(OrderEnforcingWrapper):
    """Terminate on an illegal move (offender gets ``illegal_reward``), check that actions are in
    bounds (AssertionError, as PettingZoo's), and enforce reset-before-use, exactly as PettingZoo's
    three classic wrappers do."""

    def __init__(self, env: AECEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._illegal_reward = float(illegal_reward)
        self._prev_mask: np.ndarray | None = None
        self._terminated = False
        self._num_actions = int(self._raw.action_space(self._raw.possible_agents[0]).n)

    def _check(self, name: str) -> AECEnv:
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format(name))
        return self._raw

    # The attributes every loop reads, forwarded in one step.
    @property
    def agent_selection(self) -> str:
        return self._check("agent_selection").agent_selection

    @property
    def agents(self) -> list[str]:
        return self._check("agents").agents

    @property
    def rewards(self) -> dict[str, float]:
        return self._check("rewards").rewards

    @property
    def terminations(self) -> dict[str, bool]:
        return self._check("terminations").terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self._check("truncations").truncations

    @property
    def infos(self) -> dict[str, dict]:
        return self._check("infos").infos

    @property
    def num_agents(self) -> int:
        return len(self._check("num_agents").agents)

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        self._prev_mask = None
        super().reset(seed=seed, options=options)

    def agent_iter(self, max_iter: int = 2**63) -> _Iterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            self._prev_mask = obs["action_mask"]
        return obs

    def action_mask(self, agent: str) -> np.ndarray:
        """The mask of ``observe(agent)`` without the observation (see the raw env's ``action_mask``)."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        mask = raw.action_mask(agent)
        if agent == raw.agent_selection:
            self._prev_mask = mask
        return mask

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("agent_selection"))
        raw = self._raw
        agent = raw.agent_selection
        if observe:  # self.observe(agent), inlined: this is the hottest call
            obs = raw.observe(agent)
            self._prev_mask = obs["action_mask"]
        else:
            obs = None
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        # AssertOutOfBoundsWrapper: the same AssertionError, raised explicitly (python -O keeps it; an
        # assert would vanish there and -1 would index the mask from the end).
        if action.__class__ in _INT_TYPES:  # the usual case first
            a = _index(action)  # a Python int: compares and indexes faster than a numpy scalar
            if not 0 <= a < self._num_actions:
                raise AssertionError("action is not in action space")
        else:
            a = action
            if not (action is None and dead):
                try:
                    a = as_action(action, self._num_actions)
                except ValueError:
                    raise AssertionError("action is not in action space") from None
        mask = self._prev_mask  # TerminateIllegalWrapper
        if mask is None and not dead:
            mask = raw.action_mask(agent) if hasattr(raw, "action_mask") else self.observe(agent)["action_mask"]
        self._prev_mask = None
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not mask[a]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = self._illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(a)

    def __str__(self) -> str:
        return str(self.env)
