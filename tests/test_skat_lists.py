"""A list as one episode: rotation, totals, rewards per deal or at the end, Bierskat, Raeuberskat."""

from __future__ import annotations

import numpy as np
import pytest

from envs import skat_v0
from envs.skat.options import validate_options
from envs.skat.series import Series, bierskat_record


def play_list(env, seed, check=None):
    """Random legal play of one episode; returns the summed rewards by agent and each deal's dealer."""
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    got = dict.fromkeys(env.possible_agents, 0.0)
    dealers = [raw.dealer]
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        got[agent] += reward
        if term or trunc:
            raw.final_infos = {**getattr(raw, "final_infos", {}), agent: info}
            env.step(None)
            continue
        if len(raw.deal_log) == len(dealers):  # a deal ended and the next one is dealt
            dealers.append(raw.dealer)
        if check:
            check(raw, agent, obs, reward)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return got, dealers


def test_a_36_deal_list_with_the_dealer_rotating():
    env = skat_v0.env(variant="list")
    got, dealers = play_list(env, 0)
    raw = env.unwrapped
    assert len(raw.deal_log) == 36 and raw.series.counted == 36
    assert sorted(dealers) == sorted([0, 1, 2] * 12) and dealers[:4] == [2, 0, 1, 2]
    totals = [raw.final_infos[a]["total"] for a in raw.possible_agents]
    assert [got[a] for a in raw.possible_agents] == pytest.approx(totals)
    by_deal = np.array([entry["scores"] for entry in raw.deal_log]).sum(axis=0)
    assert list(by_deal) == pytest.approx(totals)


def test_rewards_at_the_end_sum_to_the_same_totals():
    per_deal = skat_v0.env(variant="list", list_deals=9)
    at_end = skat_v0.env(variant="list", list_deals=9, list_rewards="end")
    rewarded_midway = []

    def check(raw, agent, obs, reward):
        if reward:
            rewarded_midway.append(reward)

    a, _ = play_list(per_deal, 4)
    b, _ = play_list(at_end, 4, check)
    assert a == b and not rewarded_midway  # same deals (same seed, same random play), paid once at the end


def test_four_player_list_is_48_deals():
    assert validate_options(variant="list", players=4).deals_per_list == 48
    env = skat_v0.env(variant="list", players=4, list_deals=8)
    got, dealers = play_list(env, 1)
    assert dealers == [3, 0, 1, 2, 3, 0, 1, 2]


def test_passed_in_deals_may_not_count():
    env = skat_v0.raw_env(variant="list", list_deals=5, count_passed_in=False)
    env2 = skat_v0.env(variant="list", list_deals=5, count_passed_in=False)
    play_list(env2, 2)
    raw = env2.unwrapped
    counted = sum(1 for e in raw.deal_log if not e["passed_in"])
    assert counted == 5 and len(raw.deal_log) >= 5
    del env


def test_bierskat_records_a_won_33_to_the_two_defenders():
    # "if the declarer wins with 33 points, the score is recorded as 33 to the two defenders"
    assert bierskat_record([33, 0, 0], range(3)) == [0, 33, 33]
    assert bierskat_record([-66, 0, 0], range(3)) == [66, 0, 0]  # a lost game: the declarer's (doubled) loss
    assert bierskat_record([0, 33, 0, 0], range(4)) == [33, 0, 33, 33]  # at four the dealer sits at the table
    series = Series(validate_options(variant="bierskat"))
    assert series.record([33, 0, 0], 0, True, False) == [0, -33, -33]
    assert series.recorded == [0, 33, 33] and not series.done
    while not series.done:
        series.record([0, 48, 0], 1, True, False)
    assert series.recorded == [480, 33, 513] and series.losers == [2]  # "The first to 501 loses"


def test_bierskat_episode_ends_when_a_player_reaches_501():
    env = skat_v0.env(variant="bierskat")
    got, _ = play_list(env, 3)
    raw = env.unwrapped
    recorded = [raw.final_infos[a]["recorded"] for a in raw.possible_agents]
    assert max(recorded) >= 501
    assert [raw.final_infos[a]["loser"] for a in raw.possible_agents] == [r == max(recorded) for r in recorded]
    assert [got[a] for a in raw.possible_agents] == pytest.approx([-r for r in recorded])
    assert all(g <= 0 for g in got.values())  # only negative scores are recorded


def test_raeuberskat_plays_its_sequence_once_per_player_as_forehand():
    env = skat_v0.env(variant="raeuberskat")
    play_list(env, 5)
    raw = env.unwrapped
    assert len(raw.deal_log) == 18
    games = [e["game_type"] for e in raw.deal_log]
    assert games == [g for g in (3, 2, 1, 0, 4, 5) for _ in range(3)]  # D H S C G N, three deals each
    declarers = [e["declarer"] for e in raw.deal_log]
    assert declarers[:3] == [0, 1, 2]  # forehand declares: the seat left of the rotating dealer
