"""PettingZoo's versioned-module convention: ``from envs import skat_v0; skat_v0.env()``.

``skat_v0.vector_env(num_envs, device=..., seed=..., **options)`` is the batched engine (torch),
imported on first use so that the AEC env does not pull in torch."""

from typing import Any

from envs.skat.env import env, raw_env
from envs.skat.observation import OBSERVATION_VERSION


def vector_env(num_envs: int, device: Any = "cpu", seed: int | None = None, **options: Any) -> Any:
    """``num_envs`` Skat deals as torch tensors on ``device`` (``envs.skat.vector.SkatVectorEnv``)."""
    from envs.skat.vector import vector_env as make

    return make(num_envs, device=device, seed=seed, **options)


__all__ = ["env", "raw_env", "vector_env", "OBSERVATION_VERSION"]
