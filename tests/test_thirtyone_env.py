"""Thirty-One PettingZoo env: PettingZoo's own tests, spaces, rewards, resets, errors, statistics."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import thirtyone_v0
from envs.thirtyone.observation import OBS_SIZE, decode
from tests.test_thirtyone_rules import QUIET4, make_deck


@pytest.mark.parametrize("n", [2, 4, 9])
def test_pettingzoo_api_seed_render(n: int) -> None:
    api_test(thirtyone_v0.env(num_players=n), num_cycles=150)
    seed_test(lambda **kw: thirtyone_v0.env(num_players=n, **kw), num_cycles=60)
    render_test(lambda **kw: thirtyone_v0.env(num_players=n, **kw))


@pytest.mark.parametrize(
    "opts",
    [
        {"episode": "round"},
        {"scoring": "points", "target_score": 8, "reward_scheme": "placement"},
        {"num_players": 3, "throw_down": True, "deck": 32, "stock_exhausted": "draw", "lives": 1},
        {"num_players": 5, "knock_allowed": "after_first_round", "min_knock_score": 15, "free_ride": False},
    ],
)
def test_api_with_options(opts: dict) -> None:
    api_test(thirtyone_v0.env(**opts), num_cycles=100)


def play_random(e, seed: int = 0, max_steps: int = 100_000):
    """Random masked play to the end; returns the sum of rewards per agent."""
    rng = np.random.default_rng(seed)
    totals: dict[str, float] = {}
    for steps, agent in enumerate(e.agent_iter()):
        assert steps < max_steps
        obs, reward, term, trunc, _ = e.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size > 0
        e.step(int(legal[rng.integers(legal.size)]))
    return totals


def test_spaces_are_cached_and_the_same_shape_for_every_table_size() -> None:
    for n in (2, 5, 9):
        e = thirtyone_v0.raw_env(num_players=n)
        for a in e.possible_agents:
            assert e.observation_space(a) is e.observation_space(a)
            assert e.action_space(a) is e.action_space(a)
            assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
            assert e.observation_space(a)["action_mask"].shape == (57,)
            assert e.action_space(a).n == 57
    assert thirtyone_v0.raw_env.metadata == {
        "render_modes": ["human", "ansi"],
        "name": "thirtyone_v0",
        "is_parallelizable": False,
    }


def test_mask_only_for_the_agent_to_act() -> None:
    e = thirtyone_v0.env(num_players=4)
    e.reset(seed=3)
    for agent in e.agents:
        obs = e.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        if agent == e.agent_selection:
            assert obs["action_mask"][52] == 1 and obs["action_mask"][53] == 1
        else:
            assert not obs["action_mask"].any()


def test_reset_with_a_fixed_deck_and_dealer() -> None:
    e = thirtyone_v0.env(num_players=4)
    deck = make_deck(QUIET4, "DK", "SA", dealer=3, n=4)
    e.reset(seed=1, options={"deck": deck, "dealer": 3})
    assert e.agent_selection == "player_0"
    info = decode(e.observe("player_0"))
    assert sorted(info["hand"]) == sorted([0, 14, 28]) and info["top"] == 50 and info["stock"] == 39
    e.step(e.unwrapped.action_index("draw"))
    assert 12 + 13 in decode(e.observe("player_0"))["hand"]  # SA came first


def test_reset_rejects_bad_decks() -> None:
    e = thirtyone_v0.env(num_players=2)
    with pytest.raises(ValueError, match="exactly once"):
        e.reset(options={"deck": ["HK"] * 52})
    with pytest.raises(ValueError, match="not a card"):
        e.reset(options={"deck": ["H1"] * 52})
    e = thirtyone_v0.env(num_players=2, episode="round")
    blitz = make_deck({0: "SA SK SQ", 1: "C2 C3 C4"}, "D5", dealer=1, n=2)
    with pytest.raises(ValueError, match="before any decision"):
        e.reset(options={"deck": blitz, "dealer": 1})


def test_raw_env_errors_name_the_action() -> None:
    e = thirtyone_v0.raw_env(num_players=3)
    e.reset(seed=0, options={"dealer": 2})
    with pytest.raises(ValueError, match=r"illegal action 37 \(discard HK\) for player_0 in phase 'draw'"):
        e.step(37)
    with pytest.raises(ValueError, match="out of range"):
        e.step(57)
    with pytest.raises(ValueError, match="out of range"):
        e.step(-1)
    with pytest.raises(ValueError, match="action None is only for agents that are done"):
        e.step(None)
    with pytest.raises(ValueError, match="not an integer"):
        e.step("draw")
    e.step(np.int64(52))  # numpy ints are fine
    assert e.agent_selection == "player_0"
    assert e.action_name(55) == "throw_down" and e.action_index("take") == 53


def test_wrapped_env_terminates_on_illegal_move() -> None:
    e = thirtyone_v0.env(num_players=3)
    e.reset(seed=0)
    agent = e.agent_selection
    e.last()
    e.step(0 if not e.observe(agent)["action_mask"][0] else 1)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1 and sum(e.rewards.values()) == -1


@pytest.mark.parametrize("n", [2, 3, 6])
def test_game_rewards_sum_to_zero_and_the_winner_gets_one(n: int) -> None:
    e = thirtyone_v0.env(num_players=n)
    e.reset(seed=n)
    totals = play_random(e, seed=n)
    assert sorted(totals.values())[-1] == 1.0
    assert all(v == pytest.approx(-1 / (n - 1)) for v in sorted(totals.values())[:-1])
    assert sum(totals.values()) == pytest.approx(0.0)
    assert not e.agents


def test_placement_rewards_in_the_env() -> None:
    e = thirtyone_v0.env(num_players=4, reward_scheme="placement")
    e.reset(seed=5)
    totals = play_random(e, seed=5)
    assert sum(totals.values()) == pytest.approx(0.0) and max(totals.values()) == 1.0


def test_eliminated_agents_leave_and_get_their_reward_when_out() -> None:
    e = thirtyone_v0.env(num_players=3, lives=1, free_ride=False)
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    e.reset(seed=0, options={"deck": make_deck(hands, "DK", dealer=2, n=3), "dealer": 2})
    u = e.unwrapped
    e.step(u.action_index("knock"))
    for _ in range(2):
        agent = e.agent_selection
        e.step(u.action_index("draw"))
        hand = decode(e.observe(agent))["hand"]
        e.step(max(hand))  # throws a card back: the values hardly change, player_0 stays lowest
    assert e.agent_selection == "player_0" and e.terminations["player_0"]
    _, reward, term, _, info = e.last()
    assert term and reward == -0.5 and info["last_round"]["eliminated"] == ["player_0"]
    assert info["last_round"]["lives_lost"]["player_0"] == 2
    e.step(None)
    assert e.agents == ["player_1", "player_2"] and e.agent_selection == "player_2"
    assert not e.observe("player_1")["action_mask"].any()


def test_round_episodes_reward_minus_lives_lost() -> None:
    e = thirtyone_v0.env(num_players=3, episode="round")
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    e.reset(seed=0, options={"deck": make_deck(hands, "DK", dealer=2, n=3), "dealer": 2})
    assert e.agent_selection == "player_0"
    totals = {a: 0.0 for a in e.agents}
    u = e.unwrapped
    e.step(u.action_index("knock"))
    for agent in e.agent_iter():
        obs, reward, term, _, _ = e.last()
        totals[agent] += reward
        if term:
            e.step(None)
        elif obs["action_mask"][52]:
            e.step(52)
        else:
            e.step(max(decode(obs)["hand"]))
    assert totals == {"player_0": -2.0, "player_1": 0.0, "player_2": 0.0}


def test_seeds_reproduce_and_differ() -> None:
    def first_obs(e, seed=None):
        e.reset(seed=seed)
        return e.observe(e.agent_selection)["observation"]

    a, b = thirtyone_v0.env(), thirtyone_v0.env()
    assert np.array_equal(first_obs(a, 11), first_obs(b, 11))
    assert not np.array_equal(first_obs(a, 11), first_obs(a, 12))
    first_obs(a, 11), first_obs(b, 11)
    assert np.array_equal(first_obs(a), first_obs(b))  # reset() without a seed continues the stream


def test_episode_stats() -> None:
    e = thirtyone_v0.env(num_players=4, throw_down=True)
    assert e.unwrapped.episode_stats() == {}
    e.reset(seed=2)
    play_random(e, seed=2)
    stats = e.unwrapped.episode_stats()
    for key in ("knock_rate", "blitz_rate", "rounds", "throw_down_rate", "turns_per_round", "decisions"):
        assert key in stats
    assert all(isinstance(v, float) for v in stats.values())
    assert stats["rounds"] >= 1 and 0 <= stats["knock_rate"] <= 1 and 0 <= stats["blitz_rate"] <= 1


def test_render_ansi_and_pickle() -> None:
    e = thirtyone_v0.env(num_players=3, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "player_0" in text and any(symbol in text for symbol in "♣♠♥♦")
    with pytest.raises(ValueError, match="render_mode"):
        thirtyone_v0.raw_env(render_mode="rgb_array")
    clone = pickle.loads(pickle.dumps(thirtyone_v0.raw_env(num_players=5, lives=2)))
    assert clone.game.options.lives == 2 and clone.game.num_players == 5


def test_registered_in_pettingzoo() -> None:
    from pettingzoo.utils.env import AECEnv

    import envs  # noqa: F401  (registers)

    pz = pytest.importorskip("pettingzoo")
    if not hasattr(pz, "make"):
        pytest.skip("PettingZoo without a registry")
    e = pz.make("aec", "cards/thirtyone-v0", num_players=3)
    assert isinstance(e.unwrapped, AECEnv) and e.unwrapped.game.num_players == 3


def test_blitz_on_the_deal_in_a_game_episode() -> None:
    e = thirtyone_v0.env(num_players=4)
    deck = make_deck({**QUIET4, 2: "SA SK SQ"}, "DK", dealer=3, n=4)
    e.reset(seed=0, options={"deck": deck, "dealer": 3})
    info = decode(e.observe(e.agent_selection))
    assert info["round"] == 2 and e.agent_selection == "player_1"  # player_0 deals round 2
    lives = decode(e.observe("player_2"))["lives"]
    assert lives[0] == 1.0 and lives[1:4] == pytest.approx([2 / 3] * 3)  # relative to player_2
    assert e.unwrapped.episode_stats()["deal_blitz_rate"] == 1.0


def test_throw_down_choice_is_made_before_looking() -> None:
    e = thirtyone_v0.env(num_players=3, throw_down=True)
    e.reset(seed=0, options={"dealer": 2})
    first = decode(e.observe("player_0"))
    assert first["phase"] == "throw_down" and first["hand"] == [] and first["value"] == 0
    assert len(decode(e.observe("player_1"))["hand"]) == 3
    mask = e.observe("player_0")["action_mask"]
    assert list(np.flatnonzero(mask)) == [55, 56]
    e.step(e.unwrapped.action_index("look"))
    assert len(decode(e.observe("player_0"))["hand"]) == 3
