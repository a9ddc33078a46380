"""User agent classes given as spec strings: ``module:Class`` or ``path/to/file.py:Class``."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from pathlib import Path
from typing import Any


class AgentBuildError(ValueError):
    """A user agent class (or factory) raised in its constructor; ``details`` is its traceback."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message, details)
        self.message, self.details = message, details

    def __str__(self) -> str:
        return self.message


def is_class_spec(spec: str) -> bool:
    """``module:Class`` or ``path/to/file.py:Class`` (not a built-in spec, not an existing file)."""
    return ":" in spec and spec not in ("random", "rule") and not spec.endswith(".pt") and not os.path.exists(spec)


def load_object(spec: str) -> Any:
    """The attribute named by ``module:Name`` / ``file.py:Name`` (dotted names allowed)."""
    target, _, name = spec.rpartition(":")
    if not target or not name:
        raise ValueError(f"agent class spec {spec!r}: expected 'module:Class' or 'path/to/file.py:Class'")
    if target.endswith(".py"):
        path = Path(target).resolve()
        if not path.is_file():
            raise ValueError(f"agent class spec {spec!r}: file {target!r} does not exist")
        mod_name = f"_user_agent_{path.stem}_{abs(hash(str(path))):x}"
        module = sys.modules.get(mod_name)
        if module is None:
            file_spec = importlib.util.spec_from_file_location(mod_name, path)
            assert file_spec is not None and file_spec.loader is not None
            module = importlib.util.module_from_spec(file_spec)
            sys.modules[mod_name] = module
            file_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent class spec {spec!r}: {target!r} has no attribute {name!r}")
        obj = getattr(obj, part)
    return obj


def make_user_agent(spec: str, game: str, seed: int | None = None) -> Any:
    """A user agent: ``module:Class`` is called with the ``game`` and ``seed``
    keywords it accepts (a factory function works too); the result must have ``act``."""
    factory = load_object(spec)
    if not callable(factory):
        raise ValueError(f"agent class spec {spec!r} names {type(factory).__name__}, not a class or factory")
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in (("game", game), ("seed", seed)) if var_kw or k in params}
    try:
        agent = factory(**kwargs)
    except Exception as e:
        raise AgentBuildError(f"agent {spec!r} failed while being built: {type(e).__name__}: {e}",
                              traceback.format_exc()) from e
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"{spec!r} made a {type(agent).__name__} without an act(observation) method")
    if getattr(agent, "game", "") not in ("", None, game):
        raise ValueError(f"{spec!r} is an agent for {agent.game!r}, not {game!r}")
    return agent
