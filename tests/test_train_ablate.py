"""The decision-kind ablation: hand one kind of decision at a time to the teacher."""

from __future__ import annotations

import pytest

from envs import action_kinds
from envs.games import describe
from train.ablate import ablate, main


def test_the_teacher_against_itself_is_even_in_every_group():
    results = ablate("rule", "skat", deals=12, seed=4, progress=False)
    assert list(results) == ["(none)", *describe("skat").ablation_groups]
    assert all(r.advantage == 0.0 and r.episodes == 12 for r in results.values())


def test_handing_every_decision_over_plays_the_teacher():
    every = sorted(set(action_kinds("skat")))
    auction = ["bid", "hold", "pass"]
    results = ablate("random", "skat", groups={"all": every, "auction": auction}, deals=12, seed=4, progress=False)
    assert results["(none)"].advantage < -50  # random bids and plays wildly
    assert results["all"].advantage == 0.0
    assert results["(none)"].advantage < results["auction"].advantage - 50  # no more wild bids


def test_thirtyone_groups_cover_every_kind():
    for game in ("thirtyone", "skat"):
        assert set(action_kinds(game)) == {k for kinds in describe(game).ablation_groups.values() for k in kinds}
    results = ablate("random", "thirtyone", deals=3, seed=1, env_options={"num_players": 3, "lives": 1},
                     progress=False)
    assert set(results) == {"(none)", *describe("thirtyone").ablation_groups}


def test_cli(capsys):
    assert main(["rule", "--game", "skat", "--deals", "4", "--group", "cards=play", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "cards" in out and "+0.00" in out
    assert main(["rule", "--game", "skat", "--deals", "4", "--group", "x=nonsense", "--no-progress"]) == 2
    assert "unknown decision kinds ['nonsense']" in capsys.readouterr().err
    assert main(["rule", "--game", "skat", "--deals", "3", "--workers", "2", "--no-progress"]) == 0
    assert "kontra" in capsys.readouterr().out
    assert main(["nowhere.pt", "--game", "skat", "--deals", "3", "--no-progress"]) == 2
    assert "nowhere.pt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["rule", "--deals", "4"])  # no checkpoint, no --game
