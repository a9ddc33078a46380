"""python -m train.curves: learning curves from TensorBoard run folders, as a user runs it."""

from __future__ import annotations

from pathlib import Path

from torch.utils.tensorboard import SummaryWriter

from train.curves import main, read_scalars


def _run(folder: Path, slope: float) -> Path:
    writer = SummaryWriter(str(folder))
    for step in range(0, 5000, 1000):
        writer.add_scalar("eval/mean_score_vs_rule", slope * step, step)
        writer.add_scalar("eval/mean_score_ci_vs_rule", 1.0, step)
        writer.add_scalar("charts/episodes", step / 10, step)
    writer.close()
    return folder


def test_plots_two_runs_with_their_bands(tmp_path: Path, capsys) -> None:
    a, b = _run(tmp_path / "a", 0.01), _run(tmp_path / "b", -0.01)
    assert [p[0] for p in read_scalars(a)["eval/mean_score_vs_rule"]] == [0, 1000, 2000, 3000, 4000]
    out = tmp_path / "curves.png"
    assert main([str(a), str(b), "--out", str(out)]) == 0
    assert out.stat().st_size > 10_000
    text = capsys.readouterr().out
    assert "a eval/mean_score_vs_rule: last 40 at step 4,000, best 40 at step 4,000" in text
    assert "b eval/mean_score_vs_rule: last -40 at step 4,000, best -0 at step 0" in text


def test_errors_name_the_problem(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 2
    assert "no TensorBoard scalars" in capsys.readouterr().err
    a = _run(tmp_path / "a", 1.0)
    assert main([str(a), "--metric", "eval/nope"]) == 2
    assert "no run logged eval/nope; logged: charts/episodes, eval/mean_score_ci_vs_rule" in capsys.readouterr().err
