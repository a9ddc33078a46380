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
END_OF_DEAL = "q quit: "  # the prompt after a deal ("[Enter] next deal, a: could ..., q quit: ")


class Person(io.TextIOBase):
    """stdin that answers like a person reading the screen: the script first, then the first listed
    move; at the end of a deal the ``after`` answers (e.g. ``a``: the question), then next or quit."""

    def __init__(self, out: io.StringIO, script: list[str] | None = None, deals: int = 1,
                 after: list[str] | None = None) -> None:
        self.out, self.script, self.deals, self.after = out, list(script or []), deals, list(after or [])

    def readline(self, size: int = -1) -> str:
        if self.out.getvalue().endswith(END_OF_DEAL):
            if self.after:
                return self.after.pop(0) + "\n"
            self.deals -= 1
            return "\n" if self.deals > 0 else "q\n"
        return (self.script.pop(0) if self.script else "1") + "\n"


def run_terminal(argv: list[str], script: list[str] | None = None, deals: int = 1, after: list[str] | None = None):
    args = game_parser().parse_args(argv)
    term = build_terminal(args)
    out = io.StringIO()
    term.inp, term.out = Person(out, script, deals, after), out
    assert term.run() == 0
    return term, out.getvalue()


def replay_scores(term) -> list[float]:
    """The env's result for the same deal and the same moves (a fresh env, not the table's)."""
    t, deal = term.table, term.table.deal
    if t.game == "skat":
        env = skat_env(**t.options)
        start = deal.start
        env.reset(options={"deal": {k: start[k] for k in ("hands", "skat", "dummy") if k in start},
                           "dealer": start["dealer"]})
        for seat, action in deal.moves:
            assert env.agent_selection == f"player_{seat}"
            env.step(action)
        return env.seat_scores()
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
    assert "Discard pile" in text and "Stock (" in text and "Round 1 ends" in text
    assert f"{term.table.names[res['winner']] if res['winner'] else 'You'}" in res["summary"]
    returns = replay_scores(term)
    assert returns.index(max(returns)) == res["winner"]
    assert "won the game" in text and "games won" in text


def test_a_four_player_skat_deal_by_scripted_input():
    """--variant four_player: four seats, the dealer sits out (the person too, one deal in four)."""
    term, text = run_terminal(["skat", "--variant", "four_player", "--seed", "3", "--vs", "rule", "random",
                               "--color", "never"], deals=2)
    t = term.table
    assert t.seats == 4 and t.deals_played == 2 and "Traceback" not in text
    assert "dealer, sitting out" in text and "sits this deal out" in text
    assert replay_scores(term) == t.deal.result["scores"]
    printed = re.findall(r"Scores: You ([+-]\d+), rule ([+-]\d+), random 2 ([+-]\d+), random 3 ([+-]\d+)", text)
    assert [[int(x) for x in p] for p in printed] == [d.result["scores"] for d in t.finished]


def test_a_strohmann_deal_and_the_solver_question():
    """--variant strohmann: two players and the straw man; the person declares (bids, picks up), the
    dummy lies open; after the deal 'a' asks the solver whether the declarer could have won."""
    term, text = run_terminal(["skat", "--variant", "strohmann", "--seed", "2", "--color", "never"],
                              after=["a"])
    t = term.table
    res = t.deal.result
    assert t.seats == 2 and "Traceback" not in text
    assert "Dummy" in text and "rearhand, Strohmann" in text and "open: " in text
    assert res["kind"] == "game" and res["declarer"] == 0 and res["question"]
    assert "a: could the declarer have won?" in text
    answer = term.adapter.analyse(t, t.deal)
    assert answer["text"] in text and answer["text"].startswith(("Yes:", "No:"))
    if answer["answer"]:
        assert "Trick 10:" in text.split(answer["text"])[1]
    assert replay_scores(term) == res["scores"]


def test_a_banking_game_by_scripted_input():
    """Banking: the widow and the pot; the showdowns record tokens."""
    term, text = run_terminal(["thirtyone", "--variant", "banking", "--players", "3", "--seed", "4", "--vs",
                               "rule", "--color", "never"])
    res = term.table.deal.result
    assert "Traceback" not in text and "Widow: [#1] [#2] [#3]" in text and "Pot: " in text
    assert re.search(r"[+-]\d+ tokens?", text) and "tokens won" in text
    returns = replay_scores(term)
    assert res["winner"] == max(range(3), key=lambda s: (term.table.env.state.tokens[s], returns[s]))


def test_a_stop_the_bus_game_by_scripted_input():
    """Stop the Bus: the pool of three face-up cards, brag hands; picking a card by its name."""
    term, text = run_terminal(["thirtyone", "--variant", "stop_the_bus", "--players", "2", "--lives", "1", "--seed",
                               "6", "--vs", "rule", "--color", "never"], script=["2", "p2", "s1"])
    res = term.table.deal.result
    assert "Traceback" not in text and "Pool: " in text and "pick " in text
    assert re.search(r"(high card|pair of|flush|run|prial)", text)
    returns = replay_scores(term)
    assert returns.index(max(returns)) == res["winner"]


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
    aliases = {"pass": "p"}
    assert parse_move("cj", moves, moves).action == 134
    assert parse_move("♣J", moves, moves).action == 134
    assert parse_move("c10", moves, moves).action == 133
    assert parse_move("play CT", moves, moves).action == 133
    assert parse_move("2", moves, moves).action == 133
    assert parse_move("pass", moves, moves, aliases).action == 64
    assert parse_move("4", moves, moves) is None and parse_move("HA", moves, moves) is None
    bids = [Move(0, "bid 18", "18"), Move(1, "bid 20", "20"), Move(64, "pass", "p")]
    assert parse_move("20", bids, bids[:1] + bids[2:]).action == 1  # a bid value, not a menu number
    assert parse_move("2", bids, bids[:1] + bids[2:]).action == 64
    slots = [Move(260, "play the unseen card in slot 3", "#3", "#3"), Move(57, "pick HK from the pool", "p1", "HK")]
    assert parse_move("#3", slots, slots).action == 260 and parse_move("hk", slots, slots).action == 57
    assert parse_move("pick HK", slots, slots).action == 57 and parse_move("P1", slots, slots).action == 57


@pytest.mark.parametrize("argv, fragment", [
    (["skat", "--vs", "nope.pt"], "nope.pt"),
    (["skat", "--vs", "rule", "rule", "rule"], "2 other seats"),
    (["thirtyone", "--set", "bogus=1"], "bogus"),
    (["thirtyone", "--players", "12"], "num_players"),
    (["skat", "--lives", "2"], "--lives is not an option of Skat"),
    (["skat", "--variant", "bogus"], "valid variants: isko, four_player"),
    (["skat", "--set", "players=5"], "'players' must be 2, 3 or 4"),
    (["skat", "--variant", "four_player", "--vs", "pimc"], "pimc plays"),
    (["skat", "--variant", "four_player", "--vs", "checkpoints/skat_ppo.pt"], "observation size"),
    (["thirtyone", "--variant", "switch", "--players", "9", "--set", "deck=32"], "cards"),
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


CTRL_C_IN_GENERATED_CODE = '''
import runpy
import play.terminal

def ask(self, prompt):  # the Ctrl-C lands in code that exec() runs, as in a search agent's first numba compile
    exec("import os, signal, time\\nos.kill(os.getpid(), signal.SIGINT)\\ntime.sleep(30)")

play.terminal.Terminal.ask = ask
runpy.run_module("play", run_name="__main__")
'''


def test_ctrl_c_inside_generated_code_still_ends_the_session_with_exit_0(tmp_path):
    """CPython ends ``python -m`` by SIGINT (-2) after a bare KeyboardInterrupt passed through exec(), even
    a caught one; the table raises a subclass, so the session ends as after any Ctrl-C."""
    (tmp_path / "ctrl_c_in_exec.py").write_text(CTRL_C_IN_GENERATED_CODE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "ctrl_c_in_exec", "thirtyone", "--vs", "random", "--seed", "1",
                           "--color", "never"], cwd=tmp_path, env=env, timeout=60, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Session over." in proc.stdout
