"""The session core and the game adapters: who acts when, checked moves, every variant's view and
result, hidden information, records, the solver's question, opponents."""

from __future__ import annotations

import json
import random

import pytest

from envs.skat import iss
from envs.skat.env import raw_env as skat_env
from envs.skat.rules import DONE
from envs.skat.rules.views import unknown_cards
from envs.skat.variants import VARIANTS as SKAT_VARIANTS
from envs.thirtyone.env import raw_env as thirtyone_env
from envs.thirtyone.variants import VARIANTS as THIRTYONE_VARIANTS
from play import opponents, records
from play.adapters import adapter, games
from play.core import IllegalMove, Table, agent_seed
from play.skat import ADAPTER as SKAT
from play.skat.view import position_of, state
from play.thirtyone import ADAPTER as THIRTYONE


def table(game: str, seed: int, specs: list[str] | None = None, **options) -> Table:
    a = adapter(game)
    n = len(a.make_env(options).possible_agents)
    specs = (specs or ["rule"]) + ["rule"] * n
    bots = [opponents.make_agent(specs[i], game, agent_seed(seed, i + 1)) for i in range(n - 1)]
    names = ["You"] + [f"{s} {i + 1}" for i, s in enumerate(specs[: n - 1])]
    return Table(a, options, [None, *bots], names, seed=seed)


def play_out(t: Table, rng: random.Random, check=None) -> None:
    while not t.over:
        if check is not None:
            check(t)
        t.play(rng.choice(t.legal_moves()).action)


def test_registry_has_every_game():
    assert games() == ("skat", "thirtyone") and adapter("skat") is SKAT and adapter("thirtyone") is THIRTYONE
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        adapter("chess")
    with pytest.raises(ValueError, match="unknown Skat table option"):
        SKAT.make_env({"dealer": 1})  # the table rotates the dealer itself


def skat_leaks(t: Table) -> None:
    """What the person's view shows of a Skat deal: nothing the rules' views hide from its position."""
    st = state(t)
    me = position_of(t, t.human_seat)
    hidden = unknown_cards(st, me)
    view = t.view()
    for key in ("hand", "last", "auction"):
        view.pop(key)
    text = json.dumps(view)
    names = st.table.pack.names
    leaked = [names[c] for c in range(st.table.pack.size) if hidden >> c & 1 and f'"{names[c]}"' in text]
    assert not leaked, f"{st.options.variant}: the view shows {leaked}"


def check_moves(t: Table) -> None:
    legal = t.legal_moves()
    assert legal and len({m.key.lower() for m in legal}) == len(legal), [m.key for m in legal]
    assert all(m.label and m.key for m in legal)
    assert len({m.card for m in legal if m.card}) == len([m for m in legal if m.card])


@pytest.mark.parametrize("variant", list(SKAT_VARIANTS))
def test_every_skat_variant_at_the_table(variant):
    """A deal of every Skat table played by the person's random moves: labels and keys for every move,
    nothing hidden in the view, a result with the value laid out, the scores the env charged."""
    seen = set()
    for seed in range(3):
        t = table("skat", seed, variant=variant, **({"kontra": True, "supra": True} if variant == "isko" else {}))
        t.new_deal()
        rng = random.Random(seed)

        def check(t: Table) -> None:
            check_moves(t)
            skat_leaks(t)
            seen.update(m.label.split()[0] for m in t.legal_moves())

        play_out(t, rng, check)
        res = t.deal.result
        st = state(t)
        assert st.phase == DONE and res["summary"] and json.dumps(t.view())
        by_seat = [0] * t.seats
        for p in range(st.table.score_len):
            if (p != st.table.dummy and p < st.table.positions) or p == 3:
                by_seat[st.table.seat_of(p, t.deal.start["dealer"])] = st.scores[p]
        assert res["scores"] == by_seat
        if res["kind"] == "game":
            assert res["steps"][0][0] == "game" and any(k == "declarer score" for k, _ in res["steps"])
    assert seen  # every table offered moves to the person


@pytest.mark.parametrize("variant", list(THIRTYONE_VARIANTS))
def test_every_thirtyone_variant_at_the_table(variant):
    t = table("thirtyone", 3, variant=variant, num_players=2, lives=1, **(
        {"target_score": 6} if variant == "no_elimination" else {}))
    t.new_deal()

    def check(t: Table) -> None:
        check_moves(t)
        st = t.env.state
        view = t.view()
        for key in ("last", "last_round"):
            view.pop(key)
        text = json.dumps(view)
        other = 1 - t.human_seat
        hidden = [c for c in st.hands[other] if not st.known[other] >> c & 1 and st.phase != 9] + list(st.stock)
        hidden += [c for j, c in enumerate(st.table) if c >= 0 and not st.face_up[j] and st.peek != t.human_seat]
        from envs.thirtyone.cards import CARD_NAMES

        assert not [CARD_NAMES[c] for c in hidden if f'"{CARD_NAMES[c]}"' in text]

    play_out(t, random.Random(1), check)
    res = t.deal.result
    assert res["winner"] in (0, 1) and res["showdown"]["rows"]
    key = res["showdown"]["key"]
    assert key == {"points": "points", "pot": "tokens"}.get(t.env.state.opts.scoring, "lives_lost")


def test_skat_deals_records_round_trip_and_steps_add_up():
    from envs.skat.scoring import multiplier_steps

    kinds = set()
    for seed in range(8):
        t = table("skat", seed, ["rule", "random"], kontra=seed % 2 == 0)
        rng = random.Random(seed)
        for _ in range(2):
            t.new_deal()
            play_out(t, rng)
            deal, st = t.deal, state(t)
            res = deal.result
            kinds.add(res["kind"])
            assert res["downloads"] == ["json", "iss"]
            game = iss.replay(records.download(t, deal, "iss")[0])  # every move checked, the result compared
            if res["kind"] == "passed in":
                assert game.reason == "passed in"
                continue
            assert game.complete and game.declarer_points == res["declarer_points"]
            if st.doubling == 1:
                assert game.value == st.outcome.declarer_score
            if st.contract.game != 5:
                steps = multiplier_steps(st.contract, st.dealt[st.declarer] | st.original_skat,
                                         st.outcome.declarer_points, st.outcome.declarer_tricks)
                assert dict(res["steps"])["game value"].startswith(f"{st.outcome.multiplier} x ")
                assert sum(n for _, n in steps) == st.outcome.multiplier
    assert "game" in kinds


@pytest.mark.parametrize("variant", ["isko", "four_player", "strohmann", "officers", "idiotenskat", "sechserskat",
                                     "oma", "tournee"])
def test_skat_json_record_replays_alone(variant):
    t = table("skat", 11, variant=variant)
    for _ in range(2):  # the second deal has another dealer
        t.new_deal()
        play_out(t, random.Random(5))
    data = json.loads(json.dumps(records.deal_json(t, t.deal)))
    env = skat_env(**data["options"])
    start = data["start"]
    deal = {k: start[k] for k in ("hands", "skat", "dummy") if k in start}
    env.reset(options={"deal": deal, "dealer": start["dealer"]})
    for m in data["moves"]:
        assert env.agent_selection == f"player_{m['seat']}"
        env.step(m["action"])
    assert env.seat_scores() == data["result"]["scores"]


def test_value_steps_of_a_known_game():
    """Grand hand with 2 jacks (with 2), schneider: 24 x (2 + 1 + 1 + 1) = 120."""
    from envs.skat.actions import CONTRACT_BY_LABEL, CONTRACTS
    from envs.skat.cards import parse_cards
    from envs.skat.scoring import multiplier_steps

    c = CONTRACTS[CONTRACT_BY_LABEL["GH"]]
    steps = multiplier_steps(c, parse_cards("CJ SJ HA HT"), declarer_points=95, declarer_tricks=8)
    assert steps == [("with 2", 2), ("game", 1), ("hand", 1), ("schneider", 1)]


def test_illegal_moves_are_refused_and_change_nothing():
    t = table("skat", 3, ["rule", "random"])
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


def test_agents_play_until_the_person_must_act_and_the_sitting_out_dealer_watches():
    t = table("skat", 8)
    t.new_deal()
    assert t.human_to_act() and t.to_act() == 0
    assert all(e["seat"] != 0 for e in t.deal.events if e["kind"] == "move")
    t = table("skat", 2, variant="four_player")
    for _ in range(4):  # the person deals (and sits out) one deal in four: the agents play it alone
        events = t.new_deal()
        if position_of(t, 0) == 3:
            assert t.over and t.legal_moves() == [] and "You deal this deal and sit it out." in t.view()["info"]
            assert any(e["kind"] == "deal_end" for e in events)
        else:
            play_out(t, random.Random(0))


def test_moves_of_others_keep_only_their_public_text():
    t = table("skat", 1)
    t.new_deal()
    ev = {"kind": "move", "seat": 1, "action": 67 + 4, "text": "rule: puts a card into the skat",
          "note": "You: discard CJ"}
    assert "CJ" not in json.dumps(t.public_events([ev])) and "71" not in json.dumps(t.public_events([ev]))
    assert t.public_events([{**ev, "seat": 0}])[0]["note"] == "You: discard CJ"


def test_thirtyone_game_json_replays_with_its_seed_and_banking_counts_tokens():
    t = table("thirtyone", 9, ["rule", "random"], num_players=3, lives=1)
    t.new_deal()
    play_out(t, random.Random(2))
    data = json.loads(json.dumps(records.deal_json(t, t.deal)))
    env = thirtyone_env(**data["options"], episode="game")
    env.reset(seed=data["seed"])
    for m in data["moves"]:
        while env.terminations[env.agent_selection]:
            env.step(None)
        env.step(m["action"])
    assert env.state.returns() == data["result"]["returns"]
    assert any(e["kind"] == "round_end" for e in t.deal.events) and t.deal.result["downloads"] == ["json"]
    with pytest.raises(ValueError, match="json"):
        records.download(t, t.deal, "iss")
    t = table("thirtyone", 4, variant="banking", num_players=2)
    t.new_deal()
    play_out(t, random.Random(3))
    rounds = [e["showdown"] for e in t.deal.events if e["kind"] == "round_end"]
    assert rounds and all(sd["key"] == "tokens" for sd in rounds)
    assert t.score["columns"][1] == "tokens won" and sum(r[1] for r in t.score["rows"]) == 0
    assert any(k == "tokens" for k, _ in t.deal.result["steps"])


def declared_deal(variant: str = "isko", seed0: int = 0) -> Table:
    for seed in range(seed0, seed0 + 40):
        t = table("skat", seed, variant=variant)
        t.new_deal()
        play_out(t, random.Random(seed))
        if t.deal.result["kind"] == "game":
            return t
    raise AssertionError("no declared game in 40 deals")


def test_could_the_declarer_have_won():
    """The solver's answer at trick 1 with every hand open, and a winning line that wins."""
    from envs.skat.solver import Position, Solver

    for variant, seed0 in (("isko", 0), ("four_player", 0)):
        t = declared_deal(variant, seed0)
        deal = t.deal
        assert deal.result["question"] == "Could the declarer have won?"
        snap = deal.notes["play_start"]
        assert snap.trick_count == 0 and not snap.trick and snap.contract is not None
        answer = SKAT.analyse(t, deal)
        ask = "schwarz" if snap.contract.schwarz or snap.contract.ouvert else (
            "schneider" if snap.contract.schneider else "win")
        assert answer["answer"] == bool(Solver().value(Position.from_state(snap), ask))
        if answer["answer"]:
            pos = Position.from_state(snap)
            for trick in answer["line"]:
                for c in trick["cards"]:
                    from envs.skat.cards import card

                    pos = pos.play(card(c["card"]))
            d = snap.declarer
            if snap.contract.game == 5:
                assert pos.tricks[d] == 0
            else:
                from envs.skat.cards import points

                assert pos.points[d] + points(snap.skat) >= 61
            assert len(answer["line_text"]) == len(answer["line"]) == 10
        else:
            assert answer["text"].startswith("No:") and answer["line"] is None
    for variant in ("oma", "sechserskat"):  # card play the solver does not model: not asked
        t = declared_deal(variant)
        assert t.deal.result["question"] is None


def test_opponent_list_is_server_side_and_fits_the_table():
    ids = [o.id for o in opponents.listing("skat")]
    assert ids[:3] == ["random", "rule", "pimc"] and "checkpoint:skat_ppo.pt" in ids
    assert "pimc" not in [o.id for o in opponents.listing("thirtyone")]
    assert not any("thirtyone" in i for i in ids)
    ppo = opponents.find("skat", "checkpoint:skat_ppo.pt")
    assert ppo.info["algorithm"] == "ppo" and ppo.info["steps"] > 0 and ppo.info["eval"]
    for bad in ("checkpoints/skat_ppo.pt", "agents.random_agent:RandomAgent", "../x.pt", "checkpoint:../skat_ppo.pt"):
        with pytest.raises(ValueError, match="unknown opponent"):
            opponents.find("skat", bad)
    a, b = opponents.make_agent(ppo.spec, "skat", 1), opponents.make_agent(ppo.spec, "skat", 2)
    assert a.network is b.network  # one loaded network, shared by every seat
    four = SKAT.make_env({"variant": "four_player"})
    assert set(opponents.fitting("skat", four)) == {"random", "rule"}  # pimc and the checkpoints: ISkO only
    assert "pimc plays" in opponents.unfit(opponents.find("skat", "pimc"), "skat", four)
    assert "trained on a table" in opponents.unfit(ppo, "skat", four)
    with pytest.raises(ValueError, match="pimc plays"):
        opponents.make_agent("pimc", "skat", 1, four)


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
    assert res["downloads"] == ["json"] and res["question"] is None
    with pytest.raises(ValueError, match="json"):
        records.download(t, t.deal, "iss")
    json.dumps(records.deal_json(t, t.deal))


def test_a_list_goes_on_from_deal_to_deal():
    t = table("skat", 5, variant="bierskat", list_deals=3)
    for n in range(1, 5):
        t.new_deal()
        play_out(t, random.Random(n))
        steps = dict(t.deal.result["steps"])
        assert steps["list"].startswith(f"{(n - 1) % 3 + 1} of 3 deals")
    assert t.deals_played == 4 and "the list is over" in dict(t.finished[2].result["steps"])["list"]


def test_every_action_has_a_label_and_a_key():
    """Every action of the extended tables (Skat's 277, Thirty-One's 73) reads as a move."""
    from play.skat.moves import move_of as skat_move
    from play.thirtyone.moves import move_of as thirtyone_move

    env = SKAT.make_env({"variant": "sechserskat"})
    env.reset(seed=1)
    labels = {skat_move(a, env.state).label for a in range(env.action_space("player_0").n)}
    assert len(labels) > 250 and all(labels)
    env = THIRTYONE.make_env({"variant": "switch"})
    env.reset(seed=1)
    moves = [thirtyone_move(a, env.state, 0) for a in range(env.action_space("player_0").n)]
    assert all(m.label and m.key for m in moves) and len({m.key for m in moves[52:]}) == 21
