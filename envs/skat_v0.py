"""PettingZoo's versioned-module convention: ``from envs import skat_v0; skat_v0.env()``."""

from envs.skat.env import env, raw_env
from envs.skat.observation import OBSERVATION_VERSION

__all__ = ["env", "raw_env", "OBSERVATION_VERSION"]
