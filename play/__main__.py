"""``python -m play GAME [--variant NAME] [--set KEY=VALUE ...] [--vs SPEC ...] [--seed N]`` (terminal)
and ``python -m play --web [--host 127.0.0.1] [--port 8000] [--no-open]`` (web table)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from typing import Any

from play.adapters import adapter, games


def parse_value(text: str) -> Any:
    """``--set`` values: true/false, none, integers, numbers, else the text itself (the env checks them)."""
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
        "Play a card game against the project's agents in the terminal "
        "(or: python -m play --web [--host H] [--port P] [--no-open] for the web table)."))
    ap.add_argument("game", choices=games())
    ap.add_argument("--vs", nargs="+", default=["rule"], metavar="SPEC",
                    help="the agents in the other seats, in seat order (random, rule, pimc, a .pt checkpoint, "
                         "module:Class); the last one fills the remaining seats (default: rule)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the deals and the agents (default: random)")
    ap.add_argument("--hint", metavar="SPEC", default=None, help="the agent whose move '!' shows, with probabilities")
    ap.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                    help="suit symbols and colour (auto: on a terminal, unless NO_COLOR is set)")
    variants = "; ".join(f"{adapter(g).title}: {', '.join(v['name'] for v in adapter(g).setup()['variants'])}"
                         for g in games())
    ap.add_argument("--variant", metavar="NAME", default=None, help=f"a named table of the game ({variants})")
    ap.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE",
                    help="any table option of the game, e.g. --set supra=true players=4 (a wrong value is "
                         "answered with the valid ones)")
    by_flag: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for game in games():
        for flag in adapter(game).flags:
            by_flag.setdefault(flag.flag, []).append((adapter(game).title, dict(flag.kwargs)))
    group = ap.add_argument_group("table options of one game (or --set KEY=VALUE)")
    for name, owners in by_flag.items():
        kwargs = owners[0][1]
        helps = [f"{title}: {kw.get('help', kw.get('choices', ''))}" for title, kw in owners]
        kwargs["help"] = "; ".join(str(h) for h in helps)
        group.add_argument(name, dest=name.lstrip("-").replace("-", "_"), **{"default": None, **kwargs})
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


def table_options(args: argparse.Namespace) -> dict[str, Any]:
    """The table options of the command line: --variant, the game's flags, then --set."""
    a = adapter(args.game)
    options: dict[str, Any] = {} if args.variant is None else {"variant": args.variant}
    mine = {f.flag: f.option for f in a.flags}
    for game in games():
        for flag in adapter(game).flags:
            value = getattr(args, flag.flag.lstrip("-").replace("-", "_"))
            if value is None:
                continue
            if flag.flag not in mine:
                raise ValueError(f"{flag.flag} is not an option of {a.title} (its options: "
                                 f"{', '.join(mine) or 'none'}, or --set KEY=VALUE)")
            options[mine[flag.flag]] = value
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set {item!r}: expected KEY=VALUE, e.g. --set {a.option_names[1]}=...")
        options[key] = parse_value(value)
    return a.check_options(options)


def build_terminal(args: argparse.Namespace) -> Any:
    from play.core import Table, agent_seed
    from play.opponents import make_agent, short_name
    from play.terminal import Terminal, use_color

    a = adapter(args.game)
    options = table_options(args)
    env = a.make_env(options)  # the env checks the values (one line naming a bad one)
    seats = len(env.possible_agents)
    if len(args.vs) > seats - 1:
        raise ValueError(f"--vs names {len(args.vs)} agents, but this {a.title} table has {seats - 1} other seats")
    specs = list(args.vs) + [args.vs[-1]] * (seats - 1 - len(args.vs))
    seed = args.seed
    if seed is None:
        import secrets

        seed = secrets.randbelow(2**31)
    bots = [make_agent(spec, args.game, agent_seed(seed, i + 1), env) for i, spec in enumerate(specs)]
    short = [short_name(s) for s in specs]
    names = ["You"] + [f"{n} {i + 1}" if short.count(n) > 1 else n for i, n in enumerate(short)]
    table = Table(a, options, [None, *bots], names, human_seat=0, seed=seed)
    hint = make_agent(args.hint, args.game, agent_seed(seed, 15), env) if args.hint else None
    return Terminal(table, sys.stdin, sys.stdout, color=use_color(args.color, sys.stdout), hint_agent=hint,
                    hint_name=short_name(args.hint) if args.hint else "")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--web" in argv:
        args = web_parser().parse_args(argv)
        from play.web.server import serve

        return serve(args.host, args.port, open_browser=not args.no_open, table_timeout=args.table_timeout)
    args = game_parser().parse_args(argv)
    with ctrl_c_leaves():
        try:
            terminal = build_terminal(args)
        except (ValueError, ImportError, OSError) as e:  # a bad spec, option or checkpoint: one line, exit 2
            print(f"python -m play: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:  # while an agent loads (a search agent's first numba compile)
            print("python -m play: stopped", file=sys.stderr)
            return 130
        return terminal.run()


def ctrl_c_leaves() -> contextlib.AbstractContextManager[None]:
    """Ctrl-C raises :class:`train.interrupt.StopNow`, which the table catches as any KeyboardInterrupt (the
    session ends with its score, exit 0): a bare KeyboardInterrupt that passed through exec'd code (a search
    agent's first numba compile) would make ``python -m play`` end by SIGINT whatever it returns."""
    from train.interrupt import signals_stop_now

    return signals_stop_now((signal.SIGINT,))


if __name__ == "__main__":
    raise SystemExit(main())
