"""Thirty-One named variants: presets, PettingZoo API and seed tests per variant, layouts, golden replays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents.rule_thirtyone import RuleThirtyOneAgent
from envs import thirtyone_v0
from envs.thirtyone import ThirtyOneGame, ThirtyOneOptions, validate_options
from envs.thirtyone.observation import OBS_SIZE, OBSERVATION_VERSION
from envs.thirtyone.observation_table import TABLE_OBS_SIZE, TABLE_OBSERVATION_VERSION
from envs.thirtyone.options import MAX_PLAYERS
from envs.thirtyone.variants import VARIANT_NAMES, VARIANTS, variants_markdown
from tests import thirtyone_golden

CLASSIC = ("scat", "no_elimination", "cut_throat")  # the classic observation: the shipped checkpoints play these
TABLE = ("banking", "switch", "stop_the_bus", "schwimmen")


def test_the_issue_names_every_variant() -> None:
    assert set(VARIANT_NAMES) == set(CLASSIC + TABLE)
    assert validate_options(variant="scat") == ThirtyOneOptions()
    assert validate_options(variant="no_elimination") == ThirtyOneOptions(scoring="points", variant="no_elimination")
    text = variants_markdown()
    for name, v in VARIANTS.items():
        assert f"`{name}`" in text and v.quotes and v.choices


def test_unknown_variant_lists_the_valid_ones() -> None:
    for make in (lambda: thirtyone_v0.env(variant="blitz"), lambda: ThirtyOneGame(variant="blitz"),
                 lambda: thirtyone_v0.raw_env(variant=3)):
        with pytest.raises(ValueError, match="unknown Thirty-One variant .*valid variants: scat, no_elimination, "
                                             "cut_throat, banking, switch, stop_the_bus, schwimmen"):
            make()


def test_options_on_top_of_a_preset() -> None:
    o = ThirtyOneGame(variant="cut_throat", num_players=6, lives=4).options
    assert (o.num_players, o.lives, o.free_ride, o.knocker_tie, o.three_of_a_kind) == (6, 4, False, "double", 30.5)
    assert o.variant == "cut_throat" and o.reward_scheme == "tokens"
    assert ThirtyOneGame(variant="banking", reward_scheme="win").options.reward_scheme == "win"
    e = thirtyone_v0.raw_env(**{"variant": "stop_the_bus", "num_players": 3})  # a config's env_options
    assert e.game.options.ranking == "brag" and len(e.possible_agents) == 3
    with pytest.raises(ValueError, match="ranking='brag'"):
        ThirtyOneGame(variant="stop_the_bus", three_of_a_kind=30)
    with pytest.raises(ValueError, match="needs free_ride=False"):
        ThirtyOneGame(scoring="pot")
    with pytest.raises(ValueError, match="reward_scheme='tokens' needs a token game"):
        ThirtyOneGame(variant="no_elimination", reward_scheme="tokens")
    with pytest.raises(ValueError, match="switch_restart is a rule of Switch"):
        ThirtyOneGame(switch_restart=True)
    with pytest.raises(ValueError, match="need 33 cards, more than the 32-card deck"):
        ThirtyOneGame(variant="switch", deck=32, num_players=9)
    with pytest.raises(ValueError, match="ante must be"):
        ThirtyOneGame(variant="banking", ante=4)


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_layout_per_variant(name: str) -> None:
    e = thirtyone_v0.raw_env(variant=name)
    space = e.observation_space("player_0")
    table = name in TABLE
    assert space["observation"].shape == ((TABLE_OBS_SIZE,) if table else (OBS_SIZE,))
    assert e.action_space("player_0").n == (73 if table else 57)
    assert e.observation_version == (TABLE_OBSERVATION_VERSION if table else OBSERVATION_VERSION)
    assert e.action_name(e.action_space("player_0").n - 1) == ("score" if table else "look")


@pytest.mark.parametrize("name", VARIANT_NAMES)
@pytest.mark.parametrize("n", [2, 4, MAX_PLAYERS])
def test_pettingzoo_api_and_seed(name: str, n: int) -> None:
    api_test(thirtyone_v0.env(variant=name, num_players=n), num_cycles=60)
    seed_test(lambda **kw: thirtyone_v0.env(variant=name, num_players=n, **kw), num_cycles=40)


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_rule_agent_plays_every_variant_to_the_end(name: str) -> None:
    e = thirtyone_v0.env(variant=name, num_players=3, max_rounds=12)
    e.reset(seed=5)
    agents = {a: RuleThirtyOneAgent(seed=i) for i, a in enumerate(e.possible_agents)}
    for steps, agent in enumerate(e.agent_iter()):
        assert steps < 20_000
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        action = agents[agent].act(obs)
        assert obs["action_mask"][action]
        e.step(action)
    assert e.unwrapped.state.is_terminal()


def test_golden_replays_of_the_classic_presets() -> None:
    """The presets scat and no_elimination (and the options of today's game) replay bit for bit what main
    played before the variants: observations, masks, rewards, agent order (seeded random and rule play)."""
    golden = json.loads(thirtyone_golden.GOLDEN.read_text())
    assert thirtyone_golden.compute() == golden
    for variant, case in (("scat", "default4"), ("no_elimination", "points")):
        options, games, player = thirtyone_golden.CASES[case]
        made = thirtyone_golden.play_case(options, games, player,
                                          lambda v=variant, **kw: thirtyone_v0.env(variant=v, **kw))
        assert made == golden[case], variant


def test_table_observations_stay_in_bounds_and_hide_the_widow() -> None:
    e = thirtyone_v0.raw_env(variant="banking")
    e.reset(seed=1)
    obs = e.observe("player_0")["observation"]
    assert obs.shape == (TABLE_OBS_SIZE,) and obs.dtype == np.float32 and 0 <= obs.min() and obs.max() <= 1
    s = e.state
    assert all(c >= 0 for c in s.table) and not any(s.face_up)
    for seat in range(4):  # no face-down widow card shows in anybody's observation
        v = e.observe(f"player_{seat}")["observation"]
        assert not any(v[c] or v[52 + c] or v[1130 + 54 * j + c] for j, c in enumerate(s.table))


def test_evaluation_reports_tokens_won_per_game() -> None:
    from train.evaluation import stats
    from train.evaluation.cli import agent_table
    from train.evaluation.match import MatchConfig, run_match

    cfg = MatchConfig("thirtyone", ["rule", "random"], units=2, seed=1, env_options={"variant": "banking",
                                                                                      "num_players": 3})
    result = run_match(cfg, workers=1, progress=False)
    for r in result.records:
        assert sum(r.details["tokens"]) == 0 and len(r.details["tokens"]) == 3
    rows = stats.agent_summary(result, 2.0, resamples=100)
    assert sum(r["tokens_per_game"] * r["games"] for r in rows) == pytest.approx(0.0)
    assert rows[0]["tokens_per_game"] > 0 > rows[1]["tokens_per_game"]
    assert "tokens/game" in agent_table(result.game, rows, 2.0)
    cfg = MatchConfig("thirtyone", ["rule", "random"], units=2, seed=1, env_options={"variant": "no_elimination",
                                                                                      "num_players": 2,
                                                                                      "target_score": 5})
    rows = stats.agent_summary(run_match(cfg, workers=1, progress=False), 2.0, resamples=100)
    assert all(np.isnan(r["tokens_per_game"]) for r in rows)  # the points game has no tokens: shown as "-"
