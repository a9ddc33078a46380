"""The batched Thirty-One engine: N games as torch tensors, equal to the AEC env step by step.

``envs.thirtyone_v0.vector_env(num_envs, device="cpu", seed=0, **options)``; see
:mod:`envs.thirtyone.vector.env` for the contract and the supported options.
"""

from envs.thirtyone.vector.env import SUPPORTED, ThirtyOneVectorEnv, vector_env

__all__ = ["SUPPORTED", "ThirtyOneVectorEnv", "vector_env"]
