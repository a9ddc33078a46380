"""Thirty-One (31 / Scat / Blitz), version 0: PettingZoo's versioned-module convention.

``thirtyone_v0.vector_env(num_envs, device=..., seed=..., **options)`` is the batched engine
(torch), imported on first use so that the AEC env does not pull in torch."""

from typing import Any

from envs.thirtyone.env import env, raw_env
from envs.thirtyone.observation import OBSERVATION_VERSION


def vector_env(num_envs: int, device: Any = "cpu", seed: int | None = None, **options: Any) -> Any:
    """``num_envs`` Thirty-One games as torch tensors on ``device``
    (``envs.thirtyone.vector.ThirtyOneVectorEnv``)."""
    from envs.thirtyone.vector import vector_env as make

    return make(num_envs, device=device, seed=seed, **options)


__all__ = ["env", "raw_env", "vector_env", "OBSERVATION_VERSION"]
