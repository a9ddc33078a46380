"""The vector-env contract (envs.vector) and batched collection (train.batched) on top of it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.networks import build_network, network_spec
from envs.games import describe
from envs.vector import AECVectorEnv, kth_legal_tensor, random_legal_actions
from train.batched import BatchedCollector
from train.opponents import OpponentPool
from train.rollout import RolloutSpec, take_rows

OPTIONS = {"skat": {}, "thirtyone": {"num_players": 3, "lives": 2}}


@pytest.mark.parametrize("actions, density", [(57, 0.1), (162, 0.05), (162, 0.6), (255, 0.9)])
def test_random_legal_actions_cpu_kernel_equals_the_tensor_version(actions, density):
    """On a CPU the random player picks with a compiled pass per row: the same actions, from the same
    draws, as the tensor version other devices run; rows without a legal action give the last one."""
    gen = torch.Generator().manual_seed(actions)
    mask = torch.rand(3000, actions, generator=gen) < density
    mask[:5] = False
    chosen = random_legal_actions(mask, torch.Generator().manual_seed(1))
    u = torch.rand(3000, generator=torch.Generator().manual_seed(1))
    assert torch.equal(chosen, kth_legal_tensor(mask, u))
    legal = mask.any(1)
    assert mask[legal, chosen[legal]].all() and (chosen[~legal] == actions - 1).all()


def _random_actions(state, rng):
    mask = state.action_mask.numpy()
    return torch.from_numpy(np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1))


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_aec_vector_env_follows_the_contract(game):
    venv = AECVectorEnv(describe(game), 6, seed=3, **OPTIONS[game])
    rng = np.random.default_rng(0)
    state = venv.reset()
    assert state.observation.shape == (6, venv.obs_size) and state.action_mask.dtype == torch.bool
    totals = np.zeros((6, venv.num_seats))
    games_done = 0
    for _ in range(600):
        ended = state.terminated.numpy().copy()
        assert state.action_mask[~state.terminated].any(dim=1).all()  # a game that goes on has a legal move
        state = venv.step(_random_actions(state, rng))
        totals += state.rewards.numpy()
        if ended.any():  # the step after an ending starts a new game there: nothing is paid yet
            assert not state.rewards.numpy()[ended].any() or game == "thirtyone"
        games_done += int(state.terminated.sum())
    assert games_done > 6
    if game == "skat":  # tournament scores: the declarer's loss is never balanced by the defenders alone
        assert totals.sum() != 0


def test_aec_vector_env_pays_what_the_aec_env_pays():
    venv = AECVectorEnv(describe("skat"), 1, seed=11)
    state = venv.reset()
    rng = np.random.default_rng(5)
    actions, paid = [], np.zeros(3)
    while not state.terminated[0]:
        a = _random_actions(state, rng)
        actions.append(int(a[0]))
        state = venv.step(a)
        paid += state.rewards.numpy()[0]
    env = describe("skat").raw_env()
    env.reset(seed=int(np.random.SeedSequence([11, 0, 0]).generate_state(1)[0]))
    for a in actions:
        env.step(a)
    assert paid.tolist() == [env._cumulative_rewards[f"player_{i}"] for i in range(3)]


@pytest.mark.parametrize("game, learner_seats", [("skat", 1), ("skat", 3), ("thirtyone", 1)])
def test_batched_collection_credits_each_return_to_its_trajectory(game, learner_seats):
    env = describe(game).raw_env(**OPTIONS[game])
    obs, n = env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n
    spec = network_spec("actor_critic", obs, n, [8], "tanh")
    rollout = RolloutSpec(game, OPTIONS[game], 4, "ppo", spec, {**spec, "kind": "policy"}, learner_seats, 8, 1.0, 2)
    torch.manual_seed(0)
    network = build_network(spec)
    collector = BatchedCollector(rollout, 5, network)
    plan = OpponentPool({"random": 1.0, "rule": 1.0}, 4, "uniform").plan()
    total = 0
    for update in range(3):
        batch, episodes = collector.collect(update, plan, [])
        assert len(batch["action"]) >= 5 * 8 and batch["mask"][np.arange(len(batch["action"])), batch["action"]].all()
        ends = np.flatnonzero(batch["done"])
        starts = np.concatenate([[0], ends[:-1] + 1])
        returns = sorted(round(float(batch["reward"][s:e + 1].sum()), 4) for s, e in zip(starts, ends, strict=True))
        learner_returns = sorted(round(r, 4) for e in episodes for r, p in zip(e.returns, e.players, strict=True)
                                 if p == "learner")
        assert returns == learner_returns  # every finished trajectory, exactly once, with its whole return
        total += len(batch["action"])
    # no decision lost or repeated: what the updates got plus what still runs is what the learner decided
    running = sum(t >= 0 for t in collector.traj_ids)  # rows already taken keep -1 until their block goes
    assert total + running == collector.decisions
    assert len(collector.traj_ids) == sum(len(b) for b in collector.rows["action"]) == len(collector.rewards)


def test_take_rows_reads_blocks_as_their_concatenation():
    rng = np.random.default_rng(0)
    blocks = [rng.random((int(n), 3)).astype(np.float32) for n in rng.integers(1, 9, 12)]
    whole = np.concatenate(blocks)
    for rows in (rng.permutation(len(whole))[:17], rng.permutation(len(whole)), np.arange(len(whole)),
                 np.array([], np.int64), np.array([5, 5])):
        assert np.array_equal(take_rows(blocks, rows), whole[rows])


def test_a_snapshot_left_out_of_the_pool_finishes_the_deals_it_sits_in():
    """Batched games stay in flight across updates, so a snapshot dropped from the pool (pool_size) can
    still sit at a table: it plays on there until the deal ends, and is no longer drawn."""
    game = "thirtyone"  # whole games of Thirty-One outlast an update of 4 decisions per env
    env = describe(game).raw_env(**OPTIONS[game])
    obs, n = env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n
    spec = network_spec("actor_critic", obs, n, [8], "tanh")
    policy = {**spec, "kind": "policy"}
    rollout = RolloutSpec(game, OPTIONS[game], 4, "ppo", spec, policy, 1, 4, 1.0, 2)
    torch.manual_seed(0)
    network = build_network(spec)
    collector = BatchedCollector(rollout, 6, network)
    pool = OpponentPool({"snapshot": 1.0}, 1, "uniform")
    for update in range(6):
        pool.add_snapshot(build_network(policy).state_dict())  # evicts the previous one
        collector.collect(update, pool.plan(), pool.snapshots)
        drawn = {collector.keys[c] for c in collector.seat_code[collector.seat_code >= 0].tolist()}
        assert drawn <= set(collector.filler.shared)  # every seated snapshot still has its agent
    assert len(collector.keys) > 2  # several snapshots were seated over the updates
    assert ("snapshot", 0) not in collector.filler.shared  # the first one is gone once its deals ended


@pytest.mark.parametrize("with_snapshots", [False, True])
def test_seat_filler_draws_many_as_it_draws_one_by_one(with_snapshots):
    """Batched collection seats all new deals at once: the same keys from the same random numbers."""
    from train.opponents import SeatFiller

    spec = network_spec("policy", 8, 4, [4], "tanh")
    plan = {"specs": ["rule", "random", "self", *(["snapshot"] if with_snapshots else [])],
            "weights": [0.5, 0.2, 0.2, *([0.1] if with_snapshots else [])],
            "snapshot_ids": [3, 5] if with_snapshots else [], "snapshot_probs": [0.3, 0.7] if with_snapshots else []}
    keys = []
    for many in (False, True):
        filler = SeatFiller("skat", spec, build_network({**spec, "kind": "policy"}))
        filler.update_pool(plan, {})
        filler.rng = np.random.default_rng(9)
        keys.append(filler.draw_many(500) if many else [filler.draw() for _ in range(500)])
        keys[-1].append(filler.rng.random())  # and the generator is left where the draws leave it
    assert keys[0] == keys[1]
    assert {"rule", "random", "self"} <= set(keys[0][:-1])
