"""Thirty-One (31 / Scat / Blitz), version 0: PettingZoo's versioned-module convention."""

from envs.thirtyone.env import env, raw_env
from envs.thirtyone.observation import OBSERVATION_VERSION

__all__ = ["env", "raw_env", "OBSERVATION_VERSION"]
