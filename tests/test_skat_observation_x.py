"""The extended tables' observations: named layouts, the same facts as the ISkO vector, the table options."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import skat_v0
from envs.skat import observation_x
from envs.skat.observation import decode, observe
from envs.skat.observation_x import LAYOUTS, OPTION_FLAGS, TableView, layout_of_vector
from envs.skat.observation_x import observe as observe_x
from envs.skat.rules import DONE, SkatGame
from envs.skat.variants import NAMES


def test_layouts_are_named_versioned_and_contiguous():
    for name, layout in LAYOUTS.items():
        assert layout.name == name and layout.version == 1
        offset = 0
        for field in layout.fields.values():
            assert field.offset == offset and field.size > 0
            offset += field.size
        assert offset == layout.size and layout.fields["position"].offset == layout.planes * 36
        assert "offset size" in layout.table_text()
    assert LAYOUTS["skat4"].slots == 4 and LAYOUTS["skat3x"].slots == LAYOUTS["skat2"].slots == 3
    table = "\n".join("    " + line for line in LAYOUTS["skat3x"].table_text().splitlines())
    assert table in observation_x.__doc__, "the layout table in the module docstring is out of date:\n" + table


@pytest.mark.parametrize("seed", range(6))
def test_an_extended_three_handed_vector_says_what_the_isko_vector_says(seed):
    """A deal of the list table (ISkO rules) observed both ways: every common field agrees."""
    classic = SkatGame(kontra=True, ramsch=True).new_initial_state(seed)
    extended = SkatGame(variant="list", kontra=True, ramsch=True).new_initial_state(seed)
    rng = random.Random(seed)
    while True:
        for p in range(3):
            old, new = decode(observe(classic, p)), TableView(observe_x(extended, p, 2))  # dealer 2: seat p
            assert new.plane("hand") == old.hand and new.plane("skat_put") == old.skat_put
            assert new.plane("skat_taken") == old.skat_taken
            assert new.planes("played") == old.played and new.planes("trick") == old.trick
            assert new.one_hot("position") == old.position and new.one_hot("phase") == old.phase
            for name in ("passed", "called"):
                assert new.flags(name) == getattr(old, name)
            for name in ("bidder", "listener", "declarer", "game_type", "leader"):
                assert new.one_hot(name) == getattr(old, name), name
            assert new.counts("card_points", 120) == old.card_points
            assert new.counts("tricks_won", 10) == old.tricks_won
            assert new.flag("ramsch") == old.ramsch and new.flag("doubling", 0) == old.kontra
            voids = new.raw("voids")
            assert [sum(1 << e for e in range(5) if voids[5 * r + e] > 0.5) for r in range(3)] == old.voids
        if classic.phase == DONE:
            break
        legal = classic.legal_actions()
        assert extended.legal_actions() == legal
        a = legal[rng.randrange(len(legal))]
        classic.apply_action(a)
        extended.apply_action(a)


def test_the_table_options_are_flags_of_the_vector():
    names = [n for n, _ in OPTION_FLAGS]
    for variant in NAMES[1:]:
        env = skat_v0.raw_env(variant=variant)
        env.reset(seed=0)
        view = TableView(env.observe(env.agent_selection)["observation"])
        o = env.game.options
        flags = view.options
        assert flags["kontra_on"] == o.kontra and flags["ramsch_on"] == o.ramsch
        assert flags["list"] == (o.episode == "list") and flags["tournee_rules"] == o.tournee
        assert flags["officers"] == o.officers and flags["dummy_open"] == (o.dummy == "open")
        assert flags["pack36"] == (o.pack == 36) and flags["idiot"] == o.idiot
        assert sum(flags.values()) == sum(view.flags("options")) and len(names) == len(flags)
        assert layout_of_vector(env.observe(env.agent_selection)["observation"]).name == env.layout


def test_list_progress_and_totals_are_observed():
    env = skat_v0.raw_env(variant="list", list_deals=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while len(env.deal_log) < 2:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    view = TableView(env.observe("player_0")["observation"])
    assert view.raw("list_progress")[0] == pytest.approx(0.5)
    totals = env.series.totals
    plus, minus = view.raw("total_plus"), view.raw("total_minus")
    for seat in range(3):  # "positive and negative part / 1000, capped at 1"
        assert plus[seat] - minus[seat] == pytest.approx(max(-1.0, min(1.0, totals[seat] / 1000)), abs=1e-6)
