"""The terminal table, driven as a person drives it: text in, text out (no real terminal)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from envs.skat.env import raw_env as skat_env
from envs.thirtyone.env import raw_env as thirtyone_env
from play.__main__ import build_terminal, game_parser, main
from play.core import Move
from play.terminal import parse_move

ROOT = Path(__file__).resolve().parent.parent
NEXT_DEAL = "[Enter] next deal, q quit: "


class Person(io.TextIOBase):
    """stdin that answers like a person reading the screen: the script first, then the first listed
    move; at the end of a deal it quits."""

    def __init__(self, out: io.StringIO, script: list[str] | None = None, deals: int = 1) -> None:
        self.out, self.script, self.deals = out, list(script or []), deals

    def readline(self, size: int = -1) -> str:
        if self.out.getvalue().endswith(NEXT_DEAL):
            self.deals -= 1
            return "\n" if self.deals > 0 else "q\n"
        return (self.script.pop(0) if self.script else "1") + "\n"


def run_terminal(argv: list[str], script: list[str] | None = None, deals: int = 1):
    args = game_parser().parse_args(argv)
    term = build_terminal(args)
    out = io.StringIO()
    term.inp, term.out = Person(out, script, deals), out
    assert term.run() == 0
    return term, out.getvalue()


def replay_scores(term) -> list[float]:
    """The env's result for the same seed and the same moves (a fresh env, not the table's)."""
    t, deal = term.table, term.table.deal
    if t.game == "skat":
        env = skat_env(**t.options)
        env.reset(seed=deal.seed)
        for seat, action in deal.moves:
            assert env.agent_selection == f"player_{seat}"
            env.step(action)
        return [env.state.scores[env.position_of(a)] for a in env.possible_agents]
    env = thirtyone_env(**t.options, episode="game")
    env.reset(seed=deal.seed)
    for seat, action in deal.moves:
        while env.terminations[env.agent_selection]:
            env.step(None)
        assert env.agent_selection == f"player_{seat}"
        env.step(action)
    return env.game_state.returns()


def test_a_whole_skat_deal_by_scripted_input():
    term, text = run_terminal(["skat", "--seed", "5", "--vs", "rule", "random", "--color", "never"])
    deal = term.table.deal
    assert deal.result is not None and "Traceback" not in text
    assert "Your hand:" in text and "Legal: 1)" in text and "Auction:" in text
    assert "Trick 1:" in text and "=== " in text and "Session (1 deals)" in text
    scores = replay_scores(term)
    printed = re.search(r"Scores: You ([+-]\d+), rule ([+-]\d+), random ([+-]\d+)", text)
    assert printed and [int(x) for x in printed.groups()] == scores
    if deal.result["kind"] == "game":  # the value worked out step by step
        assert "base value" in text or "null value" in text
        assert "declarer score" in text
    assert "♣" not in text and "\x1b[" not in text  # plain letters when not a terminal


def test_skat_two_deals_and_the_session_table():
    term, text = run_terminal(["skat", "--seed", "11", "--vs", "rule"], deals=2)
    assert term.table.deals_played == 2
    rows = term.table.score["rows"]
    assert "Session (2 deals)" in text and sum(r[0] for r in rows) == sum(
        sum(d.result["scores"]) for d in term.table.finished)


def test_a_whole_thirtyone_game_by_scripted_input():
    term, text = run_terminal(["thirtyone", "--players", "3", "--lives", "1", "--seed", "2", "--vs", "rule",
                               "random", "--color", "never"])
    res = term.table.deal.result
    assert res is not None and "Traceback" not in text
    assert "Discard:" in text and "stock:" in text and "Round 1 ends" in text
    assert f"{term.table.names[res['winner']] if res['winner'] else 'You'}" in res["summary"]
    returns = replay_scores(term)
    assert returns.index(max(returns)) == res["winner"]
    assert "won the game" in text and "games won" in text


def test_bad_input_is_answered_with_the_legal_moves():
    script = ["xyz", "99", "CJ", "play", "?", "1"]
    term, text = run_terminal(["skat", "--seed", "5", "--vs", "rule"], script=script)
    assert "Traceback" not in text
    assert text.count("is not a legal move here. Legal: 1)") >= 4  # xyz, 99, CJ in the auction, play
    assert "Type the number of a move" in text  # '?' prints the help


def test_thirtyone_bad_input_and_hint(monkeypatch):
    script = ["knock now", "!", "D", "ZZ", "1"]
    term, text = run_terminal(["thirtyone", "--players", "2", "--lives", "1", "--seed", "4", "--vs", "rule",
                               "--hint", "checkpoints/thirtyone_ppo.pt"], script=script)
    assert "'knock now' is not a legal move here" in text and "'ZZ' is not a legal move here" in text
    assert re.search(r"thirtyone_ppo would play: .*\d+%", text)


def test_hint_with_the_network_probabilities():
    from agents.networks import masked_log_probs
    from play.hints import hint

    term, _ = run_terminal(["skat", "--seed", "3", "--vs", "rule", "--hint", "checkpoints/skat_ppo.pt"],
                           script=["q"])
    t = term.table
    obs = t.env.observe("player_0")
    ranked = hint(term.hint_agent, obs, t.legal_moves(), top=99)
    import torch

    with torch.no_grad():
        logits = term.hint_agent.network.policy_logits(torch.from_numpy(obs["observation"][None]))
    probs = masked_log_probs(logits,
                             torch.from_numpy(obs["action_mask"][None].astype(bool))).exp()[0]
    assert {m.action for m, _ in ranked} == {m.action for m in t.legal_moves()}
    for m, p in ranked:
        assert p == pytest.approx(float(probs[m.action]), abs=1e-6)
    assert sum(p for _, p in ranked) == pytest.approx(1.0, abs=1e-4)


def test_colour_and_symbols_when_asked():
    term, text = run_terminal(["skat", "--seed", "5", "--vs", "rule", "--color", "always"], script=["q"])
    assert "\x1b[" in text and any(s in text for s in "♣♠♥♦")


def test_parse_move_forms():
    moves = [Move(130 + 4, "play CJ", "CJ", "CJ"), Move(130 + 3, "play CT", "CT", "CT"), Move(64, "pass", "p")]
    assert parse_move("cj", moves, moves).action == 134
    assert parse_move("♣J", moves, moves).action == 134
    assert parse_move("c10", moves, moves).action == 133
    assert parse_move("play CT", moves, moves).action == 133
    assert parse_move("2", moves, moves).action == 133
    assert parse_move("pass", moves, moves).action == 64
    assert parse_move("4", moves, moves) is None and parse_move("HA", moves, moves) is None
    bids = [Move(0, "bid 18", "18"), Move(1, "bid 20", "20"), Move(64, "pass", "p")]
    assert parse_move("20", bids, bids[:1] + bids[2:], auction=True).action == 1  # a bid value, not a menu number
    assert parse_move("2", bids, bids[:1] + bids[2:], auction=True).action == 64


@pytest.mark.parametrize("argv, fragment", [
    (["skat", "--vs", "nope.pt"], "nope.pt"),
    (["skat", "--vs", "rule", "rule", "rule"], "2 other seats"),
    (["thirtyone", "--set", "bogus=1"], "bogus"),
    (["thirtyone", "--players", "12"], "--players"),
])
def test_cli_errors_are_one_line_exit_2(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_python_m_play_as_a_process():
    """The real command, stdin piped: a person who bids, then quits at once."""
    proc = subprocess.run([sys.executable, "-m", "play", "skat", "--seed", "7", "--vs", "random"],
                          input="hello\nq\n", capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert "'hello' is not a legal move here" in proc.stdout and "Session over." in proc.stdout
    assert "Traceback" not in proc.stderr
