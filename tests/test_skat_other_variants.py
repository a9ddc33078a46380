"""Revolution, Officers' Skat, Sechserskat, Idiotenskat and Raeuberskat."""

from __future__ import annotations

import random

import pytest

from envs import skat_v0
from envs.skat import actions as A
from envs.skat.cards import CLUBS, DIAMONDS, NULL, card, cards_of
from envs.skat.observation_x import TableView
from envs.skat.pack import PACK36
from envs.skat.rules import DECLARE, DISCARD, DONE, EXCHANGE, KONTRA, PLAY, SKAT, SkatGame
from envs.skat.rules.extras import REVOKED
from envs.skat.rules.views import open_hands
from tests.skat_helpers import act

DEAL = (["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "C7 D7")
NULL_HAND = ["C7 C8 C9 S7 S8 S9 H7 H8 H9 D7", "CJ SJ HJ DJ CA CT CK CQ SA ST", "SK SQ HA HT HK HQ DA DT DK DQ"]


def names(s):
    return [A.ALL_ACTION_NAMES[a] for a in s.legal_actions()]


# --- Revolution -------------------------------------------------------------------------------------
def revolution(**options):
    s = SkatGame(variant="revolution", **options).state_from_deal(NULL_HAND, "D8 D9")
    act(s, "pass", "pass", "bid 18", "hand")
    assert "declare R" in names(s)
    act(s, "declare R")
    return s


def test_revolution_is_a_null_ouvert_hand_worth_92():
    # "It is valued at 92 points"
    assert 92 in SkatGame(variant="revolution").table.bid_values
    s = revolution()
    assert s.contract.revolution and s.contract.ouvert and s.contract.hand and s.contract.game == NULL
    assert s.phase == EXCHANGE and s.current_player == 1
    act(s, "pass")  # no exchange
    assert s.phase == PLAY
    while s.phase != DONE:
        s.apply_action(s.legal_actions()[0])
    assert s.outcome.value == 92
    assert s.scores[0] == (92 + 50 if s.outcome.won else -2 * 92 - 50)


def test_defenders_confer_and_exchange_at_most_the_limit():
    s = revolution(revolution_exchange=2)
    before = [s.hands[1], s.hands[2]]
    # the defenders see each other's hands and the declarer's
    assert open_hands(s, 1) == [s.hands[0], s.hands[1], s.hands[2]]
    assert open_hands(s, 0)[1:] == [0, 0]
    act(s, "give CJ", "give SJ")  # the limit: the partner gives back two
    assert s.current_player == 2 and "pass" not in names(s)
    act(s, "give SK", "give SQ")
    assert s.phase == PLAY
    assert s.hands[1] == before[0] ^ (1 << card("CJ")) ^ (1 << card("SJ")) | (1 << card("SK")) | (1 << card("SQ"))
    assert s.hands[1].bit_count() == s.hands[2].bit_count() == 10
    assert sum(1 << c for c in cards_of(before[1])) == before[1]


def test_revolution_not_above_92_and_kontra_after_the_exchange():
    s = SkatGame(variant="revolution").state_from_deal(NULL_HAND, "D8 D9")
    act(s, "bid 96", "hold", "pass", "pass", "hand")
    assert "declare R" not in names(s)
    s = SkatGame(variant="revolution", kontra=True).state_from_deal(NULL_HAND, "D8 D9")
    act(s, "bid 18", "hold", "pass", "pass", "hand", "declare R", "pass")  # middlehand called: it may double
    assert s.phase == KONTRA and s.current_player == 1


# --- Officers' Skat ----------------------------------------------------------------------------------
def test_officers_skat_two_rows_no_bidding_sixteen_tricks():
    env = skat_v0.raw_env(variant="officers")
    env.reset(seed=3)
    s = env.state
    assert s.phase == DECLARE and env.agent_selection == "player_0"  # the non-dealer declares
    assert names(s) == ["declare C", "declare S", "declare H", "declare D", "declare G", "declare N"]
    assert [h.bit_count() for h in s.hands] == [16, 16, 0] and s.skat == 0
    assert [x.bit_count() for x in s.x.hidden[:2]] == [8, 8]
    view = TableView(env.observe("player_0")["observation"])
    assert view.plane("hand") == s.hands[0] & ~s.x.hidden[0]  # own face-up cards only
    assert view.planes("open")[1] == s.hands[1] & ~s.x.hidden[1]  # the opponent's face-up cards
    act(s, "declare G")
    tricks = 0
    rng = random.Random(0)
    while s.phase != DONE:
        p = s.current_player
        visible = s.hands[p] & ~s.x.hidden[p]
        legal = s.legal_actions()
        assert all(visible >> A.card_of_play(a) & 1 for a in legal)
        a = legal[rng.randrange(len(legal))]
        c = A.card_of_play(a)
        under = s.x.under[c]
        s.apply_action(a)
        if under >= 0:
            assert not s.x.hidden[p] >> under & 1  # "When a face-up card is played, the hidden card is turned"
        tricks = s.trick_count
    assert tricks == 16 and sum(s.tricks_won) == 16 and sum(s.points) == 120


def test_officers_deal_by_rows():
    env = skat_v0.raw_env(variant="officers")
    deck = [c for c in range(32)]
    env.reset(options={"deal": {"deck": deck}, "dealer": 1})
    s = env.state
    assert cards_of(s.x.hidden[0]) == list(range(8)) and cards_of(s.hands[0]) == list(range(8)) + list(range(16, 24))
    assert s.x.under[16] == 0 and s.x.under[23] == 7


# --- Sechserskat -------------------------------------------------------------------------------------
def test_sechserskat_36_cards_eleven_each_and_a_skat_of_three():
    s = SkatGame(variant="sechserskat").new_initial_state(0)
    assert [h.bit_count() for h in s.hands] == [11, 11, 11] and s.skat.bit_count() == 3
    assert s.hands[0] | s.hands[1] | s.hands[2] | s.skat == PACK36.full
    assert PACK36.order[CLUBS][PACK36.card("C6")] < PACK36.order[CLUBS][card("C7")]
    assert PACK36.matadors(CLUBS, sum(1 << c for c in (4, 12, 20, 28, 7, 3, 6, 5, 2, 1, 0, 32))) == 12
    assert 12 * 19 in SkatGame(variant="sechserskat").table.bid_values  # clubs "with 12" and every level
    rng = random.Random(0)
    while s.phase != DONE:
        if s.phase == SKAT:
            act(s, "pickup")
            assert s.hands[s.declarer].bit_count() == 14
            continue
        s.apply_action(s.legal_actions()[rng.randrange(len(s.legal_actions()))])
    assert s.skat.bit_count() == 3 and (s.trick_count == 11 or s.contract.game == NULL)


# --- Idiotenskat -------------------------------------------------------------------------------------
def test_idiotenskat_shows_the_others_cards_and_never_ones_own():
    env = skat_v0.raw_env(variant="idiotenskat")
    env.reset(seed=2)
    s = env.state
    for agent in env.possible_agents:
        view = TableView(env.observe(agent)["observation"])
        pos = env.position_of(agent)
        assert view.plane("hand") == 0
        seen = [s.hands[q] for q in range(3) if q != pos]
        assert sorted(x for x in view.planes("open") if x) == sorted(seen)


def test_idiotenskat_plays_by_slot_and_a_revoke_loses():
    s = SkatGame(variant="idiotenskat").state_from_deal(*DEAL)
    act(s, "pass", "pass", "bid 18", "hand", "declare CH")
    assert names(s) == [f"play slot {k}" for k in range(10)]
    act(s, "play slot 0")  # CJ (slots are the hand in dealing order): a trump lead
    act(s, "play slot 0", "play slot 0")  # middlehand (SA) and rearhand (HQ) hold no trump: fine
    assert s.phase == PLAY and s.trick_count == 1
    s5 = SkatGame(variant="idiotenskat").state_from_deal(*DEAL)
    act(s5, "pass", "pass", "bid 18", "hand", "declare DH")
    act(s5, "play slot 0")  # forehand leads CJ, a trump
    act(s5, "play slot 0")  # middlehand SA: no trump held, fine
    act(s5, "play slot 0")  # rearhand HQ although it holds diamonds (trumps): a revoke
    assert s5.phase == DONE and s5.x.ending == REVOKED and s5.x.ended_by == 2
    assert s5.outcome.won and s5.scores[0] > 0  # a defender revoked: the declarer wins


# --- Raeuberskat -------------------------------------------------------------------------------------
def test_raeuberskat_no_bidding_a_fixed_contract():
    g = SkatGame(variant="raeuberskat")
    s = g.new_initial_state(0, deal_index=0)
    assert s.phase == SKAT and s.declarer == 0 and s.bid == 0
    act(s, "hand")
    assert all(A.ALL_CONTRACTS[A.contract_of_action(a)].game == DIAMONDS for a in s.legal_actions())
    s = g.new_initial_state(0, deal_index=15)  # deals 15..17: null
    act(s, "pickup")
    assert s.phase == DISCARD
    s.apply_action(s.legal_actions()[0])
    s.apply_action(s.legal_actions()[0])
    assert names(s) == ["declare N", "declare NO"]


@pytest.mark.parametrize("variant", ["raeuberskat", "officers"])
def test_no_overbid_without_a_bid(variant):
    g = SkatGame(variant=variant)
    for seed in range(20):
        s = g.new_initial_state(seed)
        rng = random.Random(seed)
        while s.phase != DONE:
            s.apply_action(s.legal_actions()[rng.randrange(len(s.legal_actions()))])
        assert s.outcome is not None and not s.outcome.overbid
