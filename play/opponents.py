"""The opponents a table offers: a fixed server-side list, never a path or module from a browser.

``listing(game)`` gives ``random``, ``rule``, the game's own search agents (``pimc`` for Skat: its
description's ``agent_specs``) and every checkpoint under ``checkpoints/`` made for the game, with
its metadata (algorithm, training steps, stored evaluation). ``unfit(spec, game, env)`` says why an
agent cannot sit at a table (a checkpoint trained on another table's observation, a search agent
that plays only some tables), ``make_agent(id, game, seed)`` builds one; a checkpoint's network is
loaded once per process and shared by every seat that plays it (a NeuralAgent keeps no per-deal
state; each seat gets its own random generator).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agents
from agents.checkpoint import CheckpointError
from agents.checkpoint import load as load_checkpoint
from arena import check_shape, env_shape
from envs.games import describe
from play.adapters import adapter

CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
_lock = threading.Lock()
_loaded: dict[str, Any] = {}  # checkpoint path -> NeuralAgent (the shared network)
_metadata: dict[tuple[str, int, int], dict[str, Any] | None] = {}  # (path, mtime, size) -> metadata or None


@dataclass(frozen=True)
class Opponent:
    id: str
    label: str
    spec: str
    info: dict[str, Any] = field(default_factory=dict)
    shape: tuple[int, int] | None = None  # a checkpoint's (observation size, actions)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "info": self.info}


def _describe(meta: dict[str, Any]) -> dict[str, Any]:
    info: dict[str, Any] = {"algorithm": meta.get("algorithm"), "steps": meta.get("global_step"),
                            "run": meta.get("run_name"), "created": meta.get("created")}
    ev = meta.get("eval") or {}
    shown = {}
    for key, value in ev.items():
        name = key.removeprefix("eval/")
        if name.startswith(("mean_score_vs_", "win_rate_vs_")) and isinstance(value, int | float):
            shown[name] = round(float(value), 3)
    info["eval"] = shown
    return info


def listing(game: str, checkpoint_dir: Path = CHECKPOINT_DIR) -> list[Opponent]:
    """Every opponent a table of ``game`` may seat."""
    out = [Opponent("random", "random (uniform over the legal moves)", "random"),
           Opponent("rule", "rule (the rule-based baseline)", "rule")]
    for name in describe(game).agent_specs:
        out.append(Opponent(name, adapter(game).agent_label(name), name))
    for path in sorted(Path(checkpoint_dir).glob("*.pt")):
        meta = _checkpoint_metadata(path)
        if meta is None or meta.get("game") != game:
            continue
        info = _describe(meta)
        steps = info["steps"]
        steps_text = f", {steps / 1e6:.1f}M steps" if isinstance(steps, int) and steps >= 100_000 else (
            f", {steps:,} steps" if isinstance(steps, int) else "")
        label = f"{path.stem} ({str(info['algorithm']).upper()}{steps_text})"
        shape = (meta["obs_size"], meta["num_actions"]) if "obs_size" in meta else None
        out.append(Opponent(f"checkpoint:{path.name}", label, str(path), info, shape))
    return out


def _checkpoint_metadata(path: Path) -> dict[str, Any] | None:
    """A checkpoint's metadata, read once per file version (the setup page asks for it often); None if
    this code cannot load it (then it is not offered)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key not in _metadata:
            try:
                _metadata[key] = load_checkpoint(path)["metadata"]
            except CheckpointError:
                _metadata[key] = None
        return _metadata[key]


def find(game: str, opponent_id: str, checkpoint_dir: Path = CHECKPOINT_DIR) -> Opponent:
    for o in listing(game, checkpoint_dir):
        if o.id == opponent_id:
            return o
    raise ValueError(f"unknown opponent {opponent_id!r} for {game}; choose one of "
                     f"{[o.id for o in listing(game, checkpoint_dir)]}")


def unfit(opponent: Opponent, game: str, env: Any) -> str | None:
    """Why ``opponent`` cannot sit at the table of ``env`` (None: it can)."""
    if opponent.shape is not None and opponent.shape != env_shape(env):
        obs, actions = env_shape(env)
        return (f"{opponent.id} was trained on a table with {opponent.shape[0]} observation floats and "
                f"{opponent.shape[1]} actions; this table has {obs} and {actions}")
    return adapter(game).agent_unfit(opponent.spec.partition(":")[0], env)


def fitting(game: str, env: Any, checkpoint_dir: Path = CHECKPOINT_DIR) -> list[str]:
    """The ids of the opponents that can sit at the table of ``env``."""
    return [o.id for o in listing(game, checkpoint_dir) if unfit(o, game, env) is None]


def make_agent(spec: str, game: str, seed: int | None, env: Any = None) -> Any:
    """An agent from a spec (any spec ``agents.make`` takes); checkpoints share one loaded network.
    With ``env``, an agent that cannot play that table is a ValueError saying why."""
    path, policy = agents.split_spec(spec)
    if env is not None:
        reason = adapter(game).agent_unfit(path.partition(":")[0], env)
        if reason:
            raise ValueError(reason)
    if path.endswith(".pt"):
        key = str(Path(path).resolve()) + (f"#{policy}" if policy else "")
        with _lock:
            base = _loaded.get(key)
            if base is None:
                base = _loaded[key] = agents.make(spec, game=game, seed=0)
        from agents.neural import NeuralAgent

        agent = NeuralAgent(base.network, base.game, greedy=base.greedy, seed=seed, metadata=base.metadata)
    else:
        agent = agents.make(spec, game=game, seed=seed)
    if env is not None:
        check_shape(agent, env_shape(env), f"agent {short_name(spec)}")
    return agent


def short_name(spec: str) -> str:
    """A seat name for a spec: ``checkpoints/skat_ppo.pt`` -> ``skat_ppo``."""
    path, policy = agents.split_spec(spec)
    if path.endswith(".pt"):
        return Path(path).stem + (f"#{policy}" if policy else "")
    head, sep, tail = spec.partition(":")
    return tail.rpartition(":")[2] if sep and ("." in head or "/" in head) else head  # module:Class, pimc:worlds=8
