"""The opponents a table offers: a fixed server-side list, never a path or module from a browser.

``listing(game)`` gives ``random``, ``rule``, the search agent ``pimc`` where ``agents.make("pimc",
game=...)`` works, and every checkpoint under ``checkpoints/`` made for the game, with its
metadata (algorithm, training steps, stored evaluation). ``make_agent(id, game, seed)`` builds
one; a checkpoint's network is loaded once per process and shared by every seat that plays it
(a NeuralAgent keeps no per-deal state; each seat gets its own random generator).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agents
from agents.checkpoint import CheckpointError
from agents.checkpoint import load as load_checkpoint

CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
_lock = threading.Lock()
_loaded: dict[str, Any] = {}  # checkpoint path -> NeuralAgent (the shared network)
_pimc: dict[str, bool] = {}


@dataclass(frozen=True)
class Opponent:
    id: str
    label: str
    spec: str
    info: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "info": self.info}


def _pimc_available(game: str) -> bool:
    if game not in _pimc:
        try:
            agents.make("pimc", game=game, seed=0)
            _pimc[game] = True
        except Exception:  # not there (yet), or not for this game
            _pimc[game] = False
    return _pimc[game]


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
    if _pimc_available(game):
        out.append(Opponent("pimc", "pimc (search: sampled worlds, double-dummy solved)", "pimc"))
    for path in sorted(Path(checkpoint_dir).glob("*.pt")):
        try:
            meta = load_checkpoint(path)["metadata"]
        except CheckpointError:
            continue  # not loadable with this code: not offered
        if meta.get("game") != game:
            continue
        info = _describe(meta)
        steps = info["steps"]
        steps_text = f", {steps / 1e6:.1f}M steps" if isinstance(steps, int) and steps >= 100_000 else (
            f", {steps:,} steps" if isinstance(steps, int) else "")
        label = f"{path.stem} ({str(info['algorithm']).upper()}{steps_text})"
        out.append(Opponent(f"checkpoint:{path.name}", label, str(path), info))
    return out


def find(game: str, opponent_id: str, checkpoint_dir: Path = CHECKPOINT_DIR) -> Opponent:
    for o in listing(game, checkpoint_dir):
        if o.id == opponent_id:
            return o
    raise ValueError(f"unknown opponent {opponent_id!r} for {game}; choose one of "
                     f"{[o.id for o in listing(game, checkpoint_dir)]}")


def make_agent(spec: str, game: str, seed: int | None) -> Any:
    """An agent from a spec (any spec ``agents.make`` takes); checkpoints share one loaded network."""
    path, policy = agents.split_spec(spec)
    if path.endswith(".pt"):
        key = str(Path(path).resolve()) + (f"#{policy}" if policy else "")
        with _lock:
            base = _loaded.get(key)
            if base is None:
                base = _loaded[key] = agents.make(spec, game=game, seed=0)
        from agents.neural import NeuralAgent

        return NeuralAgent(base.network, base.game, greedy=base.greedy, seed=seed, metadata=base.metadata)
    return agents.make(spec, game=game, seed=seed)


def short_name(spec: str) -> str:
    """A seat name for a spec: ``checkpoints/skat_ppo.pt`` -> ``skat_ppo``."""
    path, policy = agents.split_spec(spec)
    if path.endswith(".pt"):
        return Path(path).stem + (f"#{policy}" if policy else "")
    return spec.rpartition(":")[2] if ":" in spec else spec
