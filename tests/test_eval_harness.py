"""The evaluation harness: duplicate seatings, the match engine, intervals, the league and the CLI."""

from __future__ import annotations

import csv
import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.user import is_class_spec
from envs.skat.cards import NUM_CARDS, parse_cards
from envs.skat.description import duplicate_deal as skat_deal
from train.evaluation import match as evaluation_match
from train.evaluation import stats
from train.evaluation.cli import main
from train.evaluation.league import League
from train.evaluation.match import (
    MatchConfig,
    MatchInterrupted,
    labels_for,
    make_agent,
    make_env,
    matchups,
    run_match,
    seatings,
)
from train.interrupt import StopNow

FAST_31 = {"num_players": 3, "lives": 1}


class FirstLegal:
    """A duck-typed user agent (no base class): always the lowest legal action."""

    def __init__(self, game: str) -> None:
        self.game = game

    def act(self, observation: dict) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def first_legal_factory(game: str, seed: int | None = None) -> FirstLegal:
    return FirstLegal(game)


@pytest.fixture(scope="module")
def skat_result():
    cfg = MatchConfig("skat", ["rule", "random"], units=6, seed=3, chunk_size=4)
    return run_match(cfg, workers=1, progress=False)


@pytest.fixture(scope="module")
def policy_checkpoint(tmp_path_factory):
    """An untrained policy-network checkpoint for Skat, written with the project's format."""
    import torch

    from agents import checkpoint
    from agents.networks import build_network, network_spec

    env = make_env("skat", {})
    obs_size = env.observation_space("player_0")["observation"].shape[0]
    num_actions = env.action_space("player_0").n
    spec = network_spec("policy", obs_size, num_actions, [16], "tanh")
    torch.manual_seed(0)
    net = build_network(spec)
    meta = checkpoint.make_metadata("skat", {}, obs_size, num_actions, spec, "ppo")
    return str(checkpoint.save(tmp_path_factory.mktemp("ck") / "tiny.pt", meta, net.state_dict(), {}))


# ------------------------------------------------------------------------------------ schedule
def test_seatings_cover_every_assignment():
    assert seatings(3, 3) == [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    two = ["".join("AB"[a] for a in s) for s in seatings(2, 3)]
    assert sorted(two) == ["AAB", "ABA", "ABB", "BAA", "BAB", "BBA"]
    assert seatings(1, 3) == [(0, 0, 0)]
    assert len(seatings(4, 3)) == 24 and len(seatings(2, 4)) == 14
    for k, n in ((2, 3), (3, 3), (2, 4), (4, 3)):  # every agent sits in every seat equally often
        counts = np.zeros((k, n), int)
        for s in seatings(k, n):
            for seat, a in enumerate(s):
                counts[a, seat] += 1
        assert (counts == counts[0, 0]).all()


def test_matchups_and_labels():
    assert matchups(3) == [(0, 1, 2)]
    assert matchups(3, "pairs") == [(0, 1), (0, 2), (1, 2)]
    assert matchups(3, "pairs", focus=[0]) == [(0, 1), (0, 2)]
    assert labels_for(["rule", "random", "rule"]) == ["rule", "random", "rule#2"]


def test_skat_deal_is_reproducible_and_replayed_exactly():
    deal = skat_deal(7, 3)
    assert deal == skat_deal(7, 3) and deal != skat_deal(7, 4) and deal != skat_deal(8, 3)
    masks = [parse_cards(h) for h in deal["hands"]] + [parse_cards(deal["skat"])]
    assert sum(m.bit_count() for m in masks) == NUM_CARDS
    assert (masks[0] | masks[1] | masks[2] | masks[3]).bit_count() == NUM_CARDS
    env = make_env("skat", {})
    env.reset(options={"deal": deal, "dealer": 2})
    for seat in range(3):  # player_i holds hand i, at position i (forehand, middlehand, rearhand)
        assert parse_cards(env.hand_of(f"player_{seat}")) == masks[seat]
        assert env.position_of(f"player_{seat}") == seat


# ------------------------------------------------------------------------------------ engine
def test_skat_match_records(skat_result):
    recs = skat_result.records
    assert len(recs) == 6 * 6
    assert [r.unit for r in recs] == sorted(r.unit for r in recs)
    for r in recs:
        d = r.details
        assert d["passed_in"] == (d["declarer"] < 0) and (d["game_type"] >= 0) == (d["declarer"] >= 0)
        if d["declarer"] >= 0:  # Seeger-Fabian: the declarer +-(value + 50); defenders 0 or +40
            others = [x for s, x in enumerate(r.returns) if s != d["declarer"]]
            assert (r.returns[d["declarer"]] > 50 and others == [0, 0]) == d["won"]
            assert d["won"] or others == [40, 40]
    arrays = skat_result.unit_arrays()
    assert arrays.shape == (6, 1, 2, 10)
    assert (arrays[:, 0, :, 0] == 9).all()  # each agent sits 9 times per deal over the 6 seatings


def test_match_is_reproducible_from_the_seed(skat_result):
    cfg = MatchConfig("skat", ["rule", "random"], units=6, seed=3, chunk_size=4)
    assert run_match(cfg, workers=1, progress=False).records == skat_result.records
    other = run_match(MatchConfig("skat", ["rule", "random"], units=6, seed=4, chunk_size=4), 1, progress=False)
    assert other.records != skat_result.records


def test_two_workers_give_the_one_worker_result(tmp_path):
    """The one multi-process test: spawned workers build agents from specs (a user file agent too)."""
    agent_file = tmp_path / "my_agent.py"
    agent_file.write_text(textwrap.dedent("""
        import numpy as np
        from agents.base import Agent

        class Mine(Agent):
            def __init__(self, game, seed=None):
                self.game, self.rng = game, np.random.default_rng(seed)

            def act(self, observation):
                return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))
    """))
    cfg = MatchConfig("skat", ["rule", "random", f"{agent_file}:Mine"], units=4, seed=1, chunk_size=2)
    one = run_match(cfg, workers=1, progress=False)
    two = run_match(cfg, workers=2, progress=False)
    assert one.records == two.records and len(one.records) == 4 * 6


def test_user_class_specs():
    spec = f"{__name__}:FirstLegal"
    assert is_class_spec(spec) and not is_class_spec("rule") and not is_class_spec("x.pt")
    assert isinstance(make_agent(spec, "skat", seed=1), FirstLegal)
    assert isinstance(agents.make(spec, game="skat"), FirstLegal)  # the same spec works everywhere
    assert make_agent(f"{__name__}:first_legal_factory", "thirtyone").game == "thirtyone"
    with pytest.raises(ValueError, match="no attribute"):
        make_agent(f"{__name__}:Missing", "skat")
    with pytest.raises(ValueError, match="act"):
        make_agent("collections:OrderedDict", "skat")
    with pytest.raises(ImportError):
        make_agent("no_such_module_xyz:Agent", "skat")
    result = run_match(MatchConfig("skat", [spec, "random"], units=2, seed=0), workers=1, progress=False)
    assert len(result.records) == 12


def test_checkpoint_agent_plays_in_the_engine(policy_checkpoint):
    cfg = MatchConfig("skat", [policy_checkpoint, "random"], units=3, seed=0, window=8)
    result = run_match(cfg, workers=1, progress=False)
    assert len(result.records) == 18
    again = run_match(cfg, workers=1, progress=False)
    assert again.records == result.records


def test_thirtyone_blocks_have_one_winner_and_places():
    cfg = MatchConfig("thirtyone", ["rule", "random"], units=3, seed=2, env_options=FAST_31, chunk_size=1)
    result = run_match(cfg, workers=1, progress=False)
    assert len(result.records) == 3 * 6
    for r in result.records:
        places = r.details["places"]
        assert sorted(places)[0] == 1.0 and list(places).count(1.0) == 1
        assert sum(places) == pytest.approx(6.0)  # places 1..3, shared places averaged
    rows = stats.agent_summary(result, 2.0, resamples=200)
    assert sum(r["win_rate"] * r["seat_games"] for r in rows) == pytest.approx(len(result.records))


# ------------------------------------------------------------------------------------ intervals
def test_bootstrap_ratios_cover_the_mean_and_are_deterministic():
    rng = np.random.default_rng(0)
    x = rng.normal(10.0, 4.0, size=400)
    est = stats.bootstrap_mean(x, seed=1)
    assert est.low < 10.0 < est.high and est.value == pytest.approx(x.mean())
    normal = stats.normal_mean(x)
    assert est.half_width == pytest.approx(normal.half_width, rel=0.15)
    assert stats.bootstrap_mean(x, seed=1) == est
    num = np.stack([x, np.zeros(400)], 1)
    nan = stats.bootstrap_ratios(num, np.stack([np.ones(400), np.zeros(400)], 1))[1]
    assert math.isnan(nan.value) and nan.format() == "-"


def test_paired_difference_cancels_shared_luck():
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 100, size=300)  # the deal's card luck, shared by both agents
    a, b = luck + 3.0 + rng.normal(0, 1, 300), luck + rng.normal(0, 1, 300)
    d = stats.paired_difference(a, b)
    assert d.significant and d.mean.low > 2.5 and d.mean.high < 3.5
    assert not stats.bootstrap_mean(a).low > stats.bootstrap_mean(b).high  # unpaired: swamped by luck
    same = stats.paired_difference(a, a)
    assert same.mean.value == 0 and not same.significant


def test_units_needed():
    assert stats.units_needed(50.0, 5.0) == math.ceil((stats.Z95 * 10) ** 2)
    assert stats.units_needed(float("nan"), 5.0) is None
    with pytest.raises(ValueError):
        stats.units_needed(1.0, 0.0)
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)


def test_summaries(skat_result):
    rows = stats.agent_summary(skat_result, 5.0, resamples=300)
    rule, rand = rows
    assert rule["seat_games"] == rand["seat_games"] == 6 * 9  # 9 seats per deal over its 6 seatings
    assert rule["games"] == rand["games"] == 6 * 6  # games played: both sit at every table
    for r in rows:
        assert r["points_per_list"] == pytest.approx(36 * r["points_per_game"])
        assert r["points_per_game_lo"] <= r["points_per_game"] <= r["points_per_game_hi"]
        assert r["suit_share"] + r["grand_share"] + r["null_share"] == pytest.approx(1.0)
    (pair,) = stats.pairwise_summary(skat_result, 5.0, resamples=300)
    assert pair["diff_points_per_game"] == pytest.approx(rule["points_per_game"] - rand["points_per_game"])
    assert pair["significant"] and pair["lo"] > 0


def test_duplicate_deals_cancel_card_luck_exactly_between_copies():
    """Two copies of the deterministic rule agent: every deal is played in mirrored seatings
    (AAB/BBA, ...), so both copies score exactly the same on every deal."""
    cfg = MatchConfig("skat", ["rule", "rule"], units=12, seed=5)
    (pair,) = stats.pairwise_summary(run_match(cfg, workers=1, progress=False), 5.0, resamples=300)
    assert pair["agent_b"] == "rule#2" and pair["diff_points_per_game"] == 0 and pair["sd_per_unit"] == 0
    assert not pair["significant"]


# ------------------------------------------------------------------------------------ league and CLI
def test_league_ratings_and_changed_checkpoints(tmp_path, skat_result, policy_checkpoint):
    league = League(tmp_path / "league.json")
    assert league.update(skat_result) == 6
    league.save()
    again = League(tmp_path / "league.json")
    ladder = again.ladder("skat")
    assert [r["agent"] for r in ladder] == ["rule", "random"]
    assert ladder[0]["mu"] > 25 > ladder[1]["mu"] and ladder[0]["matches"] == 6
    assert again.opponents("skat", ["rule"]) == (["random"], [])
    ck = tmp_path / "ck.pt"
    ck.write_bytes(Path(policy_checkpoint).read_bytes())
    cfg = MatchConfig("skat", [str(ck), "random"], units=2, seed=0)
    again.update(run_match(cfg, workers=1, progress=False))
    assert again.opponents("skat", ["rule"])[0] == ["random", str(ck)]
    ck.write_bytes(ck.read_bytes() + b"\0")  # a different file at the same path: a new agent
    assert again.opponents("skat", ["rule"])[1] == [str(ck)]
    again.update(run_match(cfg, workers=1, progress=False))
    assert any(k.startswith(f"{ck}@") for k in again.members("skat")) and str(ck) in again.members("skat")
    with pytest.raises(ValueError, match="league"):
        (tmp_path / "bad.json").write_text("{}")
        League(tmp_path / "bad.json")


def test_cli_writes_table_csv_plot_and_league(tmp_path, capsys):
    out = tmp_path / "out"
    league = tmp_path / "league.json"
    argv = ["--game", "skat", "rule", "random", "--deals", "4", "--workers", "1", "--no-progress",
            "--out", str(out), "--resamples", "200", "--league", str(league)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "points/game" in text and "rule - random" in text and "mu-3sigma" in text
    for name in ("summary.csv", "pairwise.csv", "games.csv", "plot.png", "run.json"):
        assert (out / name).stat().st_size > 0
    with open(out / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["agent"] for r in rows] == ["rule", "random"] and "points_per_list_hi" in rows[0]
    assert json.loads((out / "run.json").read_text())["games"] == 24
    # placing an agent: it plays every league member, the ladder gains it
    assert main(["--game", "skat", f"{__name__}:FirstLegal", "--deals", "2", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path / "o2"), "--resamples", "100", "--league", str(league)]) == 0
    members = League(league).members("skat")
    assert set(members) == {"rule", "random", f"{__name__}:FirstLegal"}
    assert members[f"{__name__}:FirstLegal"]["matches"] == 4
    capsys.readouterr()
    assert main(["--league", str(league), "--game", "skat"]) == 0
    assert "FirstLegal" in capsys.readouterr().out


def test_cli_thirtyone(tmp_path, capsys):
    argv = ["--game", "thirtyone", "rule", "random", "--deals", "2", "--workers", "1", "--no-progress",
            "--env", "num_players=3", "--env", "lives=1", "--out", str(tmp_path), "--resamples", "100"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "average place" in text
    assert json.loads((tmp_path / "run.json").read_text())["env_options"] == FAST_31


def stop_at_chunk(monkeypatch, chunk: int) -> None:
    """Ctrl-C while chunk ``chunk`` is being played (in this process: workers=1)."""
    play_chunk = evaluation_match.play_chunk

    def playing(cfg, i, start, stop):
        if i == chunk:
            raise StopNow("SIGINT")
        return play_chunk(cfg, i, start, stop)

    monkeypatch.setattr(evaluation_match, "play_chunk", playing)


def test_a_stopped_match_keeps_the_finished_units(monkeypatch):
    cfg = MatchConfig("skat", ["rule", "random"], units=12, seed=3, chunk_size=4)
    whole = run_match(cfg, workers=1, progress=False)
    stop_at_chunk(monkeypatch, 2)
    with pytest.raises(MatchInterrupted) as stopped:
        run_match(cfg, workers=1, progress=False)
    part = stopped.value.result
    assert stopped.value.reason == "SIGINT" and part.units_played() == list(range(8))
    assert part.records == [r for r in whole.records if r.unit < 8]  # a shorter run of the same seed
    assert part.unit_arrays().shape[0] == 8
    (pair,) = stats.pairwise_summary(part, 5.0, resamples=100)
    assert pair["units"] == 8


def test_the_cli_reports_a_stopped_match_and_exits_130(monkeypatch, tmp_path, capsys):
    stop_at_chunk(monkeypatch, 3)
    out = tmp_path / "ev"
    argv = ["--game", "skat", "rule", "--vs", "random", "--deals", "40", "--seed", "1", "--workers", "1",
            "--chunk-size", "4", "--out", str(out), "--no-progress", "--resamples", "100"]
    assert main(argv) == 130
    printed = capsys.readouterr()
    assert "stopped by SIGINT after 12 of 40 duplicate deals (72 games)" in printed.err
    assert "skat: 12 duplicate deals (stopped by SIGINT: 12 of 40), 72 games" in printed.out
    run = json.loads((out / "run.json").read_text())
    assert run["stopped_by"] == "SIGINT" and run["units_played"] == list(range(12)) and run["games"] == 72
    assert len(list(csv.DictReader((out / "games.csv").open()))) == 72

    stop_at_chunk(monkeypatch, 0)
    assert main(argv) == 130
    assert "after 0 of 40 duplicate deals (0 games); nothing to report" in capsys.readouterr().err
