"""Agents: spec strings -> players, checkpoints -> players, and the registry of learning algorithms.

Spec strings (the same in configs and on the command line)::

    random              uniform over the legal actions
    rule                the game's rule-based baseline (named by its description: agents.rule_skat, ...)
    pimc                Skat only: perfect-information Monte Carlo search (agents.pimc);
    pimc:worlds=24,...  with options (``pimc:preset=fast`` for a quick training opponent)
    search              Thirty-One only: determinized rollouts over the rules core (agents.search_thirtyone);
    search:worlds=8,... with options (``search:preset=fast`` for a quicker one)
    path/to/file.pt     a trained policy from a checkpoint (see agents.checkpoint)
    path/to/file.pt#name   another policy shipped in that checkpoint (NFSP: ``#best_response``)

``self`` and ``snapshot`` name the learner's current and past weights; they only exist inside
a training run (``train.opponents``).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from agents.base import Agent, check_game

__all__ = ["Agent", "make", "load", "algorithm", "split_spec", "ALGORITHMS", "TRAINING_ONLY_SPECS"]

TRAINING_ONLY_SPECS = ("self", "snapshot")

# Learning algorithms by checkpoint/config name: "module:Class", each offering the interface of
# agents.ppo.PPO (optional extras: ``actor`` for per-trajectory acting state, ``other_policies`` and
# ``policy_name`` for further playing policies in checkpoints; see agents.nfsp).
ALGORITHMS = {"ppo": "agents.ppo:PPO", "nfsp": "agents.nfsp:NFSP", "dmc": "agents.dmc:DMC"}


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"file.pt#best_response"`` -> ``("file.pt", "best_response")``; no ``#`` -> ``(spec, None)``."""
    path, sep, policy = spec.partition("#")
    return (path, policy or None) if sep else (spec, None)


def make(spec: str, game: str | None = None, seed: int | None = None, greedy: bool = False, **options: Any) -> Agent:
    """An agent from a spec string; ``game`` is required for ``random``/``rule``/``pimc`` and checked for files.

    ``options`` go to agents that take them (``pimc``: see agents.pimc.PIMCOptions)."""
    name = spec.partition(":")[0]
    factory = _search_agent(name, game)
    if factory is not None:  # a game's own agents with options: pimc, pimc:worlds=24
        return factory(spec, seed=seed, **options)
    if options:
        raise ValueError(f"agent spec {spec!r} takes no options (got {sorted(options)})")
    if spec == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent(check_game(game), seed=seed)
    if spec == "rule":
        from envs.games import describe

        target = describe(check_game(game)).rule_agent  # "module:Class", named by the game's description
        if target is None:
            raise ValueError(f"{game} has no rule-based agent; use random, a checkpoint or a class spec")
        module_name, class_name = target.split(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as e:
            raise ImportError(f"the rule-based {game} agent {target} is not available: {e}") from e
        return cls(seed=seed)
    if spec in TRAINING_ONLY_SPECS:
        raise ValueError(f"opponent spec {spec!r} only exists inside a training run (train.opponents)")
    path, policy = split_spec(spec)
    if path.endswith(".pt") or os.path.exists(path):
        return load(path, game=game, greedy=greedy, seed=seed, policy=policy)
    from agents.user import is_class_spec, make_user_agent

    if is_class_spec(spec):
        return make_user_agent(spec, check_game(game), seed=seed)
    raise ValueError(f"unknown agent spec {spec!r}: expected 'random', 'rule', the path of a .pt checkpoint "
                     "or a user class 'module:Class' / 'path/to/file.py:Class'")


def _search_agent(name: str, game: str | None) -> Any:
    """The factory of a game's own agent spec (``envs.games.GameDescription.agent_specs``), if ``name`` is one."""
    from envs.games import REGISTRY, describe

    owners = [g for g in REGISTRY if name in describe(g).agent_specs]
    if not owners:
        return None
    if game not in owners:
        titles = " and ".join(describe(g).title for g in owners)
        raise ValueError(f"the {name!r} agent plays {titles} only (game={game!r})")
    module_name, function = describe(game).agent_specs[name].split(":")
    return getattr(importlib.import_module(module_name), function)


def load(path: str | os.PathLike, game: str | None = None, greedy: bool = False, seed: int | None = None,
         policy: str | None = None) -> Agent:
    """A CPU playing agent rebuilt from a checkpoint file alone; ``game`` given -> must match.

    ``policy``: None plays the checkpoint's main policy (NFSP: the average policy, also named
    ``"average"``); another name picks a further policy it ships (NFSP: ``"best_response"``).
    """
    from agents.neural import load as load_neural

    return load_neural(path, game=game, greedy=greedy, seed=seed, policy=policy)


def algorithm(name: str) -> Any:
    """The learner class registered under ``name`` in :data:`ALGORITHMS`."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; known: {sorted(ALGORITHMS)}")
    module_name, class_name = ALGORITHMS[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)
