"""Input checks shared by both games' rules cores and envs (plain Python: no numpy, no RL imports).

An action is an integer: a Python ``int``, a numpy integer (``np.int64(3)``) or a 0-d integer array
(``np.array(3)``), anything ``operator.index`` takes except a ``bool``. Floats (``3.7``, even
``np.float64(64.0)``), strings and bools are refused rather than rounded or coerced, so a buggy
agent is told at once instead of playing another action. The checks raise explicitly (never
``assert``), so ``python -O`` keeps them.
"""

from __future__ import annotations

import operator
from typing import Any


def as_integer(value: Any, what: str) -> int:
    """``value`` as a Python int, or a ValueError saying that this ``what`` is not an integer."""
    if type(value) is int:
        return value
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise ValueError(f"{what} {value!r} is not an integer ({type(value).__name__})")


def as_action(action: Any, num_actions: int, agent: str | None = None) -> int:
    """``action`` as a Python int in ``0 .. num_actions - 1``; a ValueError naming the action (and
    the agent, when given) if it is not an integer or is out of range."""
    if type(action) is not int:
        if isinstance(action, bool):
            raise ValueError(f"action {action!r}{_for(agent)} is not an integer action index (a bool)")
        try:
            action = operator.index(action)
        except TypeError:
            raise ValueError(
                f"action {action!r}{_for(agent)} is not an integer action index ({type(action).__name__}); "
                f"expected an int 0..{num_actions - 1}"
            ) from None
    if 0 <= action < num_actions:
        return action
    raise ValueError(f"action {action}{_for(agent)} out of range 0..{num_actions - 1}")


def _for(agent: str | None) -> str:
    return f" for {agent}" if agent is not None else ""


def as_seat(value: Any, num_seats: int, what: str) -> int:
    """A seat number ``0 .. num_seats - 1`` (ints and numpy ints; no bools, no floats)."""
    try:
        seat = as_integer(value, what)
    except ValueError:
        seat = -1
    if not 0 <= seat < num_seats:
        raise ValueError(f"{what} must be a seat from 0 to {num_seats - 1}, got {value!r}")
    return seat


def as_seed(seed: Any) -> int | None:
    """A reset seed: None, or a non-negative integer (numpy integers too; no bools, no floats)."""
    if seed is None:
        return None
    try:
        value = as_integer(seed, "seed")
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"seed must be a non-negative integer (or None), got {seed!r}")
    return value


def check_keys(given: Any, valid: tuple[str, ...], what: str) -> None:
    """A dict whose keys are all in ``valid``; a ValueError naming the first unknown key."""
    if not isinstance(given, dict):
        raise ValueError(f"{what} must be a dict with keys {list(valid)}, got {given!r}")
    for key in given:
        if key not in valid:
            raise ValueError(f"unknown key {key!r} in {what}; valid keys: {', '.join(valid)}")


def check_reset_options(options: Any, valid: tuple[str, ...]) -> dict[str, Any]:
    """The ``options`` of an env's ``reset``: None or a dict of known keys (a ValueError naming an
    unknown one, so a typo such as ``deel`` is not silently dealt at random). The one exception is
    the key ``"options"``: PettingZoo's ``api_test`` probes ``reset(seed=0, options={"options": 1})``
    to see that the keyword exists, and the envs pass that test; the key is ignored."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"the reset options must be a dict with keys {list(valid)}, got {options!r}")
    for key in options:
        if key not in valid and key != "options":
            raise ValueError(f"unknown reset option {key!r}; valid options: {', '.join(valid)}")
    return options



def agent_to_step(env: Any, episode: str) -> tuple[str, bool]:
    """The agent an AEC ``step`` acts for, and whether it is done; a clear error when no ``episode``
    ("deal", "game") is in progress (before the first reset, or after every agent has left)."""
    try:
        agent = env.agent_selection
        return agent, bool(env.terminations[agent] or env.truncations[agent])
    except (AttributeError, KeyError):
        raise ValueError(f"step() without a {episode} in progress: the {episode} is over (every agent has taken "
                         "its final step) or reset() was never called; call reset() to deal") from None
