"""Environment throughput, side by side with peers, in one run.

    python -m train.bench env skat          # rules core, AEC loop (wrapped and raw), OpenSpiel if installed
    python -m train.bench env thirtyone
    python -m train.bench env all --seconds 5 --json bench.json
    python -m train.bench env skat --batch 16384      # the batched engine's row at another batch size

The last row of each game is its batched engine (``vector_env``, one torch thread) at ``--batch`` games
in flight (0 leaves it out); ``python -m train.bench vector`` gives its whole batch-size curve and memory.

A *decision* is one action of one player. Every row samples uniformly from the legal actions,
so rows differ only in the machinery around the game. Run it on an idle machine; each row runs
for ``--seconds`` on one core (the process is single-threaded).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable

import numpy as np

from envs.games import GAMES, describe
from envs.vector_bench import aec_random_loop as aec_loop


def _timed(fn: Callable[[float], tuple[int, int]], seconds: float) -> dict[str, float]:
    fn(min(0.3, seconds / 5))  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    decisions, episodes = fn(seconds)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {"decisions_per_s": decisions / wall, "episodes_per_s": episodes / wall,
            "decisions_per_episode": decisions / max(episodes, 1), "cpu_per_wall": cpu / wall}


def core_loop(game, seed: int = 0) -> Callable[[float], tuple[int, int]]:
    """legal_actions + apply_action with uniform random choices, new deal at each end."""
    rng = random.Random(seed)

    def run(seconds: float) -> tuple[int, int]:
        n = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            state = game.new_initial_state(rng.getrandbits(32))
            for _ in range(1000):  # check the clock once per episode
                if state.current_player < 0:
                    break
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                n += 1
            episodes += 1
        return n, episodes

    return run


def openspiel_loops(name: str, seed: int = 0) -> dict[str, Callable[[float], tuple[int, int]]]:
    """OpenSpiel's game ``name``: (a) legal_actions + apply, (b) + observation tensor as numpy, (c) rl_environment."""
    import pyspiel
    from open_spiel.python import rl_environment

    game = pyspiel.load_game(name)
    rng = random.Random(seed)

    def play(with_obs: bool) -> Callable[[float], tuple[int, int]]:
        def run(seconds: float) -> tuple[int, int]:
            n = episodes = 0
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                state = game.new_initial_state()
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes = state.chance_outcomes()
                        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                        continue
                    if with_obs:
                        np.asarray(state.observation_tensor(state.current_player()), dtype=np.float32)
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
                    n += 1
                episodes += 1
            return n, episodes

        return run

    def rl_env(seconds: float) -> tuple[int, int]:
        env = rl_environment.Environment(game, seed=seed)
        n = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            ts = env.reset()
            while not ts.last():
                p = ts.observations["current_player"]
                np.asarray(ts.observations["info_state"][p], dtype=np.float32)
                legal = ts.observations["legal_actions"][p]
                ts = env.step([legal[rng.randrange(len(legal))]])
                n += 1
            episodes += 1
        return n, episodes

    return {f"openspiel {name} (a) legal_actions+apply": play(False),
            f"openspiel {name} (b) + observation_tensor": play(True),
            f"openspiel {name} (c) rl_environment": rl_env}


def vector_row(game_name: str, batch: int, seed: int = 0) -> Callable[[float], tuple[int, int]]:
    """The batched engine at ``batch`` games in flight: decisions (episodes are not counted)."""
    import torch

    from envs.vector_bench import vector_loop

    torch.set_num_threads(1)
    run, _ = vector_loop(game_name, batch, "cpu", {}, seed)
    return lambda seconds: (run(seconds), 0)


def bench_env(game_name: str, seconds: float, batch: int = 4096) -> list[dict]:
    game = describe(game_name)
    rows: list[dict] = []
    core = game.rules_game()
    loops = {}
    if core is not None:
        loops[f"{game_name} rules core (legal_actions+apply)"] = core_loop(core)
    loops[f"{game_name} AEC loop, env() with wrappers"] = aec_loop(game.env())
    loops[f"{game_name} AEC loop, raw_env"] = aec_loop(game.raw_env())
    peer = game.openspiel_name
    if peer:
        try:
            loops.update(openspiel_loops(peer))
        except ImportError:
            print(f"(open_spiel not installed: `pip install open_spiel` to add its {peer} rows)")
    if batch > 0:
        loops[f"{game_name} batched engine, vector_env batch {batch}"] = vector_row(game_name, batch)
    for label, fn in loops.items():
        row = {"row": label, **_timed(fn, seconds)}
        rows.append(row)
        episodes = (f"{row['episodes_per_s']:>9,.0f} episodes/s  ({row['decisions_per_episode']:.1f} per episode)"
                    if row["episodes_per_s"] else "")
        print(f"{label:<52} {row['decisions_per_s']:>11,.0f} decisions/s  {episodes}", flush=True)
    by = {r["row"]: r["decisions_per_s"] for r in rows}
    ref_c = by.get(f"openspiel {peer} (c) rl_environment")
    ref_a = by.get(f"openspiel {peer} (a) legal_actions+apply")
    if ref_c and ref_a and core is not None:
        aec = by[f"{game_name} AEC loop, env() with wrappers"]
        core_rate = by[f"{game_name} rules core (legal_actions+apply)"]
        print(f"ratios: AEC wrapped / OpenSpiel rl_environment = {aec / ref_c:.2f}x; "
              f"rules core / OpenSpiel legal_actions+apply = {core_rate / ref_a:.2f}x")
    vector = by.get(f"{game_name} batched engine, vector_env batch {batch}")
    if vector:
        print(f"ratio: batched engine / AEC raw_env = {vector / by[f'{game_name} AEC loop, raw_env']:.1f}x")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m train.bench env", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=[*GAMES, "all"])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row (default 3)")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    parser.add_argument("--batch", type=int, default=4096,
                        help="games in flight of the batched-engine row (default 4096; 0 leaves it out)")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, numpy {np.__version__}")
    games = list(GAMES) if args.game == "all" else [args.game]
    rows = [r for g in games for r in bench_env(g, args.seconds, args.batch)]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
