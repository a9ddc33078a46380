"""The batched Skat engine against the reference AEC env, deal by deal and step by step.

``drive`` plays the same deals with the same random legal actions in ``skat_v0.vector_env`` and in
one ``skat_v0.raw_env`` per slot, and compares masks, observations, acting seats, rewards and
endings bit for bit at every step. ``make test`` runs a few hundred games; the long run::

    python -m tests.test_skat_vector --games 20000    # every option combination, thousands of games each
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

import numpy as np
import pytest
import torch

from envs import skat_v0
from envs.skat import actions as A
from envs.skat.cards import CARD_NAMES, cards_of, parse_cards
from envs.skat.rules import AUCTION
from envs.skat.scoring import Outcome, ramsch_scores, seat_scores, settle
from envs.vector import random_legal_actions

NO_CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICES = ["cpu", pytest.param("cuda", marks=NO_CUDA)]
COMBOS = [dict(scoring=s, kontra=k, ramsch=r) for s, k, r in itertools.product(("tournament", "classic"),
                                                                                 (False, True), (False, True))]


def _names(mask: int) -> str:
    return " ".join(CARD_NAMES[c] for c in cards_of(mask))


def _deal_of(dealt: dict, i: int) -> dict:
    return {"hands": [_names(int(h)) for h in dealt["hands"][i]], "skat": _names(int(dealt["skat"][i]))}


def drive(n: int, steps: int, seed: int, device: str = "cpu", compile: bool = False, backend: str = "auto",
          **options) -> int:
    """Play ``steps`` batched steps of ``n`` slots beside ``n`` AEC envs; returns the games finished.
    Even slots pass whenever they may with probability 0.6 (more Ramsch and early endings)."""
    venv = skat_v0.vector_env(n, device=device, seed=seed, compile=compile, backend=backend, **options)
    envs = [skat_v0.raw_env(**options) for _ in range(n)]
    rng = np.random.default_rng(seed)
    state = venv.reset()

    def deal(i: int) -> None:
        dealt = venv.dealt()
        envs[i].reset(options={"deal": _deal_of(dealt, i), "dealer": int(dealt["dealer"][i])})

    for i in range(n):
        deal(i)
    games = 0
    for t in range(steps):
        obs, mask = state.observation.cpu().numpy(), state.action_mask.cpu().numpy()
        player, rewards = state.current_player.cpu().numpy(), state.rewards.cpu().numpy()
        terminated = state.terminated.cpu().numpy()
        actions = np.zeros(n, dtype=np.int64)
        for i, env in enumerate(envs):
            where = f"step {t}, slot {i}, options {options}"
            agent = env.agent_selection
            assert bool(terminated[i]) == all(env.terminations.values()), f"{where}: termination differs"
            want = [env.rewards[a] for a in env.possible_agents] if terminated[i] else [0.0, 0.0, 0.0]
            assert rewards[i].tolist() == want, f"{where}: rewards {rewards[i]} != {want}"
            if terminated[i]:  # no decision: zeros, as envs.vector.AECVectorEnv shows a finished game
                assert not obs[i].any() and not mask[i].any() and player[i] == 0, f"{where}: finished deal"
                games += 1
                continue
            assert player[i] == int(agent[-1]), f"{where}: acting seat {player[i]} != {agent}"
            ref = env.observe(agent)
            diff = np.flatnonzero(obs[i] != ref["observation"])
            assert diff.size == 0, f"{where}: observation differs at {diff[:10]}"
            legal = np.flatnonzero(ref["action_mask"])
            assert np.array_equal(np.flatnonzero(mask[i]), legal), f"{where}: mask differs"
            if i % 2 == 0 and A.PASS in legal and rng.random() < 0.6:
                actions[i] = A.PASS
            else:
                actions[i] = legal[rng.integers(legal.size)]
        state = venv.step(torch.from_numpy(actions).to(device))
        for i, env in enumerate(envs):
            if terminated[i]:
                deal(i)
            else:
                env.step(int(actions[i]))
    return games


@pytest.mark.parametrize("backend", ["torch", "numba"])
@pytest.mark.parametrize("options", COMBOS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_equal_to_aec_env(options, backend):
    assert drive(10, 100, seed=len(str(options)), backend=backend, **options) >= 15


@pytest.mark.parametrize("options", [{}, dict(kontra=True, ramsch=True, scoring="classic")])
def test_cpu_kernel_equals_the_torch_engine(options):
    """The CPU kernel computes only the observations and masks, from the same state: the same seed
    gives both backends the same deals, so every field must agree at every step."""
    ref, fast = (skat_v0.vector_env(64, seed=9, backend=k, **options) for k in ("torch", "numba"))
    a, b = ref.reset(), fast.reset()
    gen = torch.Generator().manual_seed(2)
    for _ in range(300):
        for field in ("observation", "action_mask", "current_player", "rewards", "terminated"):
            assert torch.equal(getattr(a, field), getattr(b, field)), field
        act = random_legal_actions(a.action_mask, gen)
        a, b = ref.step(act), fast.step(act)
    with pytest.raises(ValueError, match="does not go with"):
        skat_v0.vector_env(2, compile=True, backend="numba")


@pytest.mark.skipif(not os.environ.get("SKAT31_COMPILE_TESTS"), reason="compiling takes about a minute: "
                    "SKAT31_COMPILE_TESTS=1 runs it (the long run does)")
def test_compiled_observations_equal_to_aec_env():
    assert drive(16, 150, seed=3, compile=True, kontra=True, ramsch=True) >= 20


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_fixed_dealer_equal_to_aec_env(dealer):
    assert drive(6, 60, seed=dealer, dealer=dealer) >= 4


@pytest.mark.parametrize("device", DEVICES)
def test_device_runs_the_same_games(device):
    """The same chosen deals and actions give the same states on every device (after the chosen
    deals each device draws its own random deals: compare until the first deal ends)."""
    source = skat_v0.vector_env(32, seed=5)
    source.reset()
    cards = source.dealt()
    chosen = torch.cat((cards["hands"], cards["skat"][:, None]), 1)
    ref, other = skat_v0.vector_env(32, seed=1), skat_v0.vector_env(32, device=device, seed=1)
    a = ref.reset(deals=chosen, dealer=cards["dealer"])
    b = other.reset(deals=chosen.to(device), dealer=cards["dealer"].to(device))
    gen = torch.Generator().manual_seed(0)
    live = torch.ones(32, dtype=torch.bool)
    for _ in range(40):
        for field in ("observation", "action_mask", "current_player", "rewards", "terminated"):
            assert torch.equal(getattr(a, field)[live], getattr(b, field).cpu()[live]), field
        live &= ~a.terminated
        act = random_legal_actions(a.action_mask, gen)
        a, b = ref.step(act), other.step(act.to(device))


def test_chosen_deals_in_card_notation_and_bit_sets():
    env = skat_v0.raw_env()
    deal = {"hands": ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK",
                      "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "skat": "C7 D7"}
    venv = skat_v0.vector_env(2, seed=0)
    state = venv.reset(deals=[deal, {"deck": CARD_NAMES}], dealer=[0, 2])
    env.reset(options={"deal": deal, "dealer": 0})
    assert int(state.current_player[0]) == int(env.agent_selection[-1])
    assert np.array_equal(state.observation[0].numpy(), env.observe(env.agent_selection)["observation"])
    env.reset(options={"deal": {"deck": CARD_NAMES}, "dealer": 2})
    assert np.array_equal(state.observation[1].numpy(), env.observe(env.agent_selection)["observation"])
    dealt = venv.dealt()
    assert [int(h) for h in dealt["hands"][0]] == [parse_cards(h) for h in deal["hands"]]
    assert dealt["dealer"].tolist() == [0, 2]
    again = venv.reset(deals=torch.cat((dealt["hands"], dealt["skat"][:, None]), 1), dealer=dealt["dealer"])
    assert torch.equal(again.observation, state.observation)


def test_bad_deals_and_options_name_the_problem():
    venv = skat_v0.vector_env(2, seed=0)
    good = {"hands": ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK",
                      "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "skat": "C7 D7"}
    bad = dict(good, skat="C7 CJ")
    with pytest.raises(ValueError, match="deal 1: .*CJ"):
        venv.reset(deals=[good, bad])
    bits = torch.tensor([[parse_cards(h) for h in good["hands"]] + [parse_cards("C7 D7")]] * 2)
    bits[1, 3] = parse_cards("C7")
    with pytest.raises(ValueError, match="deal 1"):
        venv.reset(deals=bits)
    with pytest.raises(ValueError, match="dealer"):
        venv.reset(dealer=3)
    with pytest.raises(ValueError, match="unknown Skat option 'ramch'"):
        skat_v0.vector_env(2, ramch=True)
    with pytest.raises(ValueError, match="num_envs"):
        skat_v0.vector_env(0)


def test_extended_tables_are_refused_by_the_engine_and_served_by_the_aec_loop():
    from envs.games import describe
    from envs.vector import AECVectorEnv

    with pytest.raises(ValueError, match=r"variant='strohmann' \(players=2, dummy='open'\)"):
        skat_v0.vector_env(2, variant="strohmann")
    with pytest.raises(ValueError, match="supra=True"):
        skat_v0.vector_env(2, kontra=True, supra=True)
    venv = describe("skat").vector_env(3, seed=0, variant="four_player")
    assert isinstance(venv, AECVectorEnv) and venv.num_seats == 4
    state = venv.reset()
    assert state.action_mask.any(dim=1).all() and int(state.current_player.max()) < 4
    assert not isinstance(describe("skat").vector_env(3, seed=0, kontra=True, ramsch=True), AECVectorEnv)


def test_illegal_actions_are_named():
    venv = skat_v0.vector_env(3, seed=0)
    state = venv.reset()
    with pytest.raises(ValueError, match="step\\(\\) before reset|shape"):
        venv.step(torch.zeros(2, dtype=torch.int64))
    actions = random_legal_actions(state.action_mask)
    actions[2] = A.PLAY  # no card play during the auction
    with pytest.raises(ValueError, match="illegal Skat action 'play C7' in slot 2 for player_1 in phase auction"):
        venv.step(actions)
    with pytest.raises(ValueError, match="integer"):
        venv.step(torch.zeros(3))


def test_seed_reproduces_and_finished_slots_restart():
    runs = []
    for _ in range(2):
        venv = skat_v0.vector_env(8, seed=123)
        state, gen, trace = venv.reset(), torch.Generator().manual_seed(9), []
        for _ in range(120):
            trace.append(state.observation)
            was_over = state.terminated.clone()
            actions = random_legal_actions(state.action_mask, gen)
            actions[was_over] = 10**6  # ignored: a finished slot deals anew
            state = venv.step(actions)
            if was_over.any():
                assert not state.terminated[was_over].any()
                assert (state.phase[was_over] == AUCTION).all() and (state.rewards[was_over] == 0).all()
        runs.append(trace)
    assert all(torch.equal(x, y) for x, y in zip(*runs, strict=True))
    other = skat_v0.vector_env(8, seed=124)
    other.reset()
    assert not torch.equal(other.dealt()["hands"], venv.dealt()["hands"])


def test_dealer_rotates_per_slot_and_seed_restarts_it():
    venv = skat_v0.vector_env(4, seed=0)
    assert venv.reset().dealer.tolist() == [2, 2, 2, 2]
    assert venv.reset().dealer.tolist() == [0, 0, 0, 0]
    assert venv.reset(seed=0).dealer.tolist() == [2, 2, 2, 2]
    assert skat_v0.vector_env(4, dealer=1).reset().dealer.tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize("system", ["tournament", "classic"])
def test_scores_equal_settle_and_seat_scores(system):
    """The scoring tensors against envs.skat.scoring on random finished games (contract, bid,
    cards, points, tricks, doubling, seats), and Ramsch against ramsch_scores."""
    from envs.skat.vector.engine import (
        BID,
        CONTRACT,
        DEALER,
        DECLARER,
        F_POINTS,
        F_TRICKS,
        LEADER,
        LEVEL,
        SKAT_DEALT,
        SKAT_NOW,
        SKAT_POINTS,
        Batch,
    )
    from envs.skat.vector.score import rewards_by_seat, seat_tables
    from envs.skat.vector.score_kernel import ScoreKernel
    from envs.skat.vector.tables import tables

    rng = np.random.default_rng(1)
    n, T = 1500, tables("cpu")
    b = Batch(n, torch.device("cpu"))
    want = []
    for i in range(n):
        perm = rng.permutation(32)
        hand, skat = sum(1 << int(c) for c in perm[:10]), sum(1 << int(c) for c in perm[10:12])
        ci = int(rng.integers(-1, len(A.CONTRACTS))) if i % 4 == 0 else int(rng.integers(len(A.CONTRACTS)))
        d, dealer, level = int(rng.integers(3)), int(rng.integers(3)), int(rng.integers(3))
        bid_index = int(rng.integers(A.NUM_BIDS))
        points = [int(x) for x in rng.multinomial(120 - 10 * (ci >= 0), [1 / 3] * 3)]
        tricks = [int(x) for x in rng.multinomial(10, [0.6, 0.3, 0.1] if i % 3 else [1 / 3] * 3)]
        skat_points = sum([0, 0, 0, 10, 2, 3, 4, 11][c & 7] for c in cards_of(skat))
        b.s[[CONTRACT, DECLARER, LEVEL, BID, DEALER, SKAT_POINTS, LEADER], i] = torch.tensor(
            [ci, d if ci >= 0 else -1, level, bid_index + 1, dealer, skat_points, d])
        b.sets[d, i], b.sets[SKAT_NOW, i], b.sets[SKAT_DEALT, i] = hand, skat, skat
        b.dealt[d, i], b.dealt[3, i] = hand, skat
        b.pos[F_POINTS, :, i], b.pos[F_TRICKS, :, i] = torch.tensor(points), torch.tensor(tricks)
        if ci < 0:
            pts = list(points)
            pts[d] += skat_points
            by_pos = ramsch_scores(pts, tricks)
        else:
            c = A.CONTRACTS[ci]
            o = settle(c, A.BID_VALUES[bid_index], hand | skat, points[d] + skat_points, tricks[d], 2**level)
            by_pos = seat_scores(o, d, system)
        want.append([float(by_pos[(s - dealer - 1) % 3]) for s in range(3)])
    copy = Batch(n, torch.device("cpu"))  # Ramsch moves the skat's points in b.pos: score a copy too
    for field in ("s", "sets", "pos", "dealt"):
        getattr(copy, field).copy_(getattr(b, field))
    got = rewards_by_seat(b, torch.arange(n), T, seat_tables(T, system), ramsch=True)
    assert got.tolist() == want
    kernel = np.zeros((n, 3), np.float32)  # the CPU kernel's scores, from the same tables
    ScoreKernel(T, seat_tables(T, system), ramsch=True).rewards(copy, np.arange(n), kernel)
    assert kernel.tolist() == want
    assert torch.equal(copy.pos, b.pos)
    assert isinstance(Outcome, type)


def test_cpu_kernel_survives_unchecked_illegal_actions():
    """With ``validate=False`` an illegal action gives undefined games, but the compiled kernel must
    never read or write outside its state (it has no bounds checks): any action, many steps."""
    venv = skat_v0.vector_env(64, seed=0, validate=False, backend="numba", kontra=True, ramsch=True)
    venv.reset()
    gen = torch.Generator().manual_seed(0)
    for _ in range(400):
        state = venv.step(torch.randint(0, venv.num_actions, (64,), generator=gen))
        assert torch.isfinite(state.observation).all()

def main(argv: list[str] | None = None) -> int:
    """The long differential run: every option combination (and each fixed dealer) until ``--games``
    games per combination have been compared."""
    parser = argparse.ArgumentParser(prog="python -m tests.test_skat_vector")
    parser.add_argument("--games", type=int, default=5000, help="games per option combination")
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--compile", action="store_true", help="the compiled observations (compile=True)")
    parser.add_argument("--backend", choices=("auto", "torch", "numba"), default="auto",
                        help="the observation engine (auto: the CPU kernel on a CPU)")
    args = parser.parse_args(argv)
    total, t0 = 0, time.perf_counter()
    combos = COMBOS + [dict(dealer=d) for d in range(3)]
    for k, options in enumerate(combos):
        games, seed = 0, 1000 * k
        while games < args.games:
            games += drive(args.slots, 400, seed, args.device, args.compile, args.backend, **options)
            seed += 1
        total += games
        print(f"{options}: {games} games equal", flush=True)
    print(f"{total} games, every step equal, in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
