"""PettingZoo AEC environments for Skat and Thirty-One.

``from envs import skat_v0, thirtyone_v0`` gives PettingZoo's versioned modules; both are also
registered in PettingZoo's registry as ``cards/skat-v0`` and ``cards/thirtyone-v0``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["skat_v0", "thirtyone_v0", "GAMES", "describe", "env_module", "aec_env", "action_kinds", "kinds_mask"]

from envs.games import GAMES, describe  # noqa: E402  (one home for the list of games)


def env_module(game: str) -> ModuleType:
    """The PettingZoo module of a game: ``envs.skat_v0`` or ``envs.thirtyone_v0``."""
    return describe(game).module()


def aec_env(game: str, **options: Any) -> Any:
    """The unwrapped AEC env of a game (``raw_env``: no order-enforcing wrapper overhead)."""
    return describe(game).raw_env(**options)


def action_kinds(game: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
    """Per action index, its kind: the first word of its name (Skat ``bid hold pass pickup hand
    discard declare kontra re play``; Thirty-One ``discard draw take knock throw_down look``).
    A decision is of every kind among its legal actions; tools name decisions by these words."""
    return describe(game).action_kinds(options)


def kinds_mask(game: str, kinds: Iterable[str], options: dict[str, Any] | None = None) -> np.ndarray:
    """Bool per action index: is its kind among ``kinds``? A decision is of those kinds when
    ``kinds_mask(game, kinds)[action_mask].any()``. Unknown kinds are a ``ValueError`` naming them."""
    return describe(game).kinds_mask(list(kinds), options)


def __getattr__(name: str):
    # Lazy, so importing one game's rules core does not pull in PettingZoo and the other game.
    if name in ("skat_v0", "thirtyone_v0"):
        return importlib.import_module(f"envs.{name}")
    raise AttributeError(name)


def _register() -> None:
    try:
        from pettingzoo import register
    except ImportError:  # pragma: no cover - PettingZoo < 1.27 has no registry
        return
    for env_id, entry in (("cards/skat-v0", "envs.skat_v0:env"), ("cards/thirtyone-v0", "envs.thirtyone_v0:env")):
        try:
            register("aec", env_id, entry_point=entry)
        except Exception:  # already registered (module reloaded)
            pass


_register()
