"""The batched Thirty-One engine against the reference AEC env, step by step.

The reference draws its own random cards, so :class:`Replay` stands in for the random generator of
each reference game and makes it choose the first dealer, deal and draw exactly what the batched
engine did (the engine records its choices with ``record=True``). ``drive`` then plays the same
random legal actions in both and compares masks, observations, acting seats, rewards and endings
bit for bit at every step. ``make test`` runs a few hundred games; the long run::

    python -m tests.test_thirtyone_vector --games 3000
"""

from __future__ import annotations

import argparse
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from envs import thirtyone_v0
from envs.thirtyone import actions as A
from envs.thirtyone import rules
from envs.thirtyone.cards import CARD_NAMES, NUM_CARDS
from envs.thirtyone.scoring import lives_lost
from envs.vector import random_legal_actions

NO_CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICES = ["cpu", pytest.param("cuda", marks=NO_CUDA)]
BACKENDS = ["torch", "numba"]  # the torch engine (any device) and the compiled CPU kernel
COMBOS = [dict(num_players=4), dict(num_players=2, lives=1), dict(num_players=3, episode="round"),
          dict(num_players=5, reward_scheme="placement", lives=2), dict(num_players=9, lives=1, free_ride=False),
          dict(num_players=4, lives=1, free_ride=False, knock_allowed="after_first_round", knocker_tie="double",
               knocker_penalty=1, max_turns=12, min_knock_score=20)]


class Replay:
    """A stand-in for ``random.Random`` in one reference game: the first dealer, the deals (the
    values that make its partial Fisher-Yates put these cards first) and the next draw."""

    def __init__(self, dealer: int) -> None:
        self.dealer = dealer
        self.mirror = list(range(NUM_CARDS))  # the reference state's deck list, permuted as it permutes it
        self.deals: list[list[int]] = []
        self.draw: float | None = None

    def randrange(self, n: int) -> int:
        return self.dealer

    def random(self) -> float:
        if self.draw is not None:
            value, self.draw = self.draw, None
            return value
        cards, i = self.deals[0], self._i
        j = self.mirror.index(cards[i], i)
        value = (j - i + 0.5) / (NUM_CARDS - i)
        self.mirror[i], self.mirror[j] = self.mirror[j], self.mirror[i]
        self._i += 1
        if self._i == len(cards):
            self.deals.pop(0)
            self._i = 0
        return value

    _i = 0  # the next card of the deal being made


def _events(log: list[tuple]) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = {}
    for kind, slot, value in log:
        if kind == "start":
            out[slot] = []  # an earlier attempt was dealt again
        out.setdefault(slot, []).append((kind, value))
    return out


def drive(n: int, steps: int, seed: int, monkeypatch, backend: str = "auto", **options) -> int:
    venv = thirtyone_v0.vector_env(n, seed=seed, record=True, backend=backend, **options)
    envs = [thirtyone_v0.raw_env(**options) for _ in range(n)]
    replays: list[Replay | None] = [None] * n
    current: dict[str, Replay | None] = {"replay": None}
    monkeypatch.setattr(rules, "random", SimpleNamespace(Random=lambda seed=None: current["replay"]))
    rng = np.random.default_rng(seed)

    def start(i: int, events: list[tuple]) -> None:
        assert events and events[0][0] == "start", events
        replay = replays[i] = current["replay"] = Replay(events[0][1])
        replay.deals = [v for k, v in events[1:] if k == "deal"]
        envs[i].reset(seed=0)
        assert envs[i].episode_stats()["redeals"] == 0 and not replay.deals, f"slot {i}: the replay went astray"

    state = venv.reset()
    ev = _events(venv.log)
    for i in range(n):
        start(i, ev[i])
    games = 0
    for t in range(steps):
        obs, mask = state.observation.numpy(), state.action_mask.numpy()
        player, rewards, terminated = state.current_player.numpy(), state.rewards.numpy(), state.terminated.numpy()
        actions = np.zeros(n, dtype=np.int64)
        for i, env in enumerate(envs):
            where = f"step {t}, slot {i}, options {options}"
            assert bool(terminated[i]) == (not env.agents), f"{where}: termination differs"
            want = getattr(env, "_paid", np.zeros(env.num_agents if env.agents else len(env.possible_agents)))
            assert np.array_equal(rewards[i], np.asarray(want, np.float32)), f"{where}: rewards {rewards[i]} != {want}"
            if terminated[i]:
                assert not obs[i].any() and not mask[i].any() and player[i] == 0, f"{where}: finished game"
                games += 1
                continue
            agent = env.agent_selection
            assert player[i] == int(agent.split("_")[1]), f"{where}: acting seat {player[i]} != {agent}"
            ref = env.observe(agent)
            diff = np.flatnonzero(obs[i] != ref["observation"])
            assert diff.size == 0, f"{where}: observation differs at {diff[:10]}: {obs[i][diff[:5]]} vs " \
                                   f"{ref['observation'][diff[:5]]}"
            legal = np.flatnonzero(ref["action_mask"])
            assert np.array_equal(np.flatnonzero(mask[i]), legal), f"{where}: mask {np.flatnonzero(mask[i])} != {legal}"
            actions[i] = legal[rng.integers(legal.size)]
        state = venv.step(torch.from_numpy(actions))
        ev = _events(venv.log)
        for i, env in enumerate(envs):
            if terminated[i]:
                start(i, ev[i])
                env._paid = np.zeros(len(env.possible_agents))
                continue
            replay = current["replay"] = replays[i]
            for kind, value in ev.get(i, []):
                if kind == "draw":
                    stock = env.state.stock
                    replay.draw = (stock.index(value) + 0.5) / len(stock)
                elif kind == "deal":
                    replay.deals.append(value)
            env.step(int(actions[i]))
            paid = np.zeros(len(env.possible_agents))
            for agent, r in env.rewards.items():
                paid[int(agent.split("_")[1])] += r
            while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                env.step(None)
            env._paid = paid
            assert not replay.deals and replay.draw is None, f"slot {i}: the reference did not use the replay"
    return games


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options", COMBOS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_equal_to_aec_env(options, backend, monkeypatch):
    assert drive(8, 110, seed=len(str(options)), monkeypatch=monkeypatch, backend=backend, **options) >= 1


def test_lives_lost_equals_the_reference():
    from envs.thirtyone.vector.engine import lives_lost as batched

    rng = np.random.default_rng(0)
    for penalty, tie in ((2, "safe"), (1, "double"), (2, "double")):
        values, inround, knockers, want = [], [], [], []
        for _ in range(400):
            n = int(rng.integers(2, 10))
            vals = [int(x) for x in rng.integers(5, 32, n)]
            alive = rng.random(n) < 0.8
            alive[0] = alive[1] = True
            seats = [s for s in range(n) if alive[s]]
            k = int(rng.integers(-1, len(seats)))
            lost = lives_lost([vals[s] for s in seats], k if k >= 0 else None, knocker_penalty=penalty,
                              knocker_tie=tie)
            row = [0] * 9
            for s, d in zip(seats, lost, strict=True):
                row[s] = d
            values.append(vals + [0] * (9 - n))
            inround.append(list(alive) + [False] * (9 - n))
            knockers.append(seats[k] if k >= 0 else -1)
            want.append(row)
        got = batched(torch.tensor(values).t(), torch.tensor(inround).t(), torch.tensor(knockers), penalty,
                      tie == "double")
        assert got.t().tolist() == want


def test_hand_values_equal_the_reference_valuer():
    """The value entry of the observation: the best suit of three cards, and of four the best after
    a legal discard (the card taken this turn stays), as ``HandValuer`` computes them."""
    from envs.thirtyone.rules import DISCARD, DRAW
    from envs.thirtyone.scoring import HandValuer
    from envs.thirtyone.vector.engine import LOCKED, PHASE
    from envs.thirtyone.vector.observe import Seen, hand_values
    from envs.thirtyone.vector.tables import tables

    rng, valuer, T = np.random.default_rng(1), HandValuer(), tables(2)
    hands, locked, phases, want = [], [], [], []
    for _ in range(3000):
        cards = [int(c) for c in rng.choice(NUM_CARDS, 4 if len(hands) % 2 else 3, replace=False)]
        mask = sum(1 << c for c in cards)
        if len(cards) == 4:
            lock = int(rng.choice(cards)) if rng.random() < 0.7 else -1
            want.append(valuer.best_after_discard(mask, lock))
        else:
            lock = -1
            want.append(valuer.value(mask))
        hands.append(mask), locked.append(lock), phases.append(DISCARD if len(cards) == 4 else DRAW)
    b = SimpleNamespace(s=torch.zeros(12, len(hands), dtype=torch.int64), hand=torch.tensor([hands]))
    b.s[LOCKED], b.s[PHASE] = torch.tensor(locked), torch.tensor(phases)
    assert hand_values(Seen(b, T), T).tolist() == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_chosen_decks_and_unsupported_options(backend):
    deck = list(CARD_NAMES)
    venv = thirtyone_v0.vector_env(2, seed=0, num_players=3, backend=backend)
    state = venv.reset(deals=[deck, {"deck": deck[::-1]}], dealer=[0, 2])
    env = thirtyone_v0.raw_env(num_players=3)
    for i, d, dealer in ((0, deck, 0), (1, deck[::-1], 2)):
        env.reset(options={"deal": {"deck": d}, "dealer": dealer})
        assert np.array_equal(state.observation[i].numpy(), env.observe(env.agent_selection)["observation"])
    with pytest.raises(ValueError, match="deal 1"):
        venv.reset(deals=[deck, deck[:-1]])
    with pytest.raises(ValueError, match="does not support deck=32"):
        thirtyone_v0.vector_env(2, deck=32)
    with pytest.raises(ValueError, match="num_players"):
        thirtyone_v0.vector_env(2, num_players=12)
    with pytest.raises(ValueError, match="backend must be"):
        thirtyone_v0.vector_env(2, backend="jax")
    with pytest.raises(ValueError, match="CPU only"):
        thirtyone_v0.vector_env(2, device="meta", backend="numba")


@pytest.mark.parametrize("backend", BACKENDS)
def test_ordered_stock_of_a_chosen_deck_is_drawn_in_order(backend):
    """A chosen deck's stock is drawn from the top, as the AEC env draws it (one round: the next
    rounds are shuffled, by each engine its own way)."""
    deck = list(CARD_NAMES)
    venv = thirtyone_v0.vector_env(1, seed=0, num_players=2, episode="round", backend=backend)
    env = thirtyone_v0.raw_env(num_players=2, episode="round")
    state = venv.reset(deals=[deck], dealer=[1])
    env.reset(options={"deal": {"deck": deck}, "dealer": 1})
    over = False
    while not over:  # draw, then discard the lowest card held
        for action in (A.DRAW, None):
            if action is None:
                action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
            env.step(action)
            state = venv.step(torch.tensor([action]))
            over = all(env.terminations.values())
            if over:
                break
            assert np.array_equal(state.observation[0].numpy(), env.observe(env.agent_selection)["observation"])
    assert state.terminated[0] and state.rewards[0].tolist() == [env.rewards["player_0"], env.rewards["player_1"]]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("backend", ["auto", "torch"])
def test_seeds_reproduce(device, backend):
    runs = []
    for _ in range(2):
        venv = thirtyone_v0.vector_env(6, device=device, seed=7, backend=backend)
        state, gen, trace = venv.reset(), torch.Generator(device=device).manual_seed(1), []
        for _ in range(80):
            trace.append(state.observation)
            state = venv.step(random_legal_actions(state.action_mask, gen))
        runs.append(trace)
    assert all(torch.equal(x, y) for x, y in zip(*runs, strict=True))


def test_cpu_kernel_survives_unchecked_illegal_actions():
    """With ``validate=False`` an illegal action gives undefined games, but the compiled kernel must
    never read or write outside its state (it has no bounds checks): any action, many steps."""
    venv = thirtyone_v0.vector_env(64, seed=0, validate=False, backend="numba", num_players=4)
    venv.reset()
    gen = torch.Generator().manual_seed(0)
    for _ in range(400):
        state = venv.step(torch.randint(0, venv.num_actions, (64,), generator=gen))
        assert torch.isfinite(state.observation).all()

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.test_thirtyone_vector")
    parser.add_argument("--games", type=int, default=1000, help="games per option combination")
    parser.add_argument("--backend", choices=("auto", *BACKENDS), default="auto",
                        help="the engine to check (auto: the CPU kernel on a CPU)")
    args = parser.parse_args(argv)
    mp = pytest.MonkeyPatch()
    t0, total = time.perf_counter(), 0
    try:
        for k, options in enumerate(COMBOS):
            games, seed = 0, 1000 * k
            while games < args.games:
                games += drive(32, 400, seed, mp, backend=args.backend, **options)
                seed += 1
            total += games
            print(f"{options}: {games} games equal ({args.backend})", flush=True)
    finally:
        mp.undo()
    print(f"{total} games, every step equal, in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
