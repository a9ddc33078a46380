"""Every README example is exercised, cheaply: its Python blocks and each ``python ...`` command of its bash blocks.

The README cannot drift from the code: this test reads the code blocks from README.md itself (and from
the docs pages that hold the README's long measurement diaries, ``DOCUMENTS``). Each
example becomes one test case, and what cannot run here shows up as *skipped, with its reason*:

* ``python`` blocks run as scripts (a block whose first line is ``# NAME.py`` is also saved under that
  name, so commands can use it); a block preceded by ``<!-- readme-test: skip (reason) -->`` is skipped.
* a ``python ...`` command (lines joined at a trailing backslash) runs fully, so it must take seconds
  (``python -m train ... --check`` runs in the test process, as the checks below);
* a command marked ``[long]`` in its comment (training, a big evaluation, a benchmark) is *checked*
  instead: ``python -m train ...`` with ``--check`` (config, overrides, checkpoint, env and agents built,
  nothing trained or written), any other module or script with ``--help``; the files it reads must exist
  (or be written by an earlier README command: ``--out FILE``, made here by a small run of that command);
* skipped with a reason: Ray and other optional extras when not installed, servers (``--web``,
  ``tensorboard``), ``make`` (CI runs ``make test`` itself), ``<placeholders>``.

A check runs in the test process (``runpy``, as ``python -m`` would; the global random states, torch's
thread count, the working directory and ``sys.argv`` are restored afterwards), so it costs what the
CLI does before its first step, not an interpreter start. Commands run in a scratch folder that links
``checkpoints``, ``configs``, ``docs``, ``envs`` and ``examples``, so what they write (runs/,
checkpoints/<run>/, outputs) stays out of the repository.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import random
import re
import runpy
import shlex
import subprocess
import sys
import tokenize
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
# README.md and the pages its sections moved to: their commands are checked as the README's are
DOCUMENTS = ("README.md", "docs/skat_expert_iteration.md")
SKIP_MARK = re.compile(r"<!--\s*readme-test:\s*skip\b([^>]*)-->\s*$")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
LINKED = ("checkpoints", "configs", "docs", "envs", "examples")
OUTPUT_FLAGS = ("--out", "--league", "--json")  # what follows them is written, not read
READS = re.compile(r"^[\w./-]+\.(pt|yaml|yml|py|txt)(#\w+)?$|^[\w./-]+\.py:\w+$")  # files a command reads
# Small versions of a [long] command that writes a file a later command reads (argparse: the last value wins).
SMALL = {"train.pretrain": ["--episodes", "20", "--set", "pretrain.epochs=1", "num_workers=1"]}
RAY = "needs Ray, an optional extra (pip install -e '.[ray]')"
CLASSIC = "needs PettingZoo's classic games, an optional extra (pip install 'pettingzoo[classic]')"
NEEDS = (("runtime=ray", "ray", RAY), ("train.ray_bench", "ray", RAY),
         ("rllib", "ray", RAY), ("pettingzoo.classic", "pygame", CLASSIC), ("pettingzoo.classic", "rlcard", CLASSIC))
NOT_HERE = (("make ", "make targets install the project; CI runs `make test` itself"),
            ("tensorboard", "a server (TensorBoard)"), ("--web", "a server (the web table)"),
            ("RAY_ADDRESS", "needs a Ray cluster"), ("pip ", "installs packages"))


class Block(NamedTuple):
    lang: str
    body: str
    line: str  # where it is: "README line 12", "docs/skat_expert_iteration.md line 40"
    skip: str | None  # the reason of a skip marker, if any


class Case(NamedTuple):
    id: str
    kind: str  # "block", "run", "check", "skip"
    text: str
    line: str  # where it is, as Block.line
    reason: str = ""


def _blocks() -> list[Block]:
    out = []
    for document in DOCUMENTS:
        text = (ROOT / document).read_text()
        name = "README" if document == "README.md" else document
        for m in FENCE.finditer(text):
            before = text[: m.start()].rstrip("\n").splitlines()
            mark = SKIP_MARK.search(before[-1]) if before else None
            out.append(Block(m.group(1), m.group(2), f"{name} line {text[: m.start()].count(chr(10)) + 1}",
                             mark.group(1).strip() if mark else None))
    return out


def _case_id(line: str, text: str) -> str:
    """``L12: python -m ...`` for the README (the ids stay what they were), ``docs/x.md L40: ...`` for a page."""
    where, _, number = line.rpartition(" line ")
    return f"{'' if where == 'README' else where + ' '}L{number}: {text}"


def _command_case(text: str, comment: str, line: str) -> Case:
    name = _case_id(line, text[:70])
    for needle, module, reason in NEEDS:
        if needle in text and importlib.util.find_spec(module) is None:
            return Case(name, "skip", text, line, reason)
    for needle, reason in NOT_HERE:
        if text.startswith(needle) or needle in text:
            return Case(name, "skip", text, line, reason)
    if re.search(r"<[^>]+>", text):
        return Case(name, "skip", text, line, "has a <placeholder> to fill in")
    if not text.startswith("python "):
        return Case(name, "skip", text, line, "not a python command")
    return Case(name, "check" if "[long]" in comment else "run", text, line)


def _cases() -> list[Case]:
    cases = []
    for block in _blocks():
        if block.lang == "python":
            name = _case_id(block.line, "python block")
            cases.append(Case(name, "skip", block.body, block.line, block.skip) if block.skip is not None
                         else Case(name, "block", block.body, block.line))
        elif block.lang == "bash":
            for command in block.body.replace("\\\n", " ").splitlines():
                text, _, comment = command.partition("  #")
                text = text.strip()
                if not text or text.startswith("#"):
                    continue
                case = _command_case(text, comment, block.line)
                cases.append(case._replace(kind="skip", reason=block.skip) if block.skip is not None else case)
    return cases


CASES = _cases()


def _named_file(body: str) -> str | None:
    """``my_agent.py`` for a block that starts with the comment ``# my_agent.py``."""
    m = re.match(r"#\s*([\w-]+\.py)\s*\n", body)
    return m.group(1) if m else None


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("readme")
    for name in LINKED:
        (root / name).symlink_to(ROOT / name)
    for block in _blocks():
        if block.lang == "python" and _named_file(block.body):
            (root / _named_file(block.body)).write_text(block.body)
    return root


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _module(args: list[str]) -> tuple[list[str], list[str]]:
    """``python -m train.bench solver --positions 9`` -> (``[-m, train.bench, solver]``, the rest): the program
    (with a benchmark's subcommand) and its arguments."""
    if args[1] == "-m":
        head = 3 + (args[2] == "train.bench" and len(args) > 3)
        return args[1:head], args[head:]
    return args[1:2], args[2:]


def _outputs() -> dict[str, str]:
    """File -> the README command that writes it (``--out FILE``), for commands that read it later."""
    made = {}
    for case in CASES:
        if case.kind == "block":
            continue
        args = shlex.split(case.text)
        for flag, value in zip(args, args[1:], strict=False):
            if flag in OUTPUT_FLAGS:
                made.setdefault(value, case.text)
    return made


def _make_input(path: str, scratch: Path) -> None:
    """Write ``path`` by a small run of the README command that writes it."""
    command = _outputs().get(path)
    assert command, f"{path} is read but neither in the repository nor written by a README command"
    program, rest = _module(shlex.split(command))
    small = SMALL.get(program[-1])
    assert small is not None, f"no small version of {command!r} to make {path}: add one to SMALL"
    code, output = _check(program, [*rest, *small], scratch)
    assert code == 0 and (scratch / path).exists(), f"making {path}: {output[-2000:]}"


def _check_inputs(args: list[str], scratch: Path, make: bool) -> None:
    """Every file the command reads exists, or an earlier README command writes it (and with ``make``,
    a small run of that command makes it, for a check that reads it)."""
    for flag, arg in zip(["", *args], args, strict=False):
        if flag in OUTPUT_FLAGS or not READS.match(arg.split("=")[-1]):
            continue
        path = re.split(r"[#:]", arg.split("=")[-1])[0]
        if (scratch / path).exists():
            continue
        assert path in _outputs(), f"{path} is read but neither in the repository nor written by a README command"
        if make:
            _make_input(path, scratch)


@contextlib.contextmanager
def _isolated(cwd: Path) -> Iterator[None]:
    """Run a CLI in this process and put back what it may change globally."""
    saved = (random.getstate(), np.random.get_state(), torch.get_rng_state(), torch.get_num_threads(),
             os.getcwd(), sys.argv[:], sys.path[:])
    os.chdir(cwd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # runpy: the module was imported before
            warnings.simplefilter("ignore", DeprecationWarning)  # third-party envs (PettingZoo classic) nag on import
            yield
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
        torch.set_rng_state(saved[2])
        torch.set_num_threads(saved[3])
        os.chdir(saved[4])
        sys.argv[:], sys.path[:] = saved[5], saved[6]


def _check(program: list[str], rest: list[str], cwd: Path) -> tuple[int, str]:
    """``python PROGRAM REST`` in this process: (exit code, stdout and stderr)."""
    out = io.StringIO()
    with _isolated(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            if program[0] == "-m":
                sys.argv = [program[1], *program[2:], *rest]
                runpy.run_module(program[1], run_name="__main__", alter_sys=True)
            else:
                sys.argv = [program[0], *rest]
                runpy.run_path(program[0], run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
    return code, out.getvalue()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_readme_example(case: Case, scratch: Path) -> None:
    if case.kind == "skip":
        pytest.skip(f"{case.line}: {case.reason}")
    if case.kind == "block":
        script = scratch / (_named_file(case.text) or f"block_{re.sub(r'[^0-9A-Za-z]+', '_', case.line)}.py")
        script.write_text(case.text)
        result = _run([sys.executable, str(script)], scratch, 120)
        assert result.returncode == 0, f"{case.line}:\n{case.text}\n--- stderr ---\n{result.stderr[-3000:]}"
        return
    args = shlex.split(case.text)
    args[0] = sys.executable
    program, rest = _module(args)
    training = program == ["-m", "train"]
    if case.kind == "check" or (training and "--check" in rest):  # a README command with --check is one too
        _check_inputs(args, scratch, make=training)
        if case.kind == "check":
            rest = [*rest, "--check"] if training else ["--help"]
        code, output = _check(program, rest, scratch)
        assert code == 0, f"{case.id} (checked: {shlex.join([*program, *rest])})\n--- output ---\n{output[-3000:]}"
        return
    _check_inputs(args, scratch, make=False)
    result = _run(args, scratch, 120)
    assert result.returncode == 0, f"{case.id}\n--- stderr ---\n{result.stderr[-3000:]}"


def _ellipsis_line(body: str) -> int | None:
    """The line of a ``...`` in the code itself (not in a comment or string), if any."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(body).readline):
            if token.type == tokenize.OP and token.string == "...":
                return token.start[0]
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def test_every_block_is_run_or_skipped_for_a_reason() -> None:
    """A python or bash block is either run above or carries a skip marker with its reason; a python
    block that runs has no ``...`` standing in for code."""
    for block in _blocks():
        if block.skip is not None:
            assert block.skip.startswith("(") and block.skip.endswith(")") and len(block.skip) > 4, \
                f"{block.line}: a skip marker needs its reason in parentheses"
        elif block.lang == "python" and _ellipsis_line(block.body):
            pytest.fail(f"{block.line} (+{_ellipsis_line(block.body)}): a python block with '...' "
                        "cannot run; complete it or mark it")
    assert all(c.reason for c in CASES if c.kind == "skip"), "every skipped example names its reason"


def test_long_commands_are_marked_and_checked() -> None:
    """Training and benchmark commands carry ``[long]`` (run fully they take minutes), so the cases above
    check them instead of running them."""
    for case in CASES:
        if case.kind == "run":
            program, rest = _module(shlex.split(case.text))
            training = program == ["-m", "train"] and "--check" not in rest
            assert not training and "train.bench" not in program, \
                f"{case.line}: {case.text!r} takes minutes: mark it [long] in its comment"


def test_train_check_writes_nothing_and_names_a_bad_key(tmp_path: Path, capsys) -> None:
    """``python -m train --check`` (documented in the README's Training section): exit 0 with a summary and
    no file written; a bad key is the run's one-line error with exit code 2."""
    from train.__main__ import main

    outputs = [f"runs_dir={tmp_path}/runs", f"checkpoint_dir={tmp_path}/checkpoints", "run_name=probe"]
    with _isolated(tmp_path):
        assert main(["--set", *outputs, "--check"]) == 0
        assert "total_timesteps=" in capsys.readouterr().out and not list(tmp_path.iterdir())
        assert main(["--set", "num_envz=4", "--check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "num_envz" in err and len(err.strip().splitlines()) == 1
