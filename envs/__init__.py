"""PettingZoo AEC environments for Skat and Thirty-One.

``from envs import skat_v0, thirtyone_v0`` gives PettingZoo's versioned modules; both are also
registered in PettingZoo's registry as ``cards/skat-v0`` and ``cards/thirtyone-v0``.
"""

from __future__ import annotations

import importlib

__all__ = ["skat_v0", "thirtyone_v0"]


def __getattr__(name: str):
    # Lazy, so importing one game's rules core does not pull in PettingZoo and the other game.
    if name in __all__:
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
