"""Shared helpers for the Skat tests: scripted deals and random playouts."""

from __future__ import annotations

import random

from envs.skat import actions as A
from envs.skat.rules import SkatGame, SkatState


def act(state: SkatState, *names: str) -> None:
    """Apply actions by readable name, e.g. act(s, "bid 18", "hold", "pass")."""
    for n in names:
        state.apply_action(A.action_index(n))


def random_playout(state: SkatState, rng: random.Random, check=None) -> SkatState:
    while state.current_player >= 0:
        legal = state.legal_actions()
        assert legal, f"no legal action in phase {state.phase}"
        if check is not None:
            check(state)
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def play_out_first_legal(state: SkatState) -> SkatState:
    while state.current_player >= 0:
        state.apply_action(state.legal_actions()[0])
    return state


def fixed_game(**rules) -> SkatGame:
    return SkatGame(**rules)
