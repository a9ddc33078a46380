"""The contract every rules core in ``envs`` follows (OpenSpiel-style Game / State split).

A rules core is plain Python with no RL imports. ``train.bench`` and search agents use only
what is declared here, so any game that follows it can be simulated and benchmarked the same way.
Both rules cores (``envs.skat.rules``, ``envs.thirtyone.rules``) follow it;
tests/test_rules_core_protocol.py checks that, and plays both through these names alone.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class State(Protocol):
    """A position of one deal/game. Cheap to copy; mutated in place by ``apply_action``."""

    current_player: int  # seat to act, or -1 once the state is terminal

    def legal_actions(self) -> list[int]: ...

    def apply_action(self, action: int) -> None: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> list[float]: ...

    def clone(self) -> State: ...


@runtime_checkable
class Game(Protocol):
    """Holds the options; makes initial states."""

    num_players: int
    num_actions: int
    options: object  # a frozen dataclass: SkatOptions, ThirtyOneOptions

    def new_initial_state(self, seed: int | None = None) -> State: ...

    def action_name(self, action: int) -> str: ...

    def action_index(self, name: str) -> int: ...
