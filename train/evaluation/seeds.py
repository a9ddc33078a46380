"""``python -m train.evaluate ... --seeds 201-212,301-311 --out DIR``: one match per seed, pooled.

A long measurement (PIMC against a network: about 6 minutes per block of 50 Skat deals on one core)
is played as blocks, one match of ``--deals`` per seed, each written to ``DIR/seed-S/`` as a plain run
writes its ``--out``. A block whose folder already holds a finished match of the same agents and options
is not played again: a stopped run (Ctrl-C, a lost session) resumes where it was, two processes given
disjoint seed lists and one ``--out`` share the work (a last run with every seed then pools them), and
a candidate is measured on the very deals of an earlier one by naming the same seeds. The pooled
difference of each pair: the mean over every unit of every block, with two 95% intervals, one over the
units (normal) and one over the block means (Student t).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envs.games import describe

# two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond that the normal 1.96 is
# within 2% of the truth (2.021 at 40, 2.000 at 60)
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (``df`` >= 1)."""
    if df < 1:
        raise ValueError(f"t quantile needs at least 1 degree of freedom, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    return 2.021 if df <= 40 else 2.000 if df <= 60 else 1.980 if df <= 120 else 1.960


def parse_seeds(text: str) -> list[int]:
    """``"201-212,301-311"`` -> ``[201, ..., 212, 301, ..., 311]`` (ranges inclusive, order kept, no repeats)."""
    seeds: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            lo, hi = int(first), int(last) if dash else int(first)
        except ValueError:
            raise ValueError(f"--seeds: {part!r} is not a seed or a range like 201-212") from None
        if hi < lo:
            raise ValueError(f"--seeds: the range {part!r} runs backwards")
        seeds += [s for s in range(lo, hi + 1) if s not in seeds]
    if not seeds:
        raise ValueError(f"--seeds: no seeds in {text!r} (e.g. --seeds 201-212,301-311)")
    return seeds


def _match_key(args: argparse.Namespace) -> dict[str, Any]:
    """What makes two blocks parts of one match (everything but the seed)."""
    return {"agents": list(args.agents), "vs": list(args.vs), "game": args.game, "deals": args.deals,
            "env": list(args.env), "schedule": args.schedule, "greedy": args.greedy,
            "chunk_size": args.chunk_size}


def _finished(folder: Path, key: dict[str, Any]) -> bool:
    """Whether ``folder`` holds a finished block of this match; a block of another match is an error."""
    marker = folder / "block.json"
    if not marker.is_file():
        return False
    try:
        held = json.loads(marker.read_text())["match"]
    except (ValueError, KeyError) as e:
        raise ValueError(f"{marker} is not a block marker ({e}); delete the folder to play the block again") from None
    if held != key:
        changed = ", ".join(k for k in key if held.get(k) != key[k])
        raise ValueError(f"{folder} holds a block of another match (it differs in: {changed}); give another --out")
    return (folder / "pairwise.csv").is_file()


def pooled(folders: list[Path], headline: str) -> list[dict[str, Any]]:
    """Per pair A - B over the blocks' ``pairwise.csv``: the unit-weighted mean, a normal interval over the
    units and a t interval over the block means."""
    per_pair: dict[tuple[str, str], list[tuple[float, int, float]]] = {}
    for folder in folders:
        with open(folder / "pairwise.csv", newline="") as f:
            for row in csv.DictReader(f):
                per_pair.setdefault((row["agent_a"], row["agent_b"]), []).append(
                    (float(row[f"diff_{headline}"]), int(row["units"]), float(row["sd_per_unit"])))
    rows = []
    for (a, b), blocks in per_pair.items():
        units = sum(n for _, n, _ in blocks)
        mean = sum(d * n for d, n, _ in blocks) / units
        # the spread of the units about the pooled mean: within blocks plus between their means
        ss = sum((n - 1) * sd * sd + n * (d - mean) ** 2 for d, n, sd in blocks)
        unit_half = 1.96 * math.sqrt(ss / max(units - 1, 1) / units)
        means = [d for d, _, _ in blocks]
        k = len(means)
        if k > 1:
            block_mean = sum(means) / k
            sd_blocks = math.sqrt(sum((d - block_mean) ** 2 for d in means) / (k - 1))
            block_lo = block_mean - t975(k - 1) * sd_blocks / math.sqrt(k)
            block_hi = block_mean + t975(k - 1) * sd_blocks / math.sqrt(k)
        else:
            block_mean, block_lo, block_hi = means[0], float("nan"), float("nan")
        rows.append({"agent_a": a, "agent_b": b, "blocks": k, "units": units, f"diff_{headline}": mean,
                     "lo": mean - unit_half, "hi": mean + unit_half, "block_mean": block_mean,
                     "block_lo": block_lo, "block_hi": block_hi, "per_block": "|".join(f"{d:.6g}" for d in means)})
    return rows


def format_pooled(rows: list[dict[str, Any]], headline: str, percent: bool, unit: str) -> str:
    f = 100.0 if percent else 1.0
    sign = "%" if percent else ""
    lines = []
    for r in rows:
        per_block = ", ".join(f"{f * float(d):+.2f}" for d in r["per_block"].split("|"))
        lines.append(f"  {r['agent_a']} - {r['agent_b']}: {f * r[f'diff_{headline}']:+.2f}{sign} over {r['units']} "
                     f"{unit}s [{f * r['lo']:+.2f}, {f * r['hi']:+.2f}]; over the {r['blocks']} seeds' means "
                     f"[{f * r['block_lo']:+.2f}, {f * r['block_hi']:+.2f}] (t)\n    per seed: {per_block}")
    return "\n".join(lines)


def run_seeds(args: argparse.Namespace, argv: list[str] | None,
               run_one: Callable[[argparse.Namespace, list[str] | None], int]) -> int:
    """Play (or find) one block per seed of ``args.seeds`` with ``run_one`` (the CLI's single match), then print
    and write (``OUT/seeds.csv``) the pooled differences."""
    if args.league:
        raise ValueError("--seeds and --league: put the agent on the ladder with one plain run")
    if not args.out:
        raise ValueError("--seeds needs --out FOLDER: each seed's match is kept there, and a rerun plays only the "
                         "missing ones")
    seeds = parse_seeds(args.seeds)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; give a folder for the matches")
    key = _match_key(args)
    folders = []
    for i, seed in enumerate(seeds, 1):
        folder = out / f"seed-{seed}"
        folders.append(folder)
        if _finished(folder, key):
            print(f"seed {seed} ({i}/{len(seeds)}): already played in {folder}")
            continue
        print(f"seed {seed} ({i}/{len(seeds)}) -> {folder}", flush=True)
        one = argparse.Namespace(**{**vars(args), "seed": seed, "out": str(folder), "seeds": None})
        code = run_one(one, argv)
        if code != 0:
            print(f"stopped at seed {seed} ({i}/{len(seeds)}); rerun the same command to play the missing ones",
                  file=sys.stderr)
            return code
        (folder / "block.json").write_text(json.dumps({"match": key, "seed": seed}, indent=1) + "\n")
    game = describe(json.loads((folders[0] / "run.json").read_text())["game"])
    rows = pooled(folders, game.headline)
    print(f"\npooled over {len(seeds)} seeds ({args.seeds}) of {args.deals} {game.unit}s each, A - B in "
          f"{game.headline_phrase}:\n" + format_pooled(rows, game.headline, game.headline_percent, game.unit))
    with open(out / "seeds.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}/seeds.csv")
    return 0
