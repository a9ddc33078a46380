"""Benchmark agents against each other: duplicate Skat deals, seat-rotated Thirty-One games.

    python -m train.evaluate --game skat rule random --deals 300
    python -m train.evaluate --game skat checkpoints/skat_ppo.pt rule random --deals 2000 --seed 1
    python -m train.evaluate --game thirtyone rule random --deals 50 --env num_players=4
    python -m train.evaluate --game skat my_agents.py:MyAgent --vs shipped            # new vs shipped
    python -m train.evaluate --league league.json --game skat checkpoints/new.pt   # place on the ladder
    python -m train.evaluate --league league.json --game skat                     # show the ladder

AGENT is ``random``, ``rule``, a checkpoint path or a user class ``module:Class`` /
``path/to/file.py:Class``. Prints a table per agent and per pair and writes ``summary.csv``,
``pairwise.csv``, ``games.csv``, ``plot.png`` and ``run.json`` to ``--out``. See docs/evaluation.md.
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
from train import stats
from train.duplicate import MatchConfig, MatchResult, games_per_unit, run_match

GAMES = ("skat", "thirtyone")
DEFAULT_TARGET = {"skat": 5.0, "thirtyone": 2.0}  # points per game / percentage points of win rate


def shipped(game: str) -> list[str]:
    """``random``, ``rule`` and the shipped checkpoints of a game that exist here."""
    root = Path(__file__).resolve().parents[1] / "checkpoints"
    found = []
    for algo in ("ppo", "nfsp"):
        path = root / f"{game}_{algo}.pt"
        if path.is_file():
            found.append(os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path))
        else:
            print(f"note: shipped checkpoint {path} not found, skipped", file=sys.stderr)
    return ["random", "rule", *found]


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
    raise SystemExit("error: give --game skat or --game thirtyone (no checkpoint to take it from)")


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
    if game == "thirtyone":
        options.pop("reward_scheme", None)  # the evaluator reads places (see train.duplicate.make_env)
    return options


# ------------------------------------------------------------------------------------ output
def _fmt(row: dict[str, Any], key: str, digits: int = 1, percent: bool = False) -> str:
    return stats.Estimate(row[key], row[f"{key}_lo"], row[f"{key}_hi"]).format(digits, percent)


def agent_table(game: str, rows: list[dict[str, Any]], target: float) -> str:
    width = max(5, *(len(r["agent"]) for r in rows))
    if game == "skat":
        head = (f"{'agent':<{width}}  {'games':>6}  {'points/game [95% CI]':>24}  {'per 36-game list':>24}  "
                f"{'declared':>8}  {'declarer won':>22}  {'suit/grand/null':>15}  {'passed in':>9}  "
                f"{'defence won':>11}  {f'deals for ±{target:g}':>14}")
    else:
        head = (f"{'agent':<{width}}  {'games':>6}  {'win rate [95% CI]':>24}  {'average place':>22}  "
                f"{f'blocks for ±{target:g}%':>16}")
    lines = [head, "-" * len(head)]
    for r in rows:
        need = "-" if r["units_needed"] is None else str(r["units_needed"])
        if game == "skat":
            types = "/".join("-" if r[k] != r[k] else f"{100 * r[k]:.0f}" for k in ("suit_share", "grand_share",
                                                                                     "null_share"))
            lines.append(f"{r['agent']:<{width}}  {r['games']:>6}  {_fmt(r, 'points_per_game'):>24}  "
                         f"{_fmt(r, 'points_per_list', 0):>24}  {100 * r['declarer_share']:>7.1f}%  "
                         f"{_fmt(r, 'declarer_win_rate', 1, True):>22}  {types:>15}  "
                         f"{100 * r['passed_in_rate']:>8.1f}%  {100 * r['defence_win_rate']:>10.1f}%  {need:>14}")
        else:
            lines.append(f"{r['agent']:<{width}}  {r['games']:>6}  {_fmt(r, 'win_rate', 1, True):>24}  "
                         f"{_fmt(r, 'avg_place', 2):>22}  {need:>16}")
    return "\n".join(lines)


def pair_table(game: str, rows: list[dict[str, Any]], target: float) -> str:
    if not rows:
        return ""
    unit = "deals" if game == "skat" else "blocks"
    what = "points per game" if game == "skat" else "win rate"
    lines = [f"pairwise, A - B in {what}, paired over {unit} (bootstrap 95% CI; normal CI):"]
    for r in rows:
        pct = game == "thirtyone"
        f = 100.0 if pct else 1.0
        key = "diff_points_per_game" if game == "skat" else "diff_win_rate"
        verdict = ("A stronger" if r["lo"] > 0 else "B stronger") if r["significant"] else "no significant difference"
        extra = (f"per list {r['diff_points_per_list']:+.0f}" if game == "skat"
                 else f"place {r['diff_avg_place']:+.2f} [{r['place_lo']:+.2f}, {r['place_hi']:+.2f}]")
        need = "-" if r["units_needed"] is None else r["units_needed"]
        lines.append(f"  {r['agent_a']} - {r['agent_b']}: {f * r[key]:+.2f}{'%' if pct else ''} "
                     f"[{f * r['lo']:+.2f}, {f * r['hi']:+.2f}] (normal [{f * r['normal_lo']:+.2f}, "
                     f"{f * r['normal_hi']:+.2f}]); {extra}; A better in {100 * r['a_better_units']:.0f}% of {unit}, "
                     f"B in {100 * r['b_better_units']:.0f}%; {verdict}; {unit} for ±{target:g}: {need}")
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_games(path: Path, result: MatchResult) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["unit", "matchup", "seating", "returns", "declarer", "game_type", "won", "passed_in", "places"])
        for r in result.records:
            w.writerow([r.unit, r.matchup, "|".join(result.labels[a] for a in r.seating),
                        "|".join(f"{x:g}" for x in r.returns), r.declarer, r.game_type, int(r.won),
                        int(r.passed_in), "|".join(f"{x:g}" for x in r.places)])


def plot(path: Path, game: str, rows: list[dict[str, Any]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = ([("points_per_game", "Seeger-Fabian points per game", 1.0),
               ("declarer_win_rate", "declarer win rate (%)", 100.0)] if game == "skat" else
              [("win_rate", "win rate (%)", 100.0), ("avg_place", "average place (1 = best)", 1.0)])
    fig, axes = plt.subplots(1, 2, figsize=(4 + 1.3 * len(rows), 4.2))
    names = [r["agent"] for r in rows]
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
    p.add_argument("--game", choices=GAMES, help="default: the game of the first checkpoint")
    p.add_argument("--deals", "-n", type=int, default=200,
                   help="Skat duplicate deals / Thirty-One blocks (each played in every seating; default 200)")
    p.add_argument("--seed", type=int, default=0, help="deals, decks and agent randomness (default 0)")
    p.add_argument("--workers", type=int, default=2, help="processes (default 2; 1 = in this process)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. --env num_players=3 (default: the first checkpoint's env options)")
    p.add_argument("--vs", nargs="+", default=[], metavar="AGENT",
                   help="opponents: each AGENT plays each of these in its own duplicate match; 'shipped' = "
                        "random, rule and the shipped checkpoints/<game>_{ppo,nfsp}.pt")
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
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args, argv)
    except (ValueError, ImportError) as e:  # bad agent spec, checkpoint, env option, league file
        print(f"error: {e}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    focus = list(args.agents)
    league = None
    if args.league:
        from train.league import League

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
        raise SystemExit("error: the league has no other agent to play; start it with two or more, "
                         "e.g. `--league FILE --game skat random rule`")
    schedule = args.schedule or ("pairs" if opponents else "table")
    focus_idx = list(range(len(focus))) if schedule == "pairs" and opponents else None
    target = args.target_ci if args.target_ci is not None else DEFAULT_TARGET[game]
    cfg = MatchConfig(game, specs, args.deals, args.seed, env_options, schedule, focus_idx, args.greedy)
    cfg.chunk_size = args.chunk_size or max(1, round((96 if game == "skat" else 12) / games_per_unit(cfg)))
    result = run_match(cfg, workers=args.workers, progress=not args.no_progress)
    rows = stats.agent_summary(result, target, args.resamples, args.seed)
    pairs = stats.pairwise_summary(result, target, args.resamples, args.seed)
    unit = "duplicate deals" if game == "skat" else "seat-rotated blocks"
    title = (f"{game}: {args.deals} {unit}, {len(result.records)} games, seed {args.seed}, schedule {schedule}"
             f"{', env ' + json.dumps(env_options) if env_options else ''}")
    fair = f"; a fair share of wins is 1/{result.seats} per seat" if game == "thirtyone" else ""
    print(title + f"\n95% intervals: paired bootstrap over {unit.split()[-1]} ({args.resamples} resamples){fair}")
    print(agent_table(game, rows, target))
    print(pair_table(game, pairs, target))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out or f"runs/eval/{game}-{stamp}")
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "summary.csv", rows)
    write_csv(out / "pairwise.csv", pairs)
    write_games(out / "games.csv", result)
    plot(out / "plot.png", game, rows, title)
    run = {"argv": sys.argv[1:] if argv is None else argv, "game": game, "specs": specs, "env_options": env_options,
           "seats": result.seats, "deals": args.deals, "seed": args.seed, "schedule": schedule,
           "greedy": args.greedy, "chunk_size": cfg.chunk_size, "games": len(result.records)}
    (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")
    print(f"wrote {out}/summary.csv, pairwise.csv, games.csv, plot.png, run.json")
    if league is not None:
        matches = league.update(result)
        league.save()
        print(f"league: {matches} rated matches added\n" + league.format_ladder(game))
    return 0


if __name__ == "__main__":
    sys.exit(main())
