"""``python -m train.bench decisions``: time per decision of agents on the same positions."""

from __future__ import annotations

import json

import pytest

from train.bench.__main__ import main as bench_main
from train.bench.decisions import report, time_decisions


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_every_agent_is_timed_on_every_decision(game: str) -> None:
    result = time_decisions(["rule", "random"], game, deals=2, seed=1, progress=False)
    assert set(result["seconds"]) == {"rule", "random"}
    total = sum(result["counts"].values())
    assert total > 10
    for secs in result["seconds"].values():
        assert set(secs) <= set(result["counts"]) and all(v >= 0 for v in secs.values())
    lines = report(result).splitlines()
    assert lines[0].startswith(f"{game}: 2 deals driven by rule (seed 1), {total} decisions")
    assert lines[3].split()[0] == "rule" and lines[3].split()[-1] == "1.0000"
    assert lines[4].split()[0] == "random"


def test_command_line(tmp_path, capsys) -> None:
    out = tmp_path / "t.json"
    assert bench_main(["decisions", "checkpoints/skat_ppo.pt", "rule", "--deals", "1", "--no-progress",
                       "--driver", "checkpoints/skat_ppo.pt", "--json", str(out)]) == 0
    assert "x first" in capsys.readouterr().out
    saved = json.loads(out.read_text())
    assert saved["driver"] == "checkpoints/skat_ppo.pt" and "play" in saved["counts"]
    assert bench_main(["decisions", "nowhere.pt", "--deals", "1", "--no-progress"]) == 2
    assert "nowhere.pt" in capsys.readouterr().err
