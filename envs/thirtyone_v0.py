"""Thirty-One (31 / Scat / Blitz), version 0: PettingZoo's versioned-module convention."""

from envs.thirtyone.env import env, raw_env

__all__ = ["env", "raw_env"]
