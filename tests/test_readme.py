"""Every README example runs: its Python blocks, and each command that takes under a minute.

The README cannot drift from the code: this test reads the code blocks from README.md itself.
``python`` blocks run as scripts; in ``bash`` blocks each ``python ...`` command runs (lines joined at
a trailing backslash). What cannot run here is skipped by a visible rule, never silently:

* a command marked ``[long]`` in its comment (a training run, a 3,000-deal evaluation: minutes to hours);
* ``make ...`` (CI runs ``make test`` itself), servers (``--web``, ``tensorboard``), Ray (an optional
  extra), commands with ``<placeholders>``;
* a block preceded by ``<!-- readme-test: skip (reason) -->``.

Commands run in a scratch folder that links ``checkpoints``, ``configs``, ``docs`` and ``envs/skat/data``,
so what they write (runs/, checkpoints/<run>/, outputs) stays out of the repository.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SKIP_MARK = re.compile(r"<!--\s*readme-test:\s*skip\b[^>]*-->\s*$")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
NOT_HERE = ("make ", "tensorboard", "ray ", "RAY_ADDRESS", "--web", "runtime=ray", "rllib", "test-ray", "pip ")


def _blocks() -> list[tuple[str, str, int, bool]]:
    """(language, body, line number, skipped by a marker) of every fenced block."""
    out = []
    for m in FENCE.finditer(README):
        before = README[: m.start()].rstrip("\n").splitlines()
        skipped = bool(before) and bool(SKIP_MARK.search(before[-1]))
        out.append((m.group(1), m.group(2), README[: m.start()].count("\n") + 1, skipped))
    return out


def _commands() -> list[tuple[str, str]]:
    """(id, command) of every bash command the test runs; the others are listed by ``_skipped``."""
    runs = []
    for lang, body, line, skipped in _blocks():
        if lang != "bash" or skipped:
            continue
        for command in body.replace("\\\n", " ").splitlines():
            text = command.split("  #")[0].strip()
            if not text or text.startswith("#"):
                continue
            if "[long]" in command or "<" in text or any(text.startswith(p) or p in text for p in NOT_HERE):
                continue
            if text.startswith("python "):
                runs.append((f"L{line}: {text[:70]}", text))
    return runs


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("readme")
    for name in ("checkpoints", "configs", "docs", "examples"):
        (root / name).symlink_to(ROOT / name)
    return root


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("index", [i for i, b in enumerate(_blocks()) if b[0] == "python" and not b[3]])
def test_python_block_runs(index: int, scratch: Path) -> None:
    _, body, line, _ = _blocks()[index]
    script = scratch / f"block_{line}.py"
    script.write_text(body)
    result = _run([sys.executable, str(script)], scratch, 120)
    assert result.returncode == 0, f"README line {line}:\n{body}\n--- stderr ---\n{result.stderr[-3000:]}"


@pytest.mark.parametrize("name, command", _commands(), ids=[c[0] for c in _commands()])
def test_command_runs(name: str, command: str, scratch: Path) -> None:
    args = shlex.split(command)
    args[0] = sys.executable
    result = _run(args, scratch, 240)
    assert result.returncode == 0, f"{name}\n--- stderr ---\n{result.stderr[-3000:]}"


def test_every_block_is_run_or_skipped_for_a_reason() -> None:
    """A python or bash block is either run above or carries a skip marker with its reason."""
    for lang, body, line, skipped in _blocks():
        if skipped:
            marker = README[: README.index(body)].rstrip("\n").splitlines()[-1]
            assert "(" in marker, f"README line {line}: a skip marker needs its reason in parentheses"
        if lang == "python" and "..." in body and not skipped:
            pytest.fail(f"README line {line}: a python block with '...' cannot run; complete it or mark it")
