"""The session core: who acts when, checked moves, results, records, the solver hook, opponents."""

from __future__ import annotations

import json
import random
import sys
import types

import pytest

from envs.skat import iss
from envs.skat.env import raw_env as skat_env
from envs.skat.rules import DONE
from envs.thirtyone.env import raw_env as thirtyone_env
from play import analysis, opponents, records
from play.core import IllegalMove, Table, agent_seed
from play.skat import ADAPTER as SKAT
from play.thirtyone import ADAPTER as THIRTYONE


def skat_table(seed: int, **options) -> Table:
    bots = [opponents.make_agent("rule", "skat", agent_seed(seed, 1)),
            opponents.make_agent("random", "skat", agent_seed(seed, 2))]
    return Table(SKAT, options, [None, *bots], ["You", "rule", "random"], seed=seed)


def play_out(table: Table, rng: random.Random) -> None:
    while not table.over:
        table.play(rng.choice(table.legal_moves()).action)


def test_skat_deals_records_round_trip_and_steps_add_up():
    from envs.skat.scoring import multiplier_steps

    kinds = set()
    for seed in range(12):
        t = skat_table(seed, kontra=seed % 2 == 0)
        rng = random.Random(seed)
        for _ in range(2):
            t.new_deal()
            play_out(t, rng)
            deal, st = t.deal, t.env.state
            assert st.phase == DONE
            res = deal.result
            kinds.add(res["kind"])
            # the ISS record replays through envs.skat.iss (every move checked, the result compared)
            game = iss.replay(records.deal_iss(t, deal))
            if res["kind"] == "passed in":
                assert game.reason == "passed in"
                continue
            assert game.complete and game.declarer_points == res["declarer_points"]
            if st.doubling == 1:
                assert game.value == st.outcome.declarer_score
            # the JSON record replays alone: the deal, the dealer, the moves
            data = json.loads(json.dumps(records.deal_json(t, deal)))
            env = skat_env(**data["options"])
            env.reset(options={"deal": {"hands": data["start"]["hands"], "skat": data["start"]["skat"]},
                               "dealer": data["start"]["dealer"]})
            for m in data["moves"]:
                env.step(m["action"])
            assert [env.state.scores[env.position_of(a)] for a in env.possible_agents] == res["scores"]
            if st.contract.game != 5:
                steps = multiplier_steps(st.contract, st.dealt[st.declarer] | st.original_skat,
                                         st.outcome.declarer_points, st.outcome.declarer_tricks)
                assert sum(n for _, n in steps) == st.outcome.multiplier
                shown = dict(res["steps"])
                assert shown["game value"].startswith(f"{st.outcome.multiplier} x ")
    assert "game" in kinds


def test_value_steps_of_a_known_game():
    """Grand hand with 2 jacks (with 2), schneider: 24 x (2 + 1 + 1 + 1) = 120."""
    from envs.skat.actions import CONTRACT_BY_LABEL, CONTRACTS
    from envs.skat.cards import parse_cards
    from envs.skat.scoring import multiplier_steps

    c = CONTRACTS[CONTRACT_BY_LABEL["GH"]]
    steps = multiplier_steps(c, parse_cards("CJ SJ HA HT"), declarer_points=95, declarer_tricks=8)
    assert steps == [("with 2", 2), ("game", 1), ("hand", 1), ("schneider", 1)]


def test_illegal_moves_are_refused_and_change_nothing():
    t = skat_table(3)
    t.new_deal()
    before = (list(t.deal.moves), t.view())
    legal = t.legal_moves()
    bad = next(a for a in range(162) if a not in {m.action for m in legal})
    for action in (bad, -1, 999, "64", 3.0, True, None):
        with pytest.raises(IllegalMove) as e:
            t.play(action)
        assert e.value.legal == legal
    assert (t.deal.moves, t.view()) == before
    play_out(t, random.Random(0))
    with pytest.raises(IllegalMove, match="over"):
        t.play(legal[0].action)


def test_agents_play_until_the_person_must_act():
    t = skat_table(8)
    t.new_deal()
    assert t.human_to_act() and t.to_act() == 0
    assert all(e["seat"] != 0 for e in t.deal.events if e["kind"] == "move")


def test_discards_of_others_stay_hidden():
    t = skat_table(1)
    t.new_deal()
    ev = {"kind": "move", "seat": 1, "action": 67 + 4, "label": "discard CJ"}
    assert "CJ" not in json.dumps(t.public_events([ev]))
    assert t.public_events([{**ev, "seat": 0}])[0]["label"] == "discard CJ"


def test_thirtyone_game_json_replays_with_its_seed():
    bots = [opponents.make_agent(s, "thirtyone", agent_seed(9, i + 1)) for i, s in enumerate(["rule", "random"])]
    t = Table(THIRTYONE, {"num_players": 3, "lives": 1}, [None, *bots], ["You", "rule", "random"], seed=9)
    t.new_deal()
    play_out(t, random.Random(2))
    data = json.loads(json.dumps(records.deal_json(t, t.deal)))
    env = thirtyone_env(**data["options"], episode="game")
    env.reset(seed=data["seed"])
    for m in data["moves"]:
        while env.terminations[env.agent_selection]:
            env.step(None)
        env.step(m["action"])
    assert env.game_state.returns() == data["result"]["returns"]
    assert any(e["kind"] == "round_end" for e in t.deal.events)
    with pytest.raises(ValueError, match="Skat"):
        records.deal_iss(t, t.deal)
    lost = sum(r["lives_lost"] for e in t.deal.events if e["kind"] == "round_end" for r in e["showdown"]["rows"])
    assert 0 < sum(r[1] for r in t.score["rows"]) <= lost  # lives actually lost (none below zero)


def test_solver_question_only_with_a_solver(monkeypatch):
    t = skat_table(5)
    t.new_deal()
    play_out(t, random.Random(1))
    monkeypatch.setitem(sys.modules, "envs.skat.solver", None)  # import fails: as before the search issue
    assert not analysis.available()
    assert analysis.could_declarer_have_won(t.options, t.deal.start, t.deal.moves)["available"] is False
    asked = []
    fake = types.ModuleType("envs.skat.solver")
    fake.could_declarer_win = lambda state: asked.append(state) or True
    monkeypatch.setitem(sys.modules, "envs.skat.solver", fake)
    assert analysis.available()
    answer = analysis.could_declarer_have_won(t.options, t.deal.start, t.deal.moves)
    if t.deal.result["kind"] == "game":
        assert answer["answer"] is True and asked[0].trick_count == 0 and len(asked[0].trick) == 0
        assert asked[0].contract is not None
    else:
        assert answer["answer"] is None


def test_opponent_list_is_server_side():
    ids = [o.id for o in opponents.listing("skat")]
    assert ids[:2] == ["random", "rule"] and "checkpoint:skat_ppo.pt" in ids
    assert not any("thirtyone" in i for i in ids)
    ppo = opponents.find("skat", "checkpoint:skat_ppo.pt")
    assert ppo.info["algorithm"] == "ppo" and ppo.info["steps"] > 0 and ppo.info["eval"]
    for bad in ("checkpoints/skat_ppo.pt", "agents.random_agent:RandomAgent", "../x.pt", "checkpoint:../skat_ppo.pt"):
        with pytest.raises(ValueError, match="unknown opponent"):
            opponents.find("skat", bad)
    a, b = opponents.make_agent(ppo.spec, "skat", 1), opponents.make_agent(ppo.spec, "skat", 2)
    assert a.network is b.network  # one loaded network, shared by every seat


class Passer:
    """Passes whenever it may, else plays its first legal action."""

    def act(self, observation) -> int:
        legal = [int(a) for a in observation["action_mask"].nonzero()[0]]
        return 64 if 64 in legal else legal[0]

    def reset(self) -> None:
        pass


def test_ramsch_deal_result_and_json_only():
    t = Table(SKAT, {"ramsch": True}, [None, Passer(), Passer()], ["You", "a", "b"], seed=3)
    t.new_deal()
    while not t.over:
        moves = t.legal_moves()
        t.play(next((m for m in moves if m.key == "p"), moves[0]).action)
    res = t.deal.result
    assert res["kind"] == "ramsch" and len(res["steps"]) == 3 and "Ramsch" in res["summary"]
    assert t.view()["contract"]["text"] == "Ramsch" and sum(res["scores"]) != 0
    with pytest.raises(ValueError, match="Ramsch"):
        records.deal_iss(t, t.deal)
    json.dumps(records.deal_json(t, t.deal))
