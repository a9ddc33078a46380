"""Who sits where: one agent instance per spec if it can serve many seats, else one per seat; shape checks."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np


class AgentCache:
    """Agents by key (a spec, an agent index ...), built on first use by ``build(key, table, seat)``.

    An agent that keeps no per-deal state (``shareable``) is built once and serves every table and
    seat, so its decisions are batched; any other agent gets one instance per (key, table, seat).
    ``on_shared(key, agent)`` is called when a shareable agent is first built (e.g. to seed it).
    """

    def __init__(self, build: Callable[[Any, int, int], Any],
                 on_shared: Callable[[Any, Any], None] | None = None) -> None:
        self.build = build
        self.on_shared = on_shared
        self.shared: dict[Hashable, Any] = {}
        self.per_seat: dict[tuple[Hashable, int, int], Any] = {}

    def get(self, key: Hashable, table: int, seat: int) -> Any:
        if key in self.shared:
            return self.shared[key]
        slot = (key, table, seat)
        agent = self.per_seat.get(slot)
        if agent is None:
            agent = self.build(key, table, seat)
            if getattr(agent, "shareable", False):
                if self.on_shared is not None:
                    self.on_shared(key, agent)
                self.shared[key] = agent
            else:
                self.per_seat[slot] = agent
        return agent

    def is_shared(self, key: Hashable) -> bool:
        return key in self.shared


def env_shape(env: Any) -> tuple[int, int]:
    """(observation size, number of actions) of an AEC env with dict observations and a Discrete action space.

    The size is that of the flattened ``observation`` (PettingZoo's classic envs have 2-D and 3-D
    ones; the learner and the neural agents flatten them). A ValueError says what an env lacks."""
    seat = env.possible_agents[0]
    space, actions = env.observation_space(seat), env.action_space(seat)
    if not (hasattr(space, "spaces") and {"observation", "action_mask"} <= set(space.spaces)):
        raise ValueError(f"{type(env).__name__}: observations must be dicts with 'observation' and 'action_mask' "
                         f"(PettingZoo's action-mask convention), got {space}")
    if not hasattr(actions, "n"):
        raise ValueError(f"{type(env).__name__}: the action space must be Discrete, got {actions}")
    return int(np.prod(space["observation"].shape)), int(actions.n)


def check_shape(agent: Any, shape: tuple[int, int], where: str) -> None:
    """A checkpoint-made agent must fit the env's observation and action sizes (others are not checked)."""
    metadata = getattr(agent, "metadata", None)
    if metadata and "obs_size" in metadata:
        from agents.checkpoint import check_env_shape

        check_env_shape(metadata, *shape, where=where)
