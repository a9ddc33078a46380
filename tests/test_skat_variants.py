"""The variant presets and options: names, errors, what stays the ISkO table, one shape per table kind."""

from __future__ import annotations

import numpy as np
import pytest

from envs import skat_v0
from envs.skat import actions as A
from envs.skat.observation import OBSERVATION_SIZE
from envs.skat.observation_x import LAYOUTS
from envs.skat.options import validate_options
from envs.skat.rules import SkatGame
from envs.skat.variants import NAMES, OPTION_NOTES, VARIANTS, decisions_text, variants_table

ISSUE_NAMES = ("isko", "four_player", "list", "bierskat", "schieberamsch", "gewinner_ramsch", "ramsch_only",
               "revolution", "strohmann", "oma", "dummy", "officers", "tournee", "sechserskat", "idiotenskat",
               "raeuberskat")


def test_names_are_the_issues_and_each_quotes_its_source():
    assert NAMES == ISSUE_NAMES
    for v in VARIANTS.values():
        assert v.source and v.summary
    table, notes = variants_table(), decisions_text()
    assert all(f"`{n}`" in table and f"**`{n}`**" in notes for n in NAMES)
    assert set(OPTION_NOTES) == {"supra", "concede"} and "**`concede`**" in notes


def test_every_preset_reaches_env_raw_env_and_the_rules_core():
    for name in NAMES:
        raw = skat_v0.raw_env(variant=name)
        assert raw.game.options.variant == name
        assert SkatGame(variant=name).options == raw.game.options
        skat_v0.env(variant=name).reset(seed=0)


def test_unknown_variant_lists_the_valid_names():
    with pytest.raises(ValueError, match="unknown Skat variant 'bridge'; valid variants: isko, four_player, list"):
        skat_v0.env(variant="bridge")


def test_options_apply_on_top_of_a_preset():
    o = validate_options(variant="four_player", kontra=True, supra=True, concede=True)
    assert o.players == 4 and o.supra and o.concede
    o = validate_options(variant="tournee", kontra=True)
    assert o.tournee and o.ramsch and o.scoring == "classic" and o.kontra
    assert validate_options(variant="list", list_deals=6).deals_per_list == 6
    assert validate_options(variant="raeuberskat").deals_per_list == 18


@pytest.mark.parametrize("options, message", [
    ({"supra": True}, "supra.*needs kontra=True"),
    ({"schieberamsch": True}, "changes the Ramsch"),
    ({"players": 2}, "dummy='unused', 'open'"),
    ({"players": 5}, "'players' must be 2, 3 or 4"),
    ({"dummy": "open"}, "for two players"),
    ({"variant": "strohmann", "ramsch": True}, "needs three players"),
    ({"tournee": True}, "set scoring='classic'"),
    ({"variant": "tournee", "revolution": True}, "not part of North American"),
    ({"bierskat": True}, "episode='list'"),
    ({"list_deals": 5}, "for lists of deals"),
    ({"variant": "four_player", "dealer": 4}, "dealer must be a seat 0, 1, 2 or 3"),
    ({"pack": 40}, "32 or 36"),
    ({"sequence": ["X"]}, "'sequence' must be a non-empty list"),
    ({"revolution_exchange": 11}, "0..10"),
    ({"ramsch": True, "ramsch_tens": "zero"}, "ramsch_tens"),
])
def test_bad_combinations_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        validate_options(**options)


def test_the_isko_table_is_todays_and_every_other_is_extended():
    for options in ({}, {"variant": "isko", "kontra": True, "ramsch": True, "scoring": "classic", "dealer": 1}):
        env = skat_v0.raw_env(**options)
        assert env.table.classic and env.layout == "skat3" and env.observation_version == 2
        assert env.action_space("player_0").n == A.NUM_ACTIONS == 162
        assert env.observation_space("player_0")["observation"].shape == (OBSERVATION_SIZE,)
    for name in NAMES[1:]:
        env = skat_v0.raw_env(variant=name)
        assert not env.table.classic and env.action_space("player_0").n == A.NUM_ALL_ACTIONS
    assert not skat_v0.raw_env(supra=True, kontra=True).table.classic


def test_one_observation_shape_per_table_kind():
    kinds = {}
    for name in NAMES[1:]:
        env = skat_v0.raw_env(variant=name)
        kinds.setdefault(env.layout, set()).add(env.observation_space("player_0")["observation"].shape)
        assert len(env.possible_agents) == {"skat3x": 3, "skat4": 4, "skat2": 2}[env.layout]
    assert set(kinds) == {"skat3x", "skat4", "skat2"}
    assert all(len(shapes) == 1 for shapes in kinds.values())
    assert kinds["skat4"] == {(LAYOUTS["skat4"].size,)}


def test_extended_action_table_keeps_the_isko_actions_first():
    assert A.ALL_ACTION_NAMES[:162] == A.ACTION_NAMES
    for name in ("supra", "resupra", "concede", "claim", "accept", "reject", "tournee", "guckser", "passt",
                 "play C6", "discard D6", "give SA", "play slot 11", "discard slot 0", "declare CS", "declare R",
                 "bid 10", "bid 92"):
        assert A.action_name(A.action_index(name)) == name
    assert len(set(A.ALL_ACTION_NAMES)) == A.NUM_ALL_ACTIONS


def test_same_seed_same_deal_on_every_three_handed_table():
    """Seeded deals do not depend on the table: the four-player table deals the same hands to its positions."""
    base = skat_v0.raw_env()
    base.reset(seed=7)
    for name in ("four_player", "list", "revolution", "tournee"):
        env = skat_v0.raw_env(variant=name)
        env.reset(seed=7)
        assert env.state.hands == base.state.hands and env.state.skat == base.state.skat


def test_observations_stay_in_the_box():
    for name in NAMES:
        env = skat_v0.env(variant=name)
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for agent in env.agent_iter(400):
            obs, _, term, trunc, _ = env.last()
            assert env.observation_space(agent).contains(obs)
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
