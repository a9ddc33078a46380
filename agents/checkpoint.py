"""The checkpoint file format: one ``torch.save`` file of state dicts and plain data only.

It loads with ``torch.load(path, weights_only=True)`` (no pickled objects). Layout::

    {
      "format": "skat31-checkpoint", "format_version": 1,
      "metadata": {                      # enough to rebuild and check the playing policy
        "game": "skat", "env_options": {...},
        "obs_size": 373, "num_actions": 100, "observation_version": 1,
        "network": {"kind": "policy", "obs_size": ..., "num_actions": ...,
                    "hidden": [256, 256], "activation": "tanh"},    # the playing network
        "algorithm": "ppo", "project_version": "0.1.0", "created": "2026-...",
        "run_name": "...", "global_step": 123456, "update": 100,
        "eval": {"eval/mean_score_vs_rule": ..., ...},                 # best.pt only
      },
      "policy": {...},                   # state dict of the network in metadata["network"]
      "config": {...},                   # the training config as a plain dict
      # optional: further playing policies of the same agent, by name (NFSP: "best_response";
      # metadata["policy_name"] then names the main one, NFSP: "average")
      "policies": {"best_response": {"network": {...}, "policy": {...}, "greedy": True}},
      # only in full (resumable) checkpoints:
      "learner": {...},                  # algorithm state; PPO: {"network": actor-critic, "optimizer"}
      "trainer": {...},                  # counters, opponent pool snapshots, RNG states
    }

The ``algorithm`` field and the generic ``network`` spec let any algorithm (PPO, NFSP, ...)
share the format: a playing agent needs only ``network`` + ``policy``; resuming needs the
algorithm's own ``learner`` part, which ``agents.ALGORITHMS[algorithm]`` reads back.
Writes are atomic (temporary file, then ``os.replace``).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.networks import build_network, weights_loaded_next
from envs import env_module
from envs.games import GAMES, describe

FORMAT = "skat31-checkpoint"
FORMAT_VERSION = 1
REQUIRED_METADATA = ("game", "env_options", "obs_size", "num_actions", "observation_version", "network", "algorithm")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: unreadable, not ours, or made for something else."""


def observation_version(game: str, env_options: dict[str, Any] | None = None) -> int:
    """The observation-encoding version of a game's env with these options (a table kind may have its
    own layout and version: the env's ``observation_version``), else the module's ``OBSERVATION_VERSION``, else 1.

    A PettingZoo env module from elsewhere (``pettingzoo.classic.leduc_holdem_v4``) carries its
    version in its name, which the checkpoint's ``game`` already pins: 1 unless it declares one."""
    if env_options is not None and game in GAMES:
        try:
            env = describe(game).raw_env(**env_options)
        except (ValueError, TypeError) as e:
            raise CheckpointError(f"the stored env options {env_options} are not a valid {game} table now: "
                                  f"{e}") from None
        if getattr(env, "observation_version", None) is not None:
            return int(env.observation_version)
    module = env_module(game)
    raw = getattr(module, "raw_env", None)
    for owner, name in ((module, "OBSERVATION_VERSION"), (raw, "OBSERVATION_VERSION"), (raw, "observation_version")):
        if getattr(owner, name, None) is not None:
            return int(getattr(owner, name))
    return 1


def project_version() -> str:
    try:
        return importlib.metadata.version("skat31")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def make_metadata(
    game: str,
    env_options: dict[str, Any],
    obs_size: int,
    num_actions: int,
    network: dict[str, Any],
    algorithm: str,
    **extra: Any,
) -> dict[str, Any]:
    """The metadata block of a new checkpoint (``extra``: run_name, global_step, ...)."""
    return {
        "game": game,
        "env_options": dict(env_options),
        "obs_size": int(obs_size),
        "num_actions": int(num_actions),
        "observation_version": observation_version(game, env_options),
        "network": dict(network),
        "algorithm": algorithm,
        "project_version": project_version(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        **extra,
    }


def save(path: str | os.PathLike, metadata: dict[str, Any], policy: dict[str, Any], config: dict[str, Any],
         learner: dict[str, Any] | None = None, trainer: dict[str, Any] | None = None,
         policies: dict[str, dict[str, Any]] | None = None) -> Path:
    """Write a checkpoint atomically; ``learner`` and ``trainer`` make it resumable."""
    data: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION, "metadata": _plain(metadata),
                            "policy": policy, "config": _plain(config)}
    if policies:
        data["policies"] = policies
    if learner is not None:
        data["learner"] = learner
    if trainer is not None:
        data["trainer"] = trainer
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Delete what a killed write of ``path`` left behind (``.<name>.*.tmp`` beside it); returns them."""
    path = Path(path)
    stale = sorted(path.parent.glob(f".{path.name}.*.tmp")) if path.parent.is_dir() else []
    for tmp in stale:
        tmp.unlink(missing_ok=True)
    return stale


def _plain(value: Any) -> Any:
    """numpy scalars (an easy slip in metrics) -> Python numbers, which ``weights_only`` loading accepts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def load(path: str | os.PathLike, game: str | None = None, resumable: bool = False) -> dict[str, Any]:
    """Read and check a checkpoint; ``game`` given -> refuse one made for another game.

    Always refuses a file that is not a readable checkpoint of this format, or whose
    observation encoding differs from the current env's. ``resumable`` -> also require the
    ``learner`` and ``trainer`` parts.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises RuntimeError, UnpicklingError, EOFError, ... on bad files
        raise CheckpointError(f"{path}: not a readable checkpoint (corrupt or not a torch file): {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a {FORMAT} file (no 'format': {FORMAT!r} field)")
    if data.get("format_version") != FORMAT_VERSION:
        version = data.get("format_version")
        raise CheckpointError(f"{path}: format version {version!r}, this code reads version {FORMAT_VERSION}")
    for key in ("metadata", "policy", "config"):
        if not isinstance(data.get(key), dict):
            raise CheckpointError(f"{path}: missing or malformed {key!r} section")
    meta = data["metadata"]
    missing = [k for k in REQUIRED_METADATA if k not in meta]
    if missing:
        raise CheckpointError(f"{path}: metadata lacks {missing}")
    if game is not None and meta["game"] != game:
        raise CheckpointError(f"{path}: checkpoint is for game {meta['game']!r}, not {game!r}")
    try:
        current = observation_version(meta["game"], meta.get("env_options") or {})
    except CheckpointError:
        raise
    except ValueError as e:  # a PettingZoo env module that does not import here (a missing optional package)
        raise CheckpointError(f"{path}: made for game {meta['game']!r}, which cannot be loaded here: {e}") from None
    if meta["observation_version"] != current:
        raise CheckpointError(
            f"{path}: made for observation encoding version {meta['observation_version']} of "
            f"{meta['game']!r}, but the env now encodes version {current}; retrain or use a matching release"
        )
    if not isinstance(data.get("policies", {}), dict):
        raise CheckpointError(f"{path}: malformed 'policies' section")
    if resumable and not ("learner" in data and "trainer" in data):
        raise CheckpointError(f"{path}: a policy-only checkpoint cannot be resumed; resume from latest.pt")
    return data


def load_policy_network(data: dict[str, Any], path: str | os.PathLike = "checkpoint") -> torch.nn.Module:
    """The playing network of a loaded checkpoint, on CPU, in eval mode."""
    try:
        with weights_loaded_next():
            network = build_network(data["metadata"]["network"])
        network.load_state_dict(data["policy"])
    except (ValueError, TypeError, RuntimeError, KeyError) as e:
        raise CheckpointError(f"{path}: policy weights do not fit the stored network spec: {e}") from None
    return network.eval()


def load_named_policy(data: dict[str, Any], name: str | None, path: str | os.PathLike = "checkpoint"
                      ) -> tuple[torch.nn.Module, bool]:
    """(network, play greedily) of the policy ``name``: None or ``metadata["policy_name"]`` -> the main
    policy (sampled, unless ``metadata["greedy"]``: chosen by its greedy play, so it plays that way);
    else an entry of the optional ``policies`` section."""
    main = data["metadata"].get("policy_name")
    if name is None or name == main:
        return load_policy_network(data, path), bool(data["metadata"].get("greedy", False))
    others = data.get("policies", {})
    if name not in others:
        known = [n for n in [main, *others] if n]
        raise CheckpointError(f"{path}: no policy named {name!r}; this checkpoint has "
                              f"{known if known else 'only its main policy'}")
    entry = others[name]
    try:
        with weights_loaded_next():
            network = build_network(entry["network"])
        network.load_state_dict(entry["policy"])
    except (ValueError, TypeError, RuntimeError, KeyError) as e:
        raise CheckpointError(f"{path}: policy {name!r} does not fit its stored network spec: {e}") from None
    return network.eval(), bool(entry.get("greedy", False))


def check_env_shape(metadata: dict[str, Any], obs_size: int, num_actions: int, where: str = "checkpoint") -> None:
    """Refuse a policy whose observation/action sizes differ from an env's."""
    if (metadata["obs_size"], metadata["num_actions"]) != (obs_size, num_actions):
        raise CheckpointError(
            f"{where}: trained with observation size {metadata['obs_size']} and {metadata['num_actions']} "
            f"actions, but this env has {obs_size} and {num_actions}"
        )
