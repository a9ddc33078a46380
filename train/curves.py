"""Learning curves from the trainer's TensorBoard logs, as one picture: a metric over learner steps,
over games played (where the run logs ``charts/episodes``) and over wall-clock time, one line per run.

    python -m train.curves runs/skat_dmc_1 runs/skat_ppo_1 --metric eval/mean_score_vs_rule --out curves.png
    python -m train.curves runs/thirtyone_dmc_1 --metric eval/win_rate_vs_rule eval/win_rate_vs_random

Every run folder written by ``python -m train`` holds the scalars the trainer logs (``eval/...``,
``charts/SPS``, losses); ``--list`` prints the names in a run. The 95% half-widths the trainer logs
beside a score (``eval/mean_score_ci_vs_X``) are drawn as a band.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def read_scalars(run: Path) -> dict[str, list[tuple[int, float, float]]]:
    """``tag -> [(step, value, wall seconds since the run's first event)]`` from a run's event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    if not run.is_dir():
        raise ValueError(f"{run}: not a folder (give a run folder under runs/, e.g. runs/skat_ppo_1)")
    acc = EventAccumulator(str(run), size_guidance={"scalars": 0})
    acc.Reload()
    tags = acc.Tags().get("scalars", [])
    if not tags:
        raise ValueError(f"{run}: no TensorBoard scalars in it (is it a run folder written by python -m train?)")
    events = {tag: acc.Scalars(tag) for tag in tags}
    start = min(e.wall_time for evs in events.values() for e in evs)
    return {tag: [(e.step, e.value, e.wall_time - start) for e in evs] for tag, evs in events.items()}


GAMES_TAG = "charts/episodes"  # the trainer's count of finished games, logged with every update


def _games_at(scalars: dict[str, list[tuple[int, float, float]]], step: int) -> float | None:
    """Games (episodes) finished by ``step``: the last ``charts/episodes`` logged at or before it."""
    before = [value for s, value, _ in scalars.get(GAMES_TAG, []) if s <= step]
    return before[-1] if before else None


def _ci_tag(metric: str) -> str:
    head, _, tail = metric.rpartition("/")
    return f"{head}/{tail.replace('mean_score_', 'mean_score_ci_', 1)}" if "mean_score_vs" in tail else ""


def plot(runs: dict[str, dict[str, list[tuple[int, float, float]]]], metrics: list[str], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with_games = any(GAMES_TAG in scalars for scalars in runs.values())
    axes_x = [("learner steps", 0, 1.0), *([("games played", -1, 1.0)] if with_games else []),
              ("wall-clock hours", 2, 3600.0)]
    fig, axes = plt.subplots(len(metrics), len(axes_x), figsize=(5.5 * len(axes_x), 3.6 * len(metrics)),
                             squeeze=False)
    for row, metric in enumerate(metrics):
        for col, (label, index, scale) in enumerate(axes_x):
            ax = axes[row][col]
            for name, scalars in runs.items():
                points = scalars.get(metric) or []
                if index == -1:  # games: only the points the run's episode counter reaches
                    games = [_games_at(scalars, p[0]) for p in points]
                    points = [p for p, g in zip(points, games, strict=True) if g is not None]
                    xs = [g for g in games if g is not None]
                else:
                    xs = [p[index] / scale for p in points]
                if not points:
                    continue
                ys = [p[1] for p in points]
                (line,) = ax.plot(xs, ys, marker="o", markersize=3, label=name)
                ci = {p[0]: p[1] for p in scalars.get(_ci_tag(metric), [])}
                if ci and all(p[0] in ci for p in points):
                    half = [ci[p[0]] for p in points]
                    low = [y - h for y, h in zip(ys, half, strict=True)]
                    high = [y + h for y, h in zip(ys, half, strict=True)]
                    ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.15)
            ax.set_xlabel(label)
            ax.set_ylabel(metric)
            ax.grid(alpha=0.3)
            if row == 0 and col == 0:
                ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.curves", description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (runs/<run name>)")
    parser.add_argument("--metric", nargs="+", default=["eval/mean_score_vs_rule"],
                        help="scalar names to plot (default eval/mean_score_vs_rule)")
    parser.add_argument("--out", type=Path, default=Path("curves.png"), help="picture to write (default curves.png)")
    parser.add_argument("--list", action="store_true", help="print the scalar names of each run and stop")
    args = parser.parse_args(argv)
    try:
        runs = {run.name: read_scalars(run) for run in args.runs}
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.list:
        for name, scalars in runs.items():
            print(f"{name}: {', '.join(sorted(scalars))}")
        return 0
    missing = [m for m in args.metric if not any(m in s for s in runs.values())]
    if missing:
        known = sorted({t for s in runs.values() for t in s})
        print(f"error: no run logged {', '.join(missing)}; logged: {', '.join(known)}", file=sys.stderr)
        return 2
    plot(runs, args.metric, args.out)
    for name, scalars in runs.items():
        for metric in args.metric:
            points = scalars.get(metric)
            if points:
                best = max(points, key=lambda p: p[1])
                print(f"{name} {metric}: last {points[-1][1]:.4g} at step {points[-1][0]:,}, "
                      f"best {best[1]:.4g} at step {best[0]:,}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
