"""The batched Skat engine: N deals as torch tensors, equal to the AEC env deal by deal.

``envs.skat_v0.vector_env(num_envs, device="cpu", seed=..., **options)``; see
:mod:`envs.skat.vector.env` for the contract. The reference stays ``envs.skat.rules``; the tables
here are built from it (``tables``), the rules step is ``engine``, observations and masks ``observe``.
"""

from envs.skat.vector.env import SkatVectorEnv, SkatVectorState, vector_env

__all__ = ["SkatVectorEnv", "SkatVectorState", "vector_env"]
