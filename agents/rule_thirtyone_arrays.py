"""The Thirty-One rule agent for many games at once: the same decisions as ``RuleThirtyOneAgent.act``.

``act_arrays(observations, masks, rng)`` decides for a batch of classic-layout observations (stock
and discard pile; the table variants go game by game through ``act``) in one compiled loop over
the batch (``agents.rule_thirtyone_kernel``) instead of decoding each observation: the batched
trainer and the evaluation tables give the rule agent thousands of decisions per step. Every
decision is one the per-game agent makes: only ties between equally good discards, which both
break at random, may fall differently (the test in ``tests/test_rule_thirtyone_arrays.py``
checks that over thousands of decisions).
"""

from __future__ import annotations

import numpy as np

from agents.rule_thirtyone_kernel import decide, illegal, sort_rows, tables
from envs.thirtyone.actions import NUM_ACTIONS
from envs.thirtyone.layout import OBS_SIZE

_TABLES = tables()


def act_arrays(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The rule agent's actions (int64 [B]) for classic-layout observations [B, 1130] and masks [B, 57]."""
    obs = np.ascontiguousarray(obs, np.float32)
    mask = np.ascontiguousarray(mask, bool)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or mask.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"act_arrays takes classic Thirty-One observations [B, {OBS_SIZE}] and masks "
                         f"[B, {NUM_ACTIONS}], got {obs.shape} and {mask.shape}")
    n = obs.shape[0]
    actions = np.full(n, -1, np.int64)
    kind = np.empty(n, np.int64)
    discards = sort_rows(mask, _TABLES[0], kind, actions)
    if discards < 0:
        raise ValueError(f"act_arrays called with an empty action mask (no legal action) in row {-1 - discards}")
    randoms = rng.random((discards, 4))  # ties between equally good discards
    decide(obs, mask, kind, randoms, *_TABLES, actions)
    if illegal(mask, actions):  # as ``act``: a move the mask forbids becomes a random legal one
        bad = ~mask[np.arange(n), np.maximum(actions, 0)] | (actions < 0)
        actions[bad] = np.where(mask[bad], rng.random(mask[bad].shape), -1.0).argmax(axis=1)
    return actions
