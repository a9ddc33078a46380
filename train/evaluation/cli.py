"""Benchmark agents against each other: duplicate Skat deals, seat-rotated Thirty-One games.

    python -m train.evaluate --game skat rule random --deals 300
    python -m train.evaluate --game skat checkpoints/skat_ppo.pt rule random --deals 2000 --seed 1
    python -m train.evaluate --game thirtyone rule random --deals 50 --env num_players=4
    python -m train.evaluate --game skat my_agents.py:MyAgent --vs shipped            # new vs shipped
    python -m train.evaluate --league league.json --game skat checkpoints/new.pt   # place on the ladder
    python -m train.evaluate --league league.json --game skat                     # show the ladder
    python -m train.evaluate --game skat pimc --vs rule --deals 50 --seeds 201-212 --out runs/pimc_rule

AGENT is ``random``, ``rule``, a checkpoint path or a user class ``module:Class`` /
``path/to/file.py:Class``. Prints a table per agent and per pair and writes ``summary.csv``,
``pairwise.csv``, ``games.csv``, ``plot.png`` and ``run.json`` to ``--out``; ``--seeds 201-212,301-311`` plays one
such match per seed into ``--out``/seed-S (a rerun plays only the missing ones) and pools them. See
docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from agents import split_spec
from agents.user import is_class_spec
from envs.games import GAMES, GameDescription, describe
from train.errors import report_error
from train.evaluation import stats
from train.evaluation.match import MatchConfig, MatchInterrupted, MatchResult, games_per_unit, run_match

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"


def shipped(game: str) -> list[str]:
    """``random``, ``rule`` (where the game has one) and the checkpoints of a game that ship with the project
    (``checkpoints/<game>_*.pt``)."""
    found = []
    for path in sorted(CHECKPOINTS.glob(f"{game}_*.pt")):
        relative = os.path.relpath(path)
        found.append(relative if not relative.startswith("..") else str(path))
    if not found:
        print(f"note: no shipped checkpoints {CHECKPOINTS}/{game}_*.pt found", file=sys.stderr)
    return ["random", *(["rule"] if describe(game).rule_agent else []), *found]


def _checkpoint_metadata(spec: str) -> dict[str, Any] | None:
    if spec in ("random", "rule") or is_class_spec(spec) or not os.path.isfile(split_spec(spec)[0]):
        return None
    from agents import checkpoint

    return checkpoint.load(split_spec(spec)[0])["metadata"]


def _game(args: argparse.Namespace, specs: list[str]) -> str:
    """``--game``, else the game of the first checkpoint among the agents."""
    if args.game:
        return args.game
    for spec in specs:
        meta = _checkpoint_metadata(spec)
        if meta is not None:
            return meta["game"]
    raise SystemExit(f"error: give --game ({' or '.join(GAMES)}; no checkpoint to take it from)")


def _env_options(args: argparse.Namespace, game: str, specs: list[str]) -> dict[str, Any]:
    """The env options: ``--env KEY=VALUE`` flags, else those of the first checkpoint of the game."""
    options: dict[str, Any] = {}
    if args.env:
        for item in args.env:
            key, sep, value = item.partition("=")
            if not sep:
                raise SystemExit(f"error: --env expects KEY=VALUE, got {item!r}")
            options[key.strip()] = yaml.safe_load(value)
    else:
        for spec in specs:
            meta = _checkpoint_metadata(spec)
            if meta is not None and meta["game"] == game:
                options = dict(meta.get("env_options") or {})
                break
    overridden = describe(game).match_overrides  # set by the match itself (a fixed dealer, place rewards)
    return {k: v for k, v in options.items() if k not in overridden}


# ------------------------------------------------------------------------------------ output
def agent_table(game: GameDescription, rows: list[dict[str, Any]], target: float) -> str:
    width = max(5, *(len(r["agent"]) for r in rows))
    columns = game.columns()
    plan = f"{game.unit}s for ±{target:g}{'%' if game.headline_percent else ''}"
    head = "  ".join([f"{'agent':<{width}}", f"{'games':>6}", *(f"{c.header:>{c.width}}" for c in columns),
                      f"{plan:>{len(plan) + 2}}"])
    lines = [head, "-" * len(head)]
    for r in rows:
        need = "-" if r["units_needed"] is None else str(r["units_needed"])
        lines.append("  ".join([f"{r['agent']:<{width}}", f"{r['games']:>6}",
                                *(f"{c.cell(r):>{c.width}}" for c in columns), f"{need:>{len(plan) + 2}}"]))
    return "\n".join(lines)


def pair_table(game: GameDescription, rows: list[dict[str, Any]], target: float) -> str:
    if not rows:
        return ""
    unit = f"{game.unit}s"
    lines = [f"pairwise, A - B in {game.headline_phrase}, paired over {unit} (bootstrap 95% CI; normal CI):"]
    pct = game.headline_percent
    f = 100.0 if pct else 1.0
    key = f"diff_{game.headline}"
    for r in rows:
        verdict = ("A stronger" if r["lo"] > 0 else "B stronger") if r["significant"] else "no significant difference"
        if r["units"] < stats.MIN_UNITS:
            verdict = f"too few {unit} for a verdict"
        need = "-" if r["units_needed"] is None else r["units_needed"]
        interval = (f"[{f * r['lo']:+.2f}, {f * r['hi']:+.2f}] (normal [{f * r['normal_lo']:+.2f}, "
                    f"{f * r['normal_hi']:+.2f}])" if r["lo"] == r["lo"] else "[too few]")
        lines.append(f"  {r['agent_a']} - {r['agent_b']}: {f * r[key]:+.2f}{'%' if pct else ''} {interval}; "
                     f"{game.pair_text(r)}; A better in {100 * r['a_better_units']:.0f}% "
                     f"of {unit}, B in {100 * r['b_better_units']:.0f}%; {verdict}; {unit} for ±{target:g}: {need}")
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, tuple | list):
        return "|".join(f"{x:g}" for x in value)
    return value


def write_games(path: Path, result: MatchResult) -> None:
    columns = result.game.record_columns
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["unit", "matchup", "seating", "returns", *columns])
        for r in result.records:
            w.writerow([r.unit, r.matchup, "|".join(result.labels[a] for a in r.seating),
                        "|".join(f"{x:g}" for x in r.returns), *(_cell(r.details[c]) for c in columns)])


def plot(path: Path, game: GameDescription, rows: list[dict[str, Any]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = game.plot_panels()
    fig, axes = plt.subplots(1, 2, figsize=(4 + 1.3 * len(rows), 4.2))
    # A checkpoint is named by its file (the folders are in the table and run.json).
    names = [Path(n).name if n.endswith(".pt") else n for n in (r["agent"] for r in rows)]
    for ax, (key, label, f) in zip(axes, panels, strict=True):
        vals = [f * r[key] for r in rows]
        err = [[max(0.0, f * (r[key] - r[f"{key}_lo"])) for r in rows],
               [max(0.0, f * (r[f"{key}_hi"] - r[key])) for r in rows]]
        ax.bar(range(len(rows)), vals, yerr=err, capsize=6, color="tab:blue", alpha=0.8)
        ax.set_xticks(range(len(rows)), [n if len(n) <= 18 else "…" + n[-17:] for n in names], rotation=20)
        ax.set_ylabel(label)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------ main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.evaluate", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("agents", nargs="*", metavar="AGENT", help="random | rule | CHECKPOINT.pt | module:Class")
    p.add_argument("--game", help=f"{' or '.join(GAMES)} (or a PettingZoo env module); default: the game of the "
                                  "first checkpoint")
    p.add_argument("--deals", "-n", type=int, default=200,
                   help="Skat duplicate deals / Thirty-One blocks (each played in every seating; default 200)")
    p.add_argument("--seed", type=int, default=0, help="deals, decks and agent randomness (default 0)")
    p.add_argument("--workers", type=int, default=2, help="processes (default 2; 1 = in this process)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. --env num_players=3 (default: the first checkpoint's env options)")
    p.add_argument("--vs", nargs="+", default=[], metavar="AGENT",
                   help="opponents: each AGENT plays each of these in its own duplicate match; 'shipped' = "
                        "random, rule and the shipped checkpoints/<game>_*.pt")
    p.add_argument("--schedule", choices=("table", "pairs"),
                   help="table: all agents at the table together (default without --vs/--league); pairs: "
                        "every pair on its own, or with --vs/--league each AGENT against each opponent")
    p.add_argument("--greedy", action="store_true", help="checkpoints play their most likely action")
    p.add_argument("--target-ci", type=float, help="planned 95%% half-width: Skat points per game (default 5), "
                                                   "Thirty-One percentage points of win rate (default 2)")
    p.add_argument("--resamples", type=int, default=stats.DEFAULT_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--chunk-size", type=int, help="units per work item (part of the seed; default ~100 Skat "
                                                  "or ~12 Thirty-One games per item)")
    p.add_argument("--out", help="output folder (default runs/eval/<game>-<time>)")
    p.add_argument("--league", metavar="FILE", help="update (and print) the openskill ladder in this JSON file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--seeds", metavar="SEEDS",
                   help="play one match of --deals per seed (e.g. 201-212,301-311) into --out/seed-S, skipping "
                        "those already there, and pool them (mean, intervals over units and over the seeds)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.seeds:
            from train.evaluation.seeds import run_seeds

            return run_seeds(args, argv, run)
        return run(args, argv)
    except (ValueError, ImportError, OSError) as e:  # bad agent spec, checkpoint, env option, league file, --out
        return report_error(e)


def run(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    focus = list(args.agents)
    league = None
    if args.league:
        from train.evaluation.league import League

        league = League(args.league)
        if not focus:
            if not args.game:
                raise SystemExit("error: give --game to show a ladder")
            print(league.format_ladder(args.game))
            return 0
    elif not focus:
        build_parser().error("give at least one AGENT")
    game = _game(args, focus + [o for o in args.vs if o != "shipped"])
    opponents: list[str] = []
    for spec in args.vs:
        for o in shipped(game) if spec == "shipped" else [spec]:
            if o not in focus and o not in opponents:
                opponents.append(o)
    if league is not None:
        others, missing = league.opponents(game, focus)
        if missing:
            print(f"league: not playable here (file missing or changed), skipped: {', '.join(missing)}")
        opponents += [o for o in others if o not in opponents]
    specs = focus + opponents
    env_options = _env_options(args, game, specs)
    if len(set(specs)) < 2 and league is not None:
        seeds = [s for s in shipped(game) if s not in specs]
        print(f"league: {args.league} has no other {game} agent yet; seeding it with the shipped agents: "
              f"{', '.join(seeds)}")
        opponents += seeds
        specs = focus + opponents
    schedule = args.schedule or ("pairs" if opponents else "table")
    focus_idx = list(range(len(focus))) if schedule == "pairs" and opponents else None
    description = describe(game)
    out = Path(args.out or f"runs/eval/{game}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; give a folder for summary.csv, pairwise.csv, games.csv, "
                         "plot.png and run.json")
    target = args.target_ci if args.target_ci is not None else description.default_target_ci
    cfg = MatchConfig(game, specs, args.deals, args.seed, env_options, schedule, focus_idx, args.greedy)
    cfg.chunk_size = args.chunk_size or max(1, round(description.games_per_work_item / games_per_unit(cfg)))
    unit = description.unit_phrase
    stopped = ""
    try:
        result = run_match(cfg, workers=args.workers, progress=not args.no_progress)
    except MatchInterrupted as e:  # Ctrl-C or SIGTERM: report the units that were finished, exit 130
        result, stopped = e.result, e.reason
    deals = len(result.units_played())
    if stopped:
        print(f"stopped by {stopped} after {deals} of {args.deals} {unit} ({len(result.records)} games)"
              + ("" if deals else "; nothing to report"), file=sys.stderr)
        if not deals:
            return 130
    rows = stats.agent_summary(result, target, args.resamples, args.seed)
    pairs = stats.pairwise_summary(result, target, args.resamples, args.seed)
    small = deals < stats.MIN_UNITS
    if small:  # intervals and verdicts from a handful of units would only mislead
        for row in rows:
            for metric in description.metrics:
                row[f"{metric.name}_lo"] = row[f"{metric.name}_hi"] = float("nan")
        for row in pairs:
            row["significant"] = False
            row.update({k: float("nan") for k in row if k.endswith(("lo", "hi"))})
    title = (f"{game}: {deals} {unit}{f' (stopped by {stopped}: {deals} of {args.deals})' if stopped else ''}, "
             f"{len(result.records)} games, seed {args.seed}, schedule {schedule}"
             f"{', env ' + json.dumps(env_options) if env_options else ''}")
    note = description.table_note(result.seats)
    print(title + f"\n95% intervals: paired bootstrap over {unit.split()[-1]} ({args.resamples} resamples){note}")
    if small:
        print(f"note: {deals} {description.unit}s is too small a sample for intervals or verdicts "
              f"(at least {stats.MIN_UNITS}); run more --deals")
    print(agent_table(description, rows, target))
    print(pair_table(description, pairs, target))
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "summary.csv", rows)
    write_csv(out / "pairwise.csv", pairs)
    write_games(out / "games.csv", result)
    plot(out / "plot.png", description, rows, title)
    run = {"argv": sys.argv[1:] if argv is None else argv, "game": game, "specs": specs, "env_options": env_options,
           "seats": result.seats, "deals": args.deals, "seed": args.seed, "schedule": schedule,
           "greedy": args.greedy, "chunk_size": cfg.chunk_size, "games": len(result.records)}
    if stopped:  # which units were finished: rerunning with the same seed and chunk size replays them
        run.update(stopped_by=stopped, units_played=result.units_played())
    (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")
    print(f"wrote {out}/summary.csv, pairwise.csv, games.csv, plot.png, run.json")
    if stopped:
        if league is not None:
            print(f"league: not updated ({args.league}): the match was stopped")
        return 130
    if league is not None:
        matches = league.update(result)
        league.save()
        print(f"league: {matches} rated matches added\n" + league.format_ladder(game))
    return 0


if __name__ == "__main__":
    sys.exit(main())
