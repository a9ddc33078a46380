"""``python -m play skat|thirtyone [--vs SPEC ...] [--seed N] [options]`` (terminal) and
``python -m play --web [--host 127.0.0.1] [--port 8000] [--no-open]`` (web table)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from envs.thirtyone.options import OPTION_NAMES


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def game_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m play", description=(
        "Play Skat or Thirty-One against the project's agents in the terminal "
        "(or: python -m play --web [--host H] [--port P] [--no-open] for the web table)."))
    ap.add_argument("game", choices=("skat", "thirtyone"))
    ap.add_argument("--vs", nargs="+", default=["rule"], metavar="SPEC",
                    help="the agents in the other seats, in seat order (random, rule, pimc, a .pt checkpoint, "
                         "module:Class); the last one fills the remaining seats (default: rule)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the deals and the agents (default: random)")
    ap.add_argument("--hint", metavar="SPEC", default=None, help="the agent whose move '!' shows, with probabilities")
    ap.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                    help="suit symbols and colour (auto: on a terminal, unless NO_COLOR is set)")
    skat = ap.add_argument_group("Skat options")
    skat.add_argument("--scoring", choices=("tournament", "classic"), default="tournament")
    skat.add_argument("--kontra", action="store_true", help="defenders may double (Kontra), the declarer redouble")
    skat.add_argument("--ramsch", action="store_true", help="a passed-in deal is played as Ramsch")
    t31 = ap.add_argument_group("Thirty-One options")
    t31.add_argument("--players", type=int, default=4, help="players at the table, 2..9 (default 4)")
    t31.add_argument("--lives", type=int, default=3, help="lives per player (default 3)")
    t31.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE",
                     help=f"further Thirty-One options: {', '.join(OPTION_NAMES)}")
    return ap


def web_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m play --web", description="Serve the web card table.")
    ap.add_argument("--web", action="store_true", required=True)
    ap.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--no-open", action="store_true", help="serve without opening a browser")
    ap.add_argument("--table-timeout", type=float, default=1800.0,
                    help="seconds after which a table nobody is connected to is removed (default 1800)")
    return ap


def build_terminal(args: argparse.Namespace) -> Any:
    from play.core import Table, agent_seed
    from play.opponents import make_agent, short_name
    from play.skat import ADAPTER as SKAT
    from play.terminal import Terminal, use_color
    from play.thirtyone import ADAPTER as THIRTYONE

    if args.game == "skat":
        adapter, options, seats = SKAT, {"scoring": args.scoring, "kontra": args.kontra, "ramsch": args.ramsch}, 3
    else:
        options = {"num_players": args.players, "lives": args.lives}
        for item in args.set:
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"--set {item!r}: expected KEY=VALUE, e.g. three_of_a_kind=30.5")
            options[key] = _parse_value(value)
        adapter, seats = THIRTYONE, options["num_players"]
        if not isinstance(seats, int) or not 2 <= seats <= 9:
            raise ValueError(f"--players must be 2..9, got {seats!r}")
    if len(args.vs) > seats - 1:
        raise ValueError(f"--vs names {len(args.vs)} agents, but {args.game} here has {seats - 1} other seats")
    specs = list(args.vs) + [args.vs[-1]] * (seats - 1 - len(args.vs))
    seed = args.seed
    if seed is None:
        import secrets

        seed = secrets.randbelow(2**31)
    bots = [make_agent(spec, args.game, agent_seed(seed, i + 1)) for i, spec in enumerate(specs)]
    short = [short_name(s) for s in specs]
    names = ["You"] + [f"{n} {i + 1}" if short.count(n) > 1 else n for i, n in enumerate(short)]
    table = Table(adapter, options, [None, *bots], names, human_seat=0, seed=seed)
    hint = make_agent(args.hint, args.game, agent_seed(seed, 15)) if args.hint else None
    return Terminal(table, sys.stdin, sys.stdout, color=use_color(args.color, sys.stdout), hint_agent=hint,
                    hint_name=short_name(args.hint) if args.hint else "")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--web" in argv:
        args = web_parser().parse_args(argv)
        from play.web.server import serve

        return serve(args.host, args.port, open_browser=not args.no_open, table_timeout=args.table_timeout)
    args = game_parser().parse_args(argv)
    try:
        terminal = build_terminal(args)
    except (ValueError, ImportError, OSError) as e:  # a bad spec, option or checkpoint: one line, exit 2
        print(f"python -m play: error: {e}", file=sys.stderr)
        return 2
    return terminal.run()


if __name__ == "__main__":
    raise SystemExit(main())
