"""Solver speed on full deals: ``python -m envs.skat.solver.bench --positions 1000``.

Random deals are bid, picked up, discarded and declared by the rule agent (``agents.rule_skat``),
so the positions are realistic declarations (suit, grand and null mixed); deals it passes in are
skipped. At trick 1 (forehand to lead, nothing played) each position is asked the 61-question
(null: does the declarer take no trick) and the exact card points, one core, one process, timed in
CPU time of the process (``time.process_time``: robust on a shared machine). Prints
medians, 90th percentiles and nodes per second per question and game family, and the
compile (or cache load) time of the first call.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from envs.skat import actions as A
from envs.skat.cards import GRAND, NULL
from envs.skat.rules import PLAY, SkatGame, SkatState


def declared_states(n: int, seed: int = 0, progress: bool = False) -> list[SkatState]:
    """``n`` deals at the start of card play, declared by the rule agent (passed-in deals skipped)."""
    from agents.rule_skat import RuleSkatAgent
    from envs.skat.observation import observe

    agent = RuleSkatAgent()
    game = SkatGame()
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.new_initial_state(int(rng.integers(2**31)))
        while state.phase < PLAY and state.current_player >= 0:
            p = state.current_player
            mask = state.legal_mask()
            legal = np.array([(mask >> a) & 1 for a in range(A.NUM_ACTIONS)], dtype=np.int8)
            state.apply_action(agent.act({"observation": observe(state, p), "action_mask": legal}))
        if state.phase == PLAY:
            out.append(state)
    return out


def _family(game: int) -> str:
    return "null" if game == NULL else "grand" if game == GRAND else "suit"


def _summary(times: list[float], nodes: list[int]) -> dict[str, float]:
    t = np.asarray(times)
    return {"n": len(times), "median_ms": float(np.median(t) * 1e3), "p90_ms": float(np.percentile(t, 90) * 1e3),
            "mean_ms": float(t.mean() * 1e3), "max_ms": float(t.max() * 1e3),
            "median_nodes": float(np.median(nodes)),
            "nodes_per_s": float(sum(nodes) / max(t.sum(), 1e-9))}


def run(positions: int, seed: int, progress: bool = True) -> dict:
    from tqdm import tqdm

    from envs.skat.solver import Position, Solver

    t0 = time.perf_counter()
    import envs.skat.solver.kernel  # noqa: F401

    solver = Solver()
    states = declared_states(positions, seed)
    tiny = Position.from_state(states[0])
    c0 = time.perf_counter()
    solver.value(tiny, "win")
    solver.value(tiny, "exact")
    first_call = time.perf_counter() - c0
    import_s = c0 - t0
    rows: dict[tuple[str, str], tuple[list[float], list[int]]] = {}
    for state in tqdm(states, desc="solving", unit="deal", disable=not progress, file=sys.stderr):
        pos = Position.from_state(state)
        fam = _family(pos.game)
        for q in ("win", "exact"):
            n0 = solver.nodes
            t = time.process_time()
            solver.value(pos, q)
            dt = time.process_time() - t
            for key in ((q, fam), (q, "all")):
                rows.setdefault(key, ([], []))[0].append(dt)
                rows[key][1].append(solver.nodes - n0)
    return {"positions": positions, "seed": seed, "first_call_s": first_call, "import_s": import_s,
            "results": {f"{q}/{fam}": _summary(*v) for (q, fam), v in sorted(rows.items())}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envs.skat.solver.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", "-n", type=int, default=1000, help="declared deals to solve (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the numbers to this file")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.positions < 1:
        print("error: --positions must be positive", file=sys.stderr)
        return 2
    out = run(args.positions, args.seed, not args.no_progress)
    print(f"double-dummy solver, {args.positions} declared deals at trick 1 (seed {args.seed}), one core, CPU time")
    print(f"first call (numba compile, or load from its cache): {out['first_call_s']:.2f} s")
    print(f"{'question/family':<16} {'n':>5} {'median ms':>10} {'p90 ms':>9} {'mean ms':>9} {'max ms':>9} "
          f"{'nodes/s':>11} {'median nodes':>13}")
    for key, r in out["results"].items():
        label = key.replace("win/", "61/")
        print(f"{label:<16} {r['n']:>5} {r['median_ms']:>10.2f} {r['p90_ms']:>9.2f} {r['mean_ms']:>9.2f} "
              f"{r['max_ms']:>9.1f} {r['nodes_per_s']:>11,.0f} {r['median_nodes']:>13,.0f}")
    print("61 = does the declarer reach 61 card points (null: take no trick); exact = its final card points")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

