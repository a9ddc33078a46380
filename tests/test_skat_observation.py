"""The Skat observation: one layout table, three encoders that agree bit for bit (the reference,
``observe`` and the incremental encoder), the vectors recorded before the layout became a table,
and a decoder that reads back what the state says."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from envs.skat import observation as L
from envs.skat.cards import EFF_SUIT, FOLLOW, NUM_CARDS
from envs.skat.observation import LAYOUT, ObservationEncoder, decode, layout_table, observe
from envs.skat.observation_ref import encode_reference
from envs.skat.rules import AUCTION, DONE, PLAY, SkatGame
from tests import skat_golden

OPTIONS = [{}, {"kontra": True, "ramsch": True}, {"scoring": "classic", "kontra": True}]


def test_layout_is_one_table_and_the_docstring_shows_it():
    table = "\n".join("    " + line for line in layout_table().splitlines())
    assert table in L.__doc__, "the layout table in the module docstring is out of date:\n" + table
    offset = 0
    for name, field in LAYOUT.items():
        assert field.name == name and field.offset == offset and field.size > 0
        assert getattr(L, name.upper()) == offset, f"constant {name.upper()} disagrees with LAYOUT"
        offset += field.size
    assert offset == L.OBSERVATION_SIZE == 391
    assert L.SCALAR_OFFSET == L.NUM_PLANES * NUM_CARDS == 320 and L.NUM_SCALARS == 71
    assert L.OBSERVATION_VERSION == 2  # shipped checkpoints read this layout


def _random_states(options, deals, seed0):
    """Every state of ``deals`` random deals, with the encoder advanced as the env advances it."""
    game = SkatGame(**options)
    for seed in range(seed0, seed0 + deals):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        encoder = ObservationEncoder()
        encoder.refresh(state)
        while True:
            yield state, encoder
            if state.phase == DONE:
                break
            legal = state.legal_actions()
            skat_golden._advance(state, encoder, legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("options", OPTIONS)
def test_reference_observe_and_encoder_agree(options):
    n = 0
    for state, encoder in _random_states(options, 40, 700):
        for p in range(3):
            ref = encode_reference(state, p)
            np.testing.assert_array_equal(observe(state, p), ref)
            np.testing.assert_array_equal(encoder.vectors[p], ref)
            n += 1
    assert n > 3000


def test_observations_equal_those_recorded_before_the_layout_table():
    expected = json.loads(skat_golden.FIXTURE.read_text())["observations"]
    for name, options in skat_golden.CONFIGS.items():
        got = skat_golden.observation_digests(options, 30)
        assert not skat_golden.compare(expected[name], got), f"observations changed ({name})"


@pytest.mark.parametrize("options", OPTIONS)
def test_decode_reads_back_the_state(options):
    for state, _ in _random_states(options, 15, 900):
        for p in range(3):
            v = decode(observe(state, p))
            pos = [(p + r) % 3 for r in range(3)]  # relative seat -> position
            assert v.position == p and v.phase == state.phase and v.hand == state.hands[p]
            assert v.played == [state.played[q] for q in pos]
            assert v.bid == state.bid and v.max_call == [state.max_call[q] for q in pos]
            assert v.passed == [state.passed[q] for q in pos] and v.called == [state.called[q] for q in pos]
            assert v.voids == [state.voids[q] for q in pos]
            assert v.card_points == [state.points[q] for q in pos]
            assert v.tricks_won == [state.tricks_won[q] for q in pos] and v.trick_count == state.trick_count
            assert v.declarer == (pos.index(state.declarer) if state.declarer >= 0 else -1)
            assert v.game_type == (state.contract.game if state.contract else -1)
            assert v.ramsch == (state.contract is None and state.phase >= PLAY and state.rules.ramsch)
            assert v.kontra == (state.doubling > 1) and v.re == (state.doubling > 2)
            assert v.options == {"ramsch": state.rules.ramsch, "kontra": state.rules.kontra,
                                 "tournament": state.rules.scoring == "tournament"}
            if state.phase == AUCTION:
                assert (v.bidder, v.listener) == (pos.index(state.bidder), pos.index(state.listener))
            else:
                assert v.bidder == v.listener == -1
            if state.phase == PLAY:
                assert v.leader == pos.index(state.leader) and v.trick_order == state.trick
                for i, c in enumerate(state.trick):
                    assert v.trick[pos.index((state.leader + i) % 3)] == 1 << c
            else:
                assert v.leader == -1 and v.trick_order == [] and v.trick == [0, 0, 0]
            if state.declarer == p and state.skat_taken:
                assert (v.skat_put, v.skat_taken) == (state.skat, state.original_skat)
            else:
                assert v.skat_put == v.skat_taken == 0
            ouvert = state.contract is not None and state.contract.ouvert and state.phase >= PLAY
            assert v.open_hand == (state.hands[state.declarer] if ouvert else 0)


def test_voids_are_the_suits_a_seat_failed_to_follow():
    """The voids in the observation are the rules' own record: rebuilt here from the tricks."""
    game = SkatGame()
    checked = 0
    for seed in range(40):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        shown = [0, 0, 0]
        while state.phase != DONE:
            if state.phase == PLAY and state.trick:
                g = state.game_type
                led = EFF_SUIT[g][state.trick[0]]
                if not state.hands[state.current_player] & FOLLOW[g][led]:  # cannot follow: shows a void
                    shown[state.current_player] |= 1 << led
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            for p in range(3):
                v = decode(observe(state, p))
                assert v.voids == [shown[(p + r) % 3] for r in range(3)]
                checked += 1
    assert checked > 1000


def test_decode_is_readable():
    state = SkatGame().state_from_deal(["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK",
                                        "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "C7 D7")
    text = repr(decode(observe(state, 0)))
    assert text.startswith("SkatView(hand='CJ SJ HJ DJ CA CT CK CQ C9 C8', skat_put='', ") and "phase=0" in text
    assert "bidder=1, listener=0" in text and "voids=[0, 0, 0]" in text
