"""Golden digests of Skat observations and of the rule agent's decisions, and a timing of the agent.

The fixture ``tests/data/skat_golden.json`` was recorded on main (commit 872bf01) before issue 13
reshaped ``envs.skat.observation`` and the rule agent, so the tests can show that neither the
observation vectors (the shipped checkpoints read them) nor a single decision of the rule agent
(the pretraining teacher and the evaluation baseline) changed:

* ``observations``: seeded deals played with uniformly random legal actions through the rules
  core; at every step the three seats' :func:`~envs.skat.observation.observe` vectors are hashed
  (the incremental encoder is checked against them on the way);
* ``rule``: seeded deals between rule agents (one instance per seat, kept over the deals and reset
  per deal, as the evaluation seats them) and of one rule seat against two random ones; the
  action sequence of each deal is hashed.

Digests are kept per block of :data:`BLOCK` deals so that a mismatch points at ten deals.

Commands (from the repository root)::

    python -m tests.skat_golden --check                 # compare the whole fixture
    python -m tests.skat_golden --record                # rewrite it (only for an intended change)
    python -m tests.skat_golden --bench 20000           # time the rule agent over recorded decisions

A change of the heuristics that is meant to change decisions re-records the ``rule`` part; the
``observations`` part changes only with ``OBSERVATION_VERSION``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from envs.skat import actions as A
from envs.skat.observation import ObservationEncoder, observe
from envs.skat.rules import AUCTION, DONE, PLAY, SkatGame, SkatState

FIXTURE = Path(__file__).parent / "data" / "skat_golden.json"
BLOCK = 10
CONFIGS = {"default": {}, "kontra": {"kontra": True}, "ramsch": {"ramsch": True}, "classic": {"scoring": "classic"}}
OBS_DEALS = 100  # per config
RULE_DEALS = {"rule3": 1000, "rule1": 500}  # per config: rule vs rule, one rule seat vs two random
_MASK_BYTES = (A.NUM_ACTIONS + 7) // 8


def action_mask(state: SkatState) -> np.ndarray:
    """The acting seat's action mask, built as the env builds it."""
    bits = state.legal_mask().to_bytes(_MASK_BYTES, "little")
    return np.unpackbits(np.frombuffer(bits, np.uint8), count=A.NUM_ACTIONS, bitorder="little").view(np.int8)


def _advance(state: SkatState, encoder: ObservationEncoder, action: int) -> None:
    """Apply ``action`` and update the encoder the way ``envs.skat.env`` does."""
    p, phase = state.current_player, state.phase
    state.apply_action(action)
    if phase == PLAY:
        encoder.after_play(state, p, action - A.PLAY)
    elif phase == AUCTION:
        encoder.after_auction(state, p)
    else:
        encoder.refresh(state)


def _blocks(digests: list[bytes]) -> str:
    out = []
    for i in range(0, len(digests), BLOCK):
        out.append(hashlib.sha256(b"".join(digests[i:i + BLOCK])).hexdigest()[:8])
    return " ".join(out)


def observation_digests(options: dict, deals: int) -> str:
    """Random play; every step hashes the three seats' observations (and checks the encoder)."""
    game = SkatGame(**options)
    digests = []
    for seed in range(deals):
        state = game.new_initial_state(seed)
        rng = random.Random(10_000 + seed)
        encoder = ObservationEncoder()
        encoder.refresh(state)
        h = hashlib.sha256()
        while True:
            for p in range(3):
                v = observe(state, p)
                if not np.array_equal(v, encoder.vectors[p]):
                    raise AssertionError(f"seed {seed}: incremental encoder differs from observe() for position {p}")
                h.update(v.tobytes())
            if state.phase == DONE:
                break
            legal = state.legal_actions()
            _advance(state, encoder, legal[rng.randrange(len(legal))])
        digests.append(h.digest())
    return _blocks(digests)


def play_rule_deals(options: dict, deals: int, seating: str, record: list | None = None) -> str:
    """Rule agents (``rule3``: every seat, ``rule1``: one seat in turn, random others); one digest of
    the actions per deal. ``record`` collects (position, observation dict) of the rule decisions."""
    from agents.rule_skat import RuleSkatAgent

    game = SkatGame(**options)
    agents = [RuleSkatAgent(seed=k) for k in range(3)]  # per position, as kept by an evaluation
    digests = []
    for seed in range(deals):
        state = game.new_initial_state(50_000 + seed)
        rng = random.Random(90_000 + seed)
        rule_at = {0, 1, 2} if seating == "rule3" else {seed % 3}
        for k in rule_at:
            agents[k].reset()
        actions = []
        while state.phase != DONE:
            p = state.current_player
            if p in rule_at:
                obs = {"observation": observe(state, p), "action_mask": action_mask(state)}
                if record is not None:
                    record.append((p, obs))
                action = agents[p].act(obs)
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
            actions.append(action)
            state.apply_action(action)
        digests.append(hashlib.sha256(np.array(actions, dtype="<i2").tobytes()).digest())
    return _blocks(digests)


def compute(scale: float = 1.0) -> dict:
    out: dict = {"block": BLOCK, "observations": {}, "rule": {}}
    for name, opts in CONFIGS.items():
        out["observations"][name] = observation_digests(opts, int(OBS_DEALS * scale))
        for seating, n in RULE_DEALS.items():
            out["rule"][f"{name}/{seating}"] = play_rule_deals(opts, int(n * scale), seating)
    return out


def compare(expected: str, got: str) -> list[int]:
    """Indices of the blocks that differ (a prefix of ``expected`` may be compared)."""
    e, g = expected.split(), got.split()
    return [i for i in range(len(g)) if i >= len(e) or e[i] != g[i]]


def bench(decisions: int, repeats: int = 3) -> float:
    """CPU seconds for ``decisions`` rule-agent decisions, replayed in order (per-seat agents, as played)."""
    from agents.rule_skat import RuleSkatAgent

    record: list = []
    play_rule_deals({}, decisions // 20, "rule3", record=record)  # rule deals take 25 to 30 decisions
    if len(record) < decisions:
        raise ValueError(f"only {len(record)} decisions recorded")
    record = record[:decisions]
    best = float("inf")
    for _ in range(repeats):
        agents = [RuleSkatAgent() for _ in range(3)]
        t = time.process_time()  # CPU time: the machine may be shared
        for p, obs in record:
            agents[p].act(obs)
        best = min(best, time.process_time() - t)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--record", action="store_true", help="rewrite the fixture")
    ap.add_argument("--check", action="store_true", help="compare everything with the fixture")
    ap.add_argument("--bench", type=int, metavar="N", help="time N rule-agent decisions (best of 3)")
    args = ap.parse_args(argv)
    if args.bench:
        sec = bench(args.bench)
        print(f"{args.bench} rule decisions: {sec:.3f} s ({1e6 * sec / args.bench:.1f} us each)")
    if args.record:
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(compute(), indent=1) + "\n")
        print(f"wrote {FIXTURE}")
    if args.check:
        expected = json.loads(FIXTURE.read_text())
        got = compute()
        bad = 0
        for part in ("observations", "rule"):
            for key, blocks in got[part].items():
                diff = compare(expected[part][key], blocks)
                bad += len(diff)
                print(f"{part:12} {key:16} {'OK' if not diff else f'differs in blocks {diff}'}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
