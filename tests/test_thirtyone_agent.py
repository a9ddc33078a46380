"""The rule-based Thirty-One baseline: legal, sensible, better than random."""

from __future__ import annotations

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from agents.rule_thirtyone import RuleThirtyOneAgent, knock_threshold
from envs import thirtyone_v0
from envs.thirtyone import card
from envs.thirtyone.phases import MORE
from tests.test_thirtyone_rules import make_deck


def fixed_env(n: int, hands: dict[int, str], up: str, stock: str = "", **opts):
    e = thirtyone_v0.env(num_players=n, **opts)
    e.reset(seed=0, options={"deck": make_deck(hands, up, stock, dealer=n - 1, n=n), "dealer": n - 1})
    return e


def act(e, agent=None) -> str:
    agent = agent or RuleThirtyOneAgent(seed=0)
    return e.unwrapped.action_name(agent.act(e.observe(e.agent_selection)))


def test_takes_the_discard_for_a_blitz_and_keeps_it() -> None:
    e = fixed_env(2, {0: "HA HK C2", 1: "C5 S6 H7"}, "HQ")
    assert act(e) == "take"
    e.step(53)
    assert act(e) == "discard C2"


def test_keeps_a_blitz_drawn_from_the_stock() -> None:
    e = fixed_env(2, {0: "HA HK C2", 1: "C5 S6 H7"}, "D3", "HQ", knock_allowed="after_first_round")
    assert act(e) == "draw"  # D3 does not improve the hand (and knocking is not allowed yet)
    e.step(52)
    assert act(e) == "discard C2"


def test_takes_the_discard_when_it_improves_the_hand_and_keeps_the_suit() -> None:
    e = fixed_env(3, {0: "S9 S8 C2", 1: "C5 S6 H7", 2: "D2 D3 H9"}, "SK")
    assert act(e) == "take"
    e.step(53)
    assert act(e) == "discard C2"  # keeps the spades it is building


def test_discard_prefers_the_building_suit_on_equal_values() -> None:
    e = fixed_env(3, {0: "HA C2 D3", 1: "C5 S6 H7", 2: "D2 C3 H9"}, "D4", "H5")
    e.step(52)  # draws H5: HA H5 is 16 whichever low card goes
    assert act(e) in ("discard C2", "discard D3")


def test_knocks_on_a_good_hand_and_not_on_a_bad_one() -> None:
    e = fixed_env(4, {0: "HA HK H2", 1: "C5 S6 H7", 2: "D2 D3 S9", 3: "C8 H9 D4"}, "C3")
    assert act(e) == "knock"
    e = fixed_env(4, {0: "HA C2 D5", 1: "C5 S6 H7", 2: "D2 D3 S9", 3: "C8 H9 D4"}, "C3")
    assert act(e) != "knock"


def test_knock_threshold_depends_on_players_and_lap() -> None:
    assert knock_threshold(2, 0) > knock_threshold(4, 0) > knock_threshold(7, 0)
    assert knock_threshold(4, 0) < knock_threshold(4, 1) < knock_threshold(4, 2)
    assert knock_threshold(4, 10) == 28
    assert knock_threshold(4, 1, last_life=True) == knock_threshold(4, 1) - 1


def test_declines_the_throw_down() -> None:
    e = fixed_env(3, {0: "HA HK H2", 1: "C5 S6 H7", 2: "D2 D3 S9"}, "C3", throw_down=True)
    assert act(e) == "look"


def test_empty_mask_is_an_error() -> None:
    obs = {"observation": np.zeros(1130, np.float32), "action_mask": np.zeros(57, np.int8)}
    with pytest.raises(ValueError, match="empty action mask"):
        RuleThirtyOneAgent().act(obs)


def _tournament(n: int, games: int, rule_seats: set[int], **opts) -> np.ndarray:
    e = thirtyone_v0.env(num_players=n, **opts)
    agents = {
        f"player_{i}": RuleThirtyOneAgent(seed=i) if i in rule_seats else RandomAgent("thirtyone", seed=i)
        for i in range(n)
    }
    totals = np.zeros(n)
    for g in range(games):
        e.reset(seed=g)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            if term or trunc:
                totals[int(agent.split("_")[1])] += reward
                e.step(None)
                continue
            action = agents[agent].act(obs)
            assert obs["action_mask"][action], "the rule agent only plays legal actions"
            e.step(action)
    return totals / games


def test_beats_random_players() -> None:
    mean = _tournament(3, 25, {0})
    assert mean[0] > 0.5  # wins far more often than a third of the games


@pytest.mark.parametrize(
    "opts",
    [
        {"episode": "round", "scoring": "points"},
        {"throw_down": True, "deck": 32, "three_of_a_kind": 30.5, "three_aces": 32, "min_knock_score": 25},
        {"knock_allowed": "after_first_round", "stock_exhausted": "draw"},
    ],
)
def test_plays_legally_under_every_option(opts: dict) -> None:
    _tournament(4, 3, {0, 1, 2, 3}, **opts)


def test_same_seed_same_play() -> None:
    e = thirtyone_v0.env(num_players=2)
    e.reset(seed=4)
    obs = e.observe(e.agent_selection)
    e.step(52)
    obs = e.observe(e.agent_selection)
    assert RuleThirtyOneAgent(seed=1).act(obs) == RuleThirtyOneAgent(seed=1).act(obs)
    assert RuleThirtyOneAgent.game == "thirtyone" and card("HK") == 37


# ------------------------------------------------------------------ the variants with cards on the table
def table_env(variant: str, hands: dict[int, str], table: str, *, up: str | None = None, **opts):
    from tests.test_thirtyone_table import table_deck

    n = len(hands)
    e = thirtyone_v0.env(variant=variant, num_players=n, **opts)
    exchange = e.unwrapped.game.options.exchange
    deck = table_deck(exchange, hands, table, dealer=n - 1, n=n, up=up, deck=e.unwrapped.game.options.deck)
    e.reset(seed=0, options={"deal": {"deck": deck}, "dealer": n - 1})
    return e


def test_takes_an_improving_pool_card_or_the_whole_pool() -> None:
    e = table_env("schwimmen", {0: "S9 S8 C7", 1: "C8 D7 H9", 2: "D9 DT H7"}, "SK H8 CQ")
    assert act(e) == "pick 1"  # SK with S9 S8: 27
    e.step(e.unwrapped.action_index("pick 1"))
    assert act(e) == "discard C7"
    e = table_env("schwimmen", {0: "S9 C8 C7", 1: "C9 D7 H9", 2: "D9 DT H7"}, "HA HK HQ")
    assert act(e) == "swap 1"  # the pool is a blitz


def test_stop_the_bus_knocks_on_a_pair_and_takes_a_run() -> None:
    e = table_env("stop_the_bus", {0: "SQ HQ C2", 1: "C8 D7 H9", 2: "D9 DT H7"}, "S4 H6 C3")
    assert act(e) == "knock"  # a pair of queens on the first lap
    e = table_env("stop_the_bus", {0: "S9 H8 C2", 1: "C8 D7 H9", 2: "D9 DT H7"}, "S4 HT C3")
    assert act(e) == "pick 2"  # HT makes the run 8-9-10


def test_banking_exchanges_with_the_widow_and_stops() -> None:
    e = table_env("banking", {0: "S9 S8 C2", 1: "C8 D7 H9", 2: "D9 DT H7"}, "SK H3 C4", up="D2")
    assert act(e) == "draw"  # the widow is face down: nothing to see, the discard does not help
    e = table_env("banking", {0: "S9 S8 C2", 1: "C8 D7 H9", 2: "D9 DT H7"}, "SK H3 C4", up="D2")
    state = e.unwrapped.state
    state.face_up[0] = 1  # as if put there face up
    assert act(e) == "pick 1"
    e.step(e.unwrapped.action_index("pick 1"))
    e.step(e.unwrapped.action_index("discard C2"))
    assert state.phase == MORE and act(e) == "stop"  # nothing else improves


def test_switch_dealer_keeps_the_better_hand() -> None:
    e = table_env("switch", {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}, "HA HK H2 C9 D8 S7")
    assert act(e) == "swap 1"
    e = table_env("switch", {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "DA DK S9"}, "H3 C4 S2 C9 D8 S7")
    assert act(e) == "keep"


@pytest.mark.parametrize("variant", ["banking", "switch", "stop_the_bus", "schwimmen", "cut_throat"])
def test_rule_agent_beats_random_in_the_variants(variant: str) -> None:
    wins = 0
    for seed in range(12):
        e = thirtyone_v0.env(variant=variant, num_players=3, reward_scheme="win")
        e.reset(seed=seed)
        players = {"player_0": RuleThirtyOneAgent(seed=seed), "player_1": RandomAgent("thirtyone", seed=seed),
                   "player_2": RandomAgent("thirtyone", seed=seed + 100)}
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            totals[agent] += reward
            e.step(None if term or trunc else players[agent].act(obs))
        wins += totals["player_0"] == 1.0
    assert wins >= 9, f"{variant}: rule won {wins} of 12"
