"""The rule-based Skat baseline: legal in every phase, bids within its evaluation, plays sensibly,
beats uniform random play clearly, keeps no state (one instance plays many seats and tables) and
makes the decisions recorded before it read its voids from the observation."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from agents.rule_skat import RuleSkatAgent
from envs import skat_v0
from envs.skat import actions as A
from envs.skat.cards import CLUBS, GRAND, parse_cards
from envs.skat.observation import decode, observe
from envs.skat.rules import DONE, PHASE_NAMES, PLAY, SkatGame
from tests import skat_golden

_BIDS = range(A.BID, A.BID + A.NUM_BIDS)


def _obs(state):
    """The acting seat's observation dict, built as the env builds it."""
    p = state.current_player
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return {"observation": observe(state, p), "action_mask": mask}


def _run_deals(n, seed, rule_seats, **options):
    """Play ``n`` deals through the PettingZoo env; check every rule action. Returns per-phase counts,
    rule scores and the scores of the other seats."""
    env = skat_v0.env(**options)
    rule = RuleSkatAgent(seed=seed)
    phases = dict.fromkeys(PHASE_NAMES, 0)
    rule_scores, other_scores = [], []
    for i in range(n):
        env.reset(seed=seed + i)
        seats = rule_seats(i)
        agents = {a: rule if k in seats else RandomAgent("skat", seed=seed * 7 + i * 3 + k)
                  for k, a in enumerate(env.possible_agents)}
        final = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                assert not trunc, "a deal ended on an illegal move"
                final[agent] = reward
                env.step(None)
                continue
            player = agents[agent]
            action = player.act(obs)
            if player is rule:
                assert obs["action_mask"][action] == 1, f"illegal {A.ACTION_NAMES[action]}"
                view = decode(obs["observation"])
                phases[PHASE_NAMES[view.phase]] += 1
                if action in _BIDS or action == A.HOLD:
                    bid = A.BID_VALUES[action - A.BID] if action in _BIDS else view.bid
                    assert bid <= rule.bid_limit(obs), "bid past its own evaluation"
            env.step(action)
        for k, a in enumerate(env.possible_agents):
            (rule_scores if k in seats else other_scores).append(final[a])
    return phases, rule_scores, other_scores


@pytest.mark.parametrize("options", [{}, {"kontra": True}, {"ramsch": True}, {"scoring": "classic"}])
def test_only_legal_actions_in_every_phase(options):
    counts = dict.fromkeys(PHASE_NAMES, 0)
    for seats, seed in (((lambda i: {i % 3}), 100), ((lambda i: {0, 1, 2} - {i % 3}), 200),
                        ((lambda i: {0, 1, 2}), 300)):
        phases, _, _ = _run_deals(60, seed, seats, **options)
        for k, v in phases.items():
            counts[k] += v
    for phase in ("auction", "skat", "discard", "declare", "play"):
        assert counts[phase] > 0, f"the rule agent never acted in phase {phase}"
    if options.get("kontra"):
        assert counts["kontra"] > 0 and counts["re"] > 0


def test_bid_limit_follows_hand_strength():
    agent = RuleSkatAgent()
    strong = parse_cards("CJ SJ HJ DJ CA CT CK CQ C9 SA")
    weak = parse_cards("C7 C8 SQ S9 HK H8 H7 DK D9 D8")
    assert agent.evaluate(strong, True)[0] >= 60  # clubs with four: 12 x 5
    assert agent.evaluate(weak, False)[0] == 0


class _Bidder(RandomAgent):
    """Bids (or holds) up to ``cap``, otherwise random."""

    def __init__(self, cap: int) -> None:
        super().__init__("skat", seed=0)
        self.cap = cap

    def act(self, observation):
        mask = observation["action_mask"]
        bid = decode(observation["observation"]).bid
        if mask[A.HOLD]:
            return A.HOLD if bid <= self.cap else A.PASS
        bids = [a for a in _BIDS if mask[a]]
        if bids and A.BID_VALUES[bids[0] - A.BID] <= self.cap:
            return bids[0]
        if mask[A.PASS]:
            return A.PASS
        return super().act(observation)


@pytest.mark.parametrize("cap", [0, 48])
def test_four_jacks_and_long_clubs_bids_and_declares_clubs_or_grand(cap):
    hands = ["CJ SJ HJ DJ CA CT CK CQ C9 SA", "C8 C7 ST SK SQ S9 HA HT HK DA", "S8 S7 HQ H9 H8 H7 DT DK DQ D9"]
    state = SkatGame().state_from_deal(hands, "D8 D7")
    agent, other = RuleSkatAgent(), _Bidder(cap)
    calls = []
    while state.phase < PLAY:
        p = state.current_player
        action = (agent if p == 0 else other).act(_obs(state))
        if p == 0 and (action in _BIDS or action == A.HOLD):
            calls.append(action)
        state.apply_action(action)
    assert calls, "forehand never bid or held"
    assert state.declarer == 0 and state.contract.game in (CLUBS, GRAND)
    assert state.bid >= cap


def _play_position(hands, skat, contract, played):
    """A deal where forehand declared ``contract`` (a hand game) after 18 / hold / pass / pass,
    then the given cards were played."""
    state = SkatGame().state_from_deal(hands, skat)
    for name in ("bid 18", "hold", "pass", "pass", "hand", "declare " + contract):
        state.apply_action(A.action_index(name))
    for name in played:
        state.apply_action(A.action_index("play " + name))
    return state


def _rule_card(state):
    return A.ACTION_NAMES[RuleSkatAgent().act(_obs(state))][5:]


def test_declarer_draws_trumps_with_the_boss_jack():
    hands = ["CJ SJ CA CT CK C9 C8 SA HA D7", "HJ DJ CQ ST SK S9 HT HK DA DT", "C7 SQ S8 S7 HQ H9 H8 H7 DK DQ"]
    state = _play_position(hands, "D9 D8", "CH", [])
    assert _rule_card(state) == "CJ"


def test_declarer_ruffs_a_defenders_ace():
    # Clubs: middlehand takes the diamond trick and leads the ace of hearts; forehand, the
    # declarer, is void in hearts and plays last.
    hands = ["CJ SJ CA CT CK C9 C8 SA SK D7", "HJ DJ CQ ST S9 HA HT HK DA DT", "C7 SQ S8 S7 HQ H9 H8 H7 DK DQ"]
    state = _play_position(hands, "D9 D8", "CH", ["D7", "DA", "DK", "HA", "H7"])
    assert state.current_player == 0
    card = _rule_card(state)
    assert card[0] == "C" and card != "CJ", card  # a trump of the suit: no discard, no jack wasted


def test_defender_takes_a_trick_when_last():
    # Hearts: forehand leads the king of spades; rearhand wins it with the ace or the ten.
    hands = ["CJ SJ HJ DJ HA HT HK SK C7 D7", "H9 S7 S9 CA CT CK CQ DA DT DK", "SA ST S8 SQ H8 H7 C9 C8 D9 D8"]
    state = _play_position(hands, "HQ DQ", "HH", ["SK", "S7"])
    assert _rule_card(state) in ("SA", "ST")


def test_defender_smears_on_partners_trick():
    # Spades: rearhand wins the first trick and leads the ace of diamonds, the declarer follows;
    # middlehand, void in diamonds, gives its partner an ace or a ten.
    hands = ["CJ SJ HJ SA ST SK S9 S8 D7 C7", "DJ SQ HA HT HK CA CT C9 C8 H9", "S7 CK CQ DA DT DK DQ D9 D8 HQ"]
    state = _play_position(hands, "H8 H7", "SH", ["C7", "C8", "CK", "DA", "D7"])
    assert state.current_player == 1
    card = _rule_card(state)
    assert card[1] in "AT" and card[1] != "J", card


def test_follows_suit():
    # Hearts: forehand leads a trump; middlehand must (and does) follow with its only trump.
    hands = ["CJ SJ HJ DJ HA HT HK SK C7 D7", "H9 S7 S9 CA CT CK CQ DA DT DK", "SA ST S8 SQ H8 H7 C9 C8 D9 D8"]
    state = _play_position(hands, "HQ DQ", "HH", ["HA"])
    assert _rule_card(state) == "H9"
    state.apply_action(A.action_index("play H9"))
    assert _rule_card(state) in ("H8", "H7")


def test_much_stronger_than_random():
    # one rule seat against two random seats, every seat in turn, and the reverse
    _, rule1, rand2 = _run_deals(150, 1000, lambda i: {i % 3})
    _, rule2, rand1 = _run_deals(150, 2000, lambda i: {0, 1, 2} - {i % 3})
    assert np.mean(rule1) > np.mean(rand2) + 20
    assert np.mean(rule2) > np.mean(rand1) + 20
    assert np.mean(rule1) > 15 and np.mean(rule2) > 15


def test_spades_hand_reaches_a_spades_value():
    limit, _ = RuleSkatAgent().evaluate(parse_cards("CJ SJ SA ST SK SQ S9 HA DA D7"), True)
    assert limit >= 33  # spades with two, or more


def test_keeps_track_of_cards_and_voids(monkeypatch):
    """What the player thinks each other seat may hold always contains that seat's real cards, and
    the voids it reads from the observation narrow it down."""
    from agents import skat_seen

    seen = []

    class Recording(skat_seen.Seen):
        __slots__ = ()

        def __init__(self, *args):
            super().__init__(*args)
            seen.append(self)

    monkeypatch.setattr(skat_seen, "Seen", Recording)
    agent = RuleSkatAgent()
    game = SkatGame()
    checked = narrowed = 0
    for i in range(30):
        state = game.new_initial_state(seed=500 + i)
        while state.current_player >= 0:
            p = state.current_player
            seen.clear()
            action = agent.act(_obs(state))
            if seen:
                view = seen[0]
                for r in (1, 2):
                    real = state.hands[(p + r) % 3]
                    assert real & ~view.cand[r] == 0, "a card a seat holds was ruled out"
                    assert view.sizes[r] == real.bit_count()
                    checked += 1
                    narrowed += view.cand[r] != view.out
            state.apply_action(action)
    assert checked > 500 and narrowed > 50


def test_without_matadors_are_not_overbid():
    # hearts without three (no club, spade, heart jack): 40 only if none of the three is in the skat
    agent = RuleSkatAgent()
    limit, _ = agent.evaluate(parse_cards("DJ HA HT H9 H8 SA C7 C8 D7 D8"), False)
    assert limit < 40


# --- no state, the same decisions --------------------------------------------------------------
def test_decisions_equal_those_recorded_before_the_refactor():
    """The action sequences of seeded rule-vs-rule and rule-vs-random deals equal those recorded
    on main (tests/skat_golden.py; ``python -m tests.skat_golden --check`` compares all 6,000)."""
    expected = json.loads(skat_golden.FIXTURE.read_text())["rule"]
    for name, options in skat_golden.CONFIGS.items():
        for seating, deals in (("rule3", 40), ("rule1", 20)):
            got = skat_golden.play_rule_deals(options, deals, seating)
            assert not skat_golden.compare(expected[f"{name}/{seating}"], got), f"{name}/{seating} changed"


def test_one_instance_plays_every_seat_of_many_tables_at_once():
    """Ten tables in lockstep, one agent for all thirty seats, decisions batched across tables:
    the same deals as with one agent per seat, deal by deal."""
    assert RuleSkatAgent.shareable
    agent = RuleSkatAgent()
    expected = json.loads(skat_golden.FIXTURE.read_text())["rule"]
    for name, options in skat_golden.CONFIGS.items():
        game = SkatGame(**options)
        states = [game.new_initial_state(50_000 + seed) for seed in range(2 * skat_golden.BLOCK)]
        actions = [[] for _ in states]
        while True:
            live = [i for i, s in enumerate(states) if s.phase != DONE]
            if not live:
                break
            batch = [{"observation": observe(states[i], states[i].current_player),
                      "action_mask": skat_golden.action_mask(states[i])} for i in live]
            for i, action in zip(live, agent.act_batch(batch), strict=True):
                actions[i].append(action)
                states[i].apply_action(action)
        digests = [hashlib.sha256(np.array(a, dtype="<i2").tobytes()).digest() for a in actions]
        assert not skat_golden.compare(expected[f"{name}/rule3"], skat_golden._blocks(digests)), name


def test_each_answer_depends_on_the_observation_alone():
    """A fresh agent for every decision, the decisions in random order: the same answers."""
    record = []
    for options in ({}, {"kontra": True, "ramsch": True}):
        skat_golden.play_rule_deals(options, 25, "rule3", record=record)
    played = [RuleSkatAgent().act(obs) for _, obs in record]
    order = list(range(len(record)))
    random.Random(0).shuffle(order)
    agent = RuleSkatAgent()
    for i in order[:400]:
        assert agent.act(record[i][1]) == played[i]
        assert RuleSkatAgent().act(record[i][1]) == played[i]


def test_second_discard_after_someone_elses_first():
    """The first card put away by another player (a driver in pretraining): the rule agent still
    puts away a legal second card; after its own first card it completes the pair it chose."""
    hands = ["CJ SJ HJ DJ CA CT CK CQ C9 SA", "C8 C7 ST SK SQ S9 HA HT HK DA", "S8 S7 HQ H9 H8 H7 DT DK DQ D9"]
    for first_by_rule in (True, False):
        state = SkatGame().state_from_deal(hands, "D8 D7")
        for name in ("bid 18", "hold", "pass", "pass", "pickup"):
            state.apply_action(A.action_index(name))
        agent = RuleSkatAgent()
        own = agent.act(_obs(state))
        pair = agent._best_drop(state.hands[0], 0, 18, True, 2)
        assert own == A.DISCARD + (pair & -pair).bit_length() - 1
        state.apply_action(own if first_by_rule else A.action_index("discard D7"))
        second = RuleSkatAgent().act(_obs(state))
        assert A.DISCARD <= second < A.DECLARE and state.hands[0] >> (second - A.DISCARD) & 1
        if first_by_rule:
            assert 1 << (second - A.DISCARD) | 1 << (own - A.DISCARD) == pair
