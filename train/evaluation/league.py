"""The league: openskill ratings of every agent evaluated so far, kept in one small JSON file.

Each game (Skat, Thirty-One) has its own ladder. Every unit of an evaluation (a duplicate deal, a
seat-rotated Thirty-One block) is one rated match per matchup among the agents that met in it,
ranked by what they made of it: Skat points per game over all seatings of the deal, Thirty-One
the average place over the block (lower is better); equal results are draws. Ratings use
openskill's Plackett-Luce model with ``tau = 0`` (the agents are fixed programs whose strength
does not drift), so sigma shrinks as evidence accumulates and ``mu - 3 sigma`` is a conservative
strength that only rises with evidence.

An agent is identified by its spec string (``random``, ``rule``, a checkpoint path, ``module:Class``).
A checkpoint's file hash is stored with it: when the file at that path changes, the old entry is
kept under ``path@oldhash`` and the new file starts a fresh rating. To place a new agent, play it
against the league's other members (``opponents``) and ``update`` with the result.

File layout (``league.json``)::

    {"format": "skat31-league", "version": 1, "model": {"name": "PlackettLuce", "tau": 0.0},
     "games": {"skat": {"agents": {"rule": {"spec": "rule", "mu": 27.1, "sigma": 0.9,
                                             "matches": 600, "sha256": null}, ...},
                        "history": [{"time": ..., "agents": [...], "units": 300, "seed": 0, ...}]}}}
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from agents import split_spec
from agents.user import is_class_spec, load_object
from envs.games import describe
from train.evaluation.match import MatchResult

FORMAT = "skat31-league"
VERSION = 1
TAU = 0.0


def file_hash(spec: str) -> str | None:
    """SHA-256 (first 16 hex digits) of a checkpoint spec's file; None for other specs."""
    if spec in ("random", "rule") or is_class_spec(spec) or not os.path.isfile(split_spec(spec)[0]):
        return None
    digest = hashlib.sha256()
    with open(spec, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def available(spec: str) -> bool:
    """Can the spec still be played here (a checkpoint file that exists, an importable class)?"""
    if spec in ("random", "rule"):
        return True
    if is_class_spec(spec):
        try:
            load_object(spec)
        except (ImportError, ValueError, AttributeError):
            return False
        return True
    return os.path.isfile(split_spec(spec)[0])


class League:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.model = PlackettLuce(tau=TAU)
        if self.path.exists():
            data = json.loads(self.path.read_text())
            if data.get("format") != FORMAT:
                raise ValueError(f"{self.path}: not a league file (no 'format': {FORMAT!r})")
            if data.get("version") != VERSION:
                raise ValueError(f"{self.path}: league version {data.get('version')!r}, this code reads {VERSION}")
            self.data = data
        else:
            self.data = {"format": FORMAT, "version": VERSION, "model": {"name": "PlackettLuce", "tau": TAU},
                         "games": {}}

    def members(self, game: str) -> dict[str, dict[str, Any]]:
        return self.data["games"].setdefault(game, {"agents": {}, "history": []})["agents"]

    def _retire_changed(self, game: str, spec: str) -> None:
        """A checkpoint rewritten since it was rated: keep its record under ``spec@oldhash``."""
        members = self.members(game)
        entry = members.get(spec)
        if entry is None or entry.get("sha256") is None:
            return
        now = file_hash(spec)
        if now is not None and now != entry["sha256"]:
            members[f"{spec}@{entry['sha256'][:8]}"] = dict(entry, retired=True)
            del members[spec]

    def opponents(self, game: str, focus: list[str]) -> tuple[list[str], list[str]]:
        """Members other than ``focus`` that can play (same file, importable), and those that cannot."""
        playable, missing = [], []
        for key, entry in self.members(game).items():
            spec = entry["spec"]
            if spec in focus or key in focus:
                continue
            ok = not entry.get("retired") and available(spec) and file_hash(spec) == entry.get("sha256")
            (playable if ok else missing).append(spec if ok else key)
        return playable, missing

    def update(self, result: MatchResult) -> int:
        """Rate every (unit, matchup) of an evaluation as one match; returns the number of matches."""
        game = result.config.game
        members = self.members(game)
        specs = result.config.specs
        for spec in specs:
            self._retire_changed(game, spec)
            if spec not in members:
                base = self.model.rating()
                members[spec] = {"spec": spec, "mu": base.mu, "sigma": base.sigma, "matches": 0,
                                 "sha256": file_hash(spec)}
        ratings = {s: self.model.rating(mu=members[s]["mu"], sigma=members[s]["sigma"]) for s in set(specs)}
        arrays = result.unit_arrays()  # (units, matchups, agents, fields)
        rank_field, higher_is_better = result.game.rank_by
        rank = result.game.fields.index(rank_field)
        sign = 1.0 if higher_is_better else -1.0
        matches = 0
        for unit in range(arrays.shape[0]):
            for m, mu in enumerate(result.matchups):
                seated = [a for a in mu if arrays[unit, m, a, 0] > 0]
                names = [specs[a] for a in seated]
                if len(set(names)) < 2:
                    continue  # an agent against itself (or its copy) tells nothing
                cell = arrays[unit, m]
                scores = [sign * cell[a, rank] / cell[a, 0] for a in seated]
                merged: dict[str, list[float]] = {}
                for name, score in zip(names, scores, strict=True):
                    merged.setdefault(name, []).append(score)
                order = list(merged)
                new = self.model.rate([[ratings[n]] for n in order], scores=[sum(v) / len(v) for v in merged.values()])
                for n, team in zip(order, new, strict=True):
                    ratings[n] = team[0]
                    members[n]["matches"] += 1
                matches += 1
        for name, r in ratings.items():
            members[name]["mu"], members[name]["sigma"] = float(r.mu), float(r.sigma)
        self.data["games"][game]["history"].append({
            "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "agents": list(specs), "units": result.config.units, "seed": result.config.seed,
            "schedule": result.config.schedule, "env_options": result.config.env_options, "matches": matches,
        })
        return matches

    def save(self) -> None:
        """Write atomically (temporary file, then rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(self.data, f, indent=1, sort_keys=True)
                f.write("\n")
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def ladder(self, game: str) -> list[dict[str, Any]]:
        """Members by conservative rating ``mu - 3 sigma``, best first."""
        rows = [{"agent": key, "mu": e["mu"], "sigma": e["sigma"], "conservative": e["mu"] - 3 * e["sigma"],
                 "matches": e["matches"], "retired": bool(e.get("retired"))}
                for key, e in self.members(game).items()]
        return sorted(rows, key=lambda r: (-r["conservative"], r["agent"]))

    def format_ladder(self, game: str) -> str:
        rows = self.ladder(game)
        if not rows:
            return f"{game} league ({self.path}): no agents yet"
        width = max(len("agent"), *(len(r["agent"]) for r in rows))
        unit = f"{describe(game).unit}s"
        lines = [f"{game} league ({self.path}): openskill Plackett-Luce, one match per {unit[:-1]}",
                 f"{'rank':>4}  {'agent':<{width}}  {'mu':>7}  {'sigma':>6}  {'mu-3sigma':>9}  {unit:>7}"]
        for i, r in enumerate(rows, 1):
            note = "  (file changed since)" if r["retired"] else ""
            lines.append(f"{i:>4}  {r['agent']:<{width}}  {r['mu']:7.2f}  {r['sigma']:6.2f}  "
                         f"{r['conservative']:9.2f}  {r['matches']:>7}{note}")
        return "\n".join(lines)
