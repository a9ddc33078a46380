"""ISS game-record import: parsing, replay through the rules core, result checks, files and the CLI."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from envs.skat import actions as A
from envs.skat import iss
from envs.skat.cards import card, parse_cards
from envs.skat.rules import DONE

# A real ISS record (the example): diamonds without 2, lost with 59 points.
REAL = (
    "(;GM[Skat]PC[International Skat Server]CO[]SE[24072]ID[541932]DT[2010-12-06/18:59:24/UTC]P0[zoot]P1[kermit]"
    "P2[foo]R0[]R1[]R2[0.0]MV[w HA.SK.SJ.SA.CQ.S8.C9.H7.H9.DQ.CJ.S9.DJ.S7.D9.SQ.C8.HQ.DK.CA.D8.D7.DT.CT.ST.C7.HK."
    "DA.HT.HJ.H8.CK 1 p 2 18 0 p 2 s w H8.CK 2 D.ST.H8 0 SA 1 S7 2 DA 2 HJ 0 SJ 1 D9 0 DQ 1 DJ 2 D7 1 CJ 2 D8 0 CQ "
    "1 CA 2 C7 0 C9 1 S9 2 DT 0 S8 2 CT 0 H7 1 C8 2 CK 0 H9 1 HQ 2 HK 0 HA 1 SQ 0 SK 1 DK 2 HT ]R[d:2 loss v:-54 "
    "m:-2 bidok p:59 t:4 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)"
)
# Published ISS records (from open-source ISS clients' test suites), covering format variants.
REAL_OVERBID_DECLARE_THEN_DISCARD = (  # "2 D" then "2 D9.DQ"; diamonds with 1 after bidding 36: overbid
    "(;GM[Skat]PC[International Skat Server]CO[]SE[26702]ID[596891]DT[2011-02-02/18:10:12/UTC]P0[xskat]"
    "P1[Knesebec]P2[bernie]R0[]R1[0.0]R2[]MV[w SJ.D8.D7.DA.HT.CT.DT.CK.DJ.S8.H9.HA.HQ.SK.C8.C7.H8.S7.S9.C9.D9.DQ."
    "CQ.HJ.SQ.SA.CJ.H7.CA.ST.DK.HK 1 18 0 y 1 20 0 p 2 22 1 y 2 23 1 y 2 24 1 y 2 27 1 y 2 30 1 y 2 33 1 y 2 35 "
    "1 y 2 36 1 p 2 s w DK.HK 2 D 2 D9.DQ 0 S8 1 S9 2 SA 2 ST 0 DA 1 SK 0 CK 1 C7 2 CQ 0 D7 1 S7 2 DK 2 CA 0 CT "
    "1 C8 2 CJ 0 D8 1 C9 2 SQ 0 DT 1 HA 0 SJ 1 HQ 2 HJ 0 DJ 1 H9 2 HK 0 HT 1 H8 2 H7 ]R[d:2 loss v:-72 m:1 "
    "overbid p:41 t:4 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)"
)
REAL_CLUBS_HAND_SCHWARZ = (
    "(;GM[Skat]PC[Internet Skat Server]CO[]SE[2511]ID[26496]DT[2008-06-22/11:14:12/UTC]P0[Madmax]P1[kermit1]"
    "P2[kermit2]R0[0.0]R1[0.0]R2[0.0]MV[w C7.SA.SJ.CJ.CK.HJ.S7.SK.C9.ST.DQ.C8.DA.SQ.D7.S8.DT.H7.DK.DJ.S9.HA.HT.D9."
    "HK.CT.CA.H8.HQ.H9.CQ.D8 1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 p 2 24 0 y 2 27 0 y 2 30 0 y 2 33 0 y 2 35 0 y "
    "2 36 0 y 2 40 0 y 2 p 0 CHZ 0 CJ 1 C8 2 CT 0 SJ 1 DJ 2 CA 0 HJ 1 H7 2 H8 0 CK 1 S8 2 D9 0 C9 1 DQ 2 H9 0 C7 "
    "1 SQ 2 S9 0 SA 1 D7 2 HQ 0 ST 1 DK 2 HA 0 SK 1 DA 2 HT 0 S7 1 DT 2 HK ]R[d:0 win v:108 m:3 bidok p:120 t:10 "
    "s:1 z:1 p0:0 p1:0 p2:0 l:-1 to:-1] ;)"
)
REAL_GRAND_OUVERT_SHOWN = (
    "(;GM[Skat]PC[Internet Skat Server]SE[1265]ID[727]DT[2007-11-19/23:42:26/UTC]P0[bonsai]P1[mic]P2[Legolaus]"
    "R0[0.0]R1[0.0]R2[0.0]MV[w HJ.HA.DJ.HQ.SA.H7.CA.CJ.HT.H8.H9.D7.DT.C7.ST.CK.C9.SK.S9.CT.C8.SQ.HK.S8.D9.DK.SJ.D8."
    "CQ.DA.DQ.S7 1 p 2 p 0 18 0 GO 0 CJ 0 SC 1 RE 1 H9 2 RE ]R[d:0 win v:192 m:1 bidok p:120 t:10 s:1 z:1 p0:0 "
    "p1:0 p2:0 l:-1 to:-1] ;)"
)
REAL_NULL_OUVERT_RESIGNED = (
    "(;GM[Skat]PC[International Skat Server]CO[]SE[60842]ID[1390253]DT[2012-09-26/17:30:29/UTC]P0[kermit]"
    "P1[bonsai]P2[zoot]R0[]R1[0.0]R2[]MV[w HK.SK.HJ.CA.SA.C9.S8.H7.ST.HT.C7.HA.CJ.DK.HQ.D7.C8.DA.DT.D9.SQ.DQ.H8.S9."
    "CK.S7.SJ.CT.H9.CQ.DJ.D8 1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 24 0 y 1 27 0 y 1 30 0 y 1 33 0 y 1 35 0 p 2 p "
    "1 s w DJ.D8 1 NO.HA.HQ 2 RE 0 RE ]R[d:1 win v:46 m:0 bidok p:14 t:0 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:1] ;)"
)
REAL_LEFT = (
    "(;GM[Skat]PC[Internet Skat Server]SE[146]ID[30]DT[2007-11-04/15:39:49/UTC]P0[bonsai]P1[bar]P2[foo]R0[0.0]"
    "R1[0.0]R2[null]MV[w SJ.D9.CA.DJ.SA.CJ.C8.SQ.HT.H8.ST.S8.DA.D7.S9.D8.C7.H7.DT.S7.CT.HJ.C9.SK.H9.HA.HK.DQ.CK.HQ."
    "DK.CQ 1 18 0 p w LE.2 ]R[d:-1 penalty v:0 m:0 bidok p:0 t:0 s:0 z:0 p0:0 p1:0 p2:1 l:2 to:-1] ;)"
)

REAL_UNKNOWN_MOVE_LEFT = (  # the server wrote forehand's lead as '??', then middlehand left
    "(;GM[Skat]PC[Internet Skat Server]SE[2171]ID[18358]DT[2008-05-25/17:57:24/UTC]P0[kermit2]P1[kermit1]"
    "P2[mic]R0[0.0]R1[null]R2[0.0]MV[w C9.D7.HT.HA.SA.HQ.SJ.S7.C8.HJ.H7.CQ.DQ.D9.H9.S8.H8.CT.HK.SQ.CA.CK.SK.CJ."
    "D8.DT.DK.C7.DJ.S9.ST.DA 1 18 0 p 2 20 1 p 2 s w ST.DA 2 G.DT.ST 0 ?? w LE.1 ]R[d:2 win v:96 m:1 bidok "
    "p:120 t:10 s:1 z:1 p0:0 p1:0 p2:0 l:1 to:-1] ;)"
)
REAL_RECORDS = (REAL, REAL_OVERBID_DECLARE_THEN_DISCARD, REAL_CLUBS_HAND_SCHWARZ, REAL_GRAND_OUVERT_SHOWN,
                REAL_NULL_OUVERT_RESIGNED, REAL_LEFT, REAL_UNKNOWN_MOVE_LEFT)


def rec(rid: int | str, deal: str, moves: str, result: str) -> str:
    return (f"(;GM[Skat]PC[International Skat Server]CO[]SE[1]ID[{rid}]DT[2024-01-01/00:00:00/UTC]P0[ann]P1[bob]"
            f"P2[cy]R0[]R1[]R2[]MV[w {deal} {moves} ]R[{result}] ;)")


# Hand-made deal G: forehand holds all four jacks and clubs A T K Q 9 8; the skat is C7 D7 (no points),
# so grand hand wins every trick: 120 points, 10 tricks, with 4.
G_DEAL = "CJ.SJ.HJ.DJ.CA.CT.CK.CQ.C9.C8.SA.ST.SK.SQ.S9.S8.S7.HA.HT.HK.HQ.H9.H8.H7.DA.DT.DK.DQ.D9.D8.C7.D7"
G_PLAY = ("0 CJ 1 S7 2 D8 0 SJ 1 S8 2 D9 0 HJ 1 S9 2 DQ 0 DJ 1 SQ 2 DK 0 CA 1 SK 2 DT 0 CT 1 ST 2 DA "
          "0 CK 1 SA 2 H7 0 CQ 1 HK 2 H8 0 C9 1 HT 2 H9 0 C8 1 HA 2 HQ")
G_WON = "d:0 win v:{v} m:4 bidok p:120 t:10 s:1 z:1 p0:0 p1:0 p2:0 l:-1 to:-1 r:0"

# Hand-made deal N: middlehand bids 18, picks up D9 DT, discards SA SK (15 points) and plays null;
# rearhand wins the first trick with HA, then middlehand is forced to win ST S7 SQ (13 points): lost.
N_DEAL = "C7.C8.C9.S7.S8.S9.H9.HT.D7.D8.H7.H8.CA.CK.CQ.CJ.CT.SA.SK.SQ.ST.SJ.HJ.HQ.HK.HA.DJ.DQ.DK.DA.D9.DT"
N_AUCTION = "1 18 0 p 2 p 1 s w D9.DT"
N_PLAY = "0 H9 1 H7 2 HA 2 ST 0 S7 1 SQ"
N_LOST = "d:1 loss v:-46 m:0 bidok p:28 t:1 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0"


def raises(line: str, *fragments: str) -> iss.IssError:
    with pytest.raises(iss.IssError) as info:
        iss.replay(line)
    for f in fragments:
        assert f in str(info.value), str(info.value)
    return info.value


# --- parse -----------------------------------------------------------------------------------
def test_parse_real_record():
    r = iss.parse(REAL)
    assert (r.id, r.players, r.date) == ("541932", ("zoot", "kermit", "foo"), "2010-12-06/18:59:24/UTC")
    assert len(r.deal) == 32 and r.deal[0] == card("HA") and r.deal[31] == card("CK")
    assert r.hands[0] == parse_cards("HA SK SJ SA CQ S8 C9 H7 H9 DQ") and r.skat == parse_cards("H8 CK")
    assert r.moves[:6] == (("1", "p"), ("2", "18"), ("0", "p"), ("2", "s"), ("w", "H8.CK"), ("2", "D.ST.H8"))
    assert len(r.moves) == 6 + 30
    assert r.result["d"] == "2" and r.result["v"] == "-54" and "loss" in r.result and "win" not in r.result


@pytest.mark.parametrize(("kind", "mods", "label"), [
    ("G", "HZ", "GHZ"), ("G", "ZSH", "GHZ"), ("G", "SZH", "GHZ"), ("G", "HS", "GHS"), ("G", "SH", "GHS"),
    ("G", "O", "GHO"), ("C", "OHSZ", "CHO"), ("D", "", "D"), ("H", "H", "HH"), ("N", "", "N"), ("N", "O", "NO"),
    ("N", "HO", "NOH"), ("N", "OH", "NOH"), ("N", "H", "NH"),
])
def test_contract_mods_in_any_order(kind, mods, label):
    assert iss.contract_label(kind, mods) == label


@pytest.mark.parametrize(("kind", "mods"), [("C", "S"), ("G", "Z"), ("N", "S"), ("N", "HZ"), ("G", "HH"), ("X", "")])
def test_contract_bad_mods(kind, mods):
    with pytest.raises(ValueError):
        iss.contract_label(kind, mods)


# --- complete games --------------------------------------------------------------------------
def test_real_record_replays():
    g = iss.replay(REAL)
    assert (g.id, g.declarer, g.contract, g.won, g.value) == ("541932", 2, "D", False, -54)
    assert (g.matadors, g.declarer_points, g.declarer_tricks, g.complete, g.reason) == (-2, 59, 4, True, None)
    assert g.bid == 18 and g.state.phase == DONE and g.state.contract.label == "D"
    assert g.state.scores[2] == -54 and g.record.id == "541932"


@pytest.mark.parametrize("line, expected", [
    (REAL_OVERBID_DECLARE_THEN_DISCARD, (2, "D", False, -72, 1, 41, 4)),
    (REAL_CLUBS_HAND_SCHWARZ, (0, "CHZ", True, 108, 3, 120, 10)),
])
def test_more_real_records(line, expected):
    g = iss.replay(line)
    assert (g.declarer, g.contract, g.won, g.value, g.matadors, g.declarer_points, g.declarer_tricks) == expected
    assert g.complete and g.reason is None


@pytest.mark.parametrize(("written", "value"), [
    ("GH", 24 * 8),  # with 4, game, hand, schneider, schwarz
    ("GHS", 24 * 9),  # + schneider announced
    ("GHZ", 24 * 10),  # + schneider and schwarz announced
    ("GZSH", 24 * 10),  # the same, letters in another order
    ("GO", 24 * 11),  # ouvert implies hand and both announcements
    ("GO.CJ.SJ.HJ.DJ.CA.CT.CK.CQ.C9.C8", 24 * 11),  # ouvert with the open hand listed
])
def test_hand_game_with_announcements(written, value):
    g = iss.replay(rec(101, G_DEAL, f"1 p 2 p 0 18 0 {written} {G_PLAY}", G_WON.format(v=value)))
    assert (g.declarer, g.contract, g.won, g.value, g.matadors) == (0, written.split(".")[0], True, value, 4)
    assert (g.declarer_points, g.declarer_tricks, g.complete) == (120, 10, True)
    assert not g.state.skat_taken


@pytest.mark.parametrize("declaration", ["1 N.SA.SK", "1 SA.SK 1 N", "1 N 1 SA.SK"])
def test_null_ended_by_declarers_trick_and_two_move_forms(declaration):
    g = iss.replay(rec(102, N_DEAL, f"{N_AUCTION} {declaration} {N_PLAY}", N_LOST))
    assert (g.declarer, g.contract, g.won, g.value, g.matadors) == (1, "N", False, -46, 0)
    assert (g.declarer_points, g.declarer_tricks, g.complete, g.reason) == (28, 1, True, None)
    assert g.state.trick_count == 2 and g.state.skat == parse_cards("SA SK")


@pytest.mark.parametrize("declaration", ["2 ST.H8 2 D", "2 D 2 ST.H8", "2 D.H8.ST"])
def test_real_record_in_two_move_forms(declaration):
    g = iss.replay(REAL.replace("2 D.ST.H8", declaration))
    assert (g.value, g.declarer_points, g.complete) == (-54, 59, True)


# --- incomplete games ------------------------------------------------------------------------
def test_passed_in():
    g = iss.replay(rec(103, N_DEAL, "1 p 2 p 0 p", "passed"))
    assert (g.declarer, g.contract, g.value, g.won, g.complete, g.reason) == (None, None, 0, False, False, "passed in")
    assert g.state.passed_in


def history_tail(g: iss.IssGame, n: int) -> list[tuple[int, str]]:
    return [(p, A.action_name(a)) for p, a in g.state.history[-n:]]


def test_both_defenders_resign_the_declarer_on_turn_claims():
    # ISS ends the game when both defenders said RE; the declarer (on turn) claims, both defenders accept
    g = iss.replay(rec(104, G_DEAL, "1 p 2 p 0 18 0 GH 0 CJ 1 S7 2 D8 1 RE 2 RE",
                       "d:0 win v:192 m:4 bidok p:120 t:10 s:1 z:1 p0:0 p1:0 p2:0 l:-1 to:-1 r:1"))
    assert (g.declarer, g.contract, g.complete, g.reason, g.kept) == (0, "GH", True, "resigned", None)
    assert (g.value, g.won, g.declarer_points, g.declarer_tricks, g.matadors) == (192, True, 120, 10, 4)
    assert history_tail(g, 3) == [(0, "claim"), (1, "accept"), (2, "accept")]
    assert g.state.phase == DONE and g.state.outcome.declarer_score == 192


def test_declarer_resigns_holding_ten_cards_loses_simply():
    # grand hand with 4 conceded before the first card: lost at 6 x 24, no schneider; no points or tricks counted
    g = iss.replay(rec(108, G_DEAL, "1 p 2 p 0 18 0 GH 0 RE", "d:0 loss v:-288 m:4 bidok p:0 t:0 r:1"))
    assert (g.complete, g.reason, g.kept, g.value, g.won, g.matadors) == (True, "resigned", None, -288, False, 4)
    assert history_tail(g, 1) == [(0, "concede")] and g.state.outcome.declarer_score == -288


def test_declarer_resigns_later_a_defender_approves():
    # after two tricks (4 points): the rest goes to the defenders, the declarer is schneider: 7 x 24 lost
    g = iss.replay(rec(109, G_DEAL, "1 p 2 p 0 18 0 GH 0 CJ 1 S7 2 D8 0 SJ 1 S8 2 D9 0 RE",
                       "d:0 loss v:-336 m:4 bidok p:4 t:2 s:1 z:0 r:1"))
    assert (g.complete, g.reason, g.kept, g.value, g.declarer_points, g.declarer_tricks) == (
        True, "resigned", None, -336, 4, 2)
    assert history_tail(g, 2) == [(0, "concede"), (1, "accept")]


@pytest.mark.parametrize(("moves", "result", "why"), [
    ("0 CJ 0 RE", "d:0 loss v:-288 m:4 p:0 t:0 r:1", "while seat 1 was on turn"),  # the core: concede on turn only
    ("0 CJ 1 S7 2 D8 1 RE", "d:0 win v:192 m:4 p:120 t:10 s:1 z:1 r:1", "only one defender resigned"),
    ("0 CJ 1 S7 2 D8 1 RE 2 RE", "d:0 win v:144 m:4 p:120 t:10 r:1", "the server scores it differently"),
    ("0 CJ 1 RE 2 RE 1 S7", "d:0 win v:192 m:4 p:120 t:10 s:1 z:1 r:1", "the game went on after '2 RE'"),
    ("0 SC", "d:0 win v:192 m:4 p:120 t:10 s:1 z:1", "the defenders did not both resign"),
])
def test_resignations_the_core_cannot_settle_keep_the_servers_result(moves, result, why):
    g = iss.replay(rec(110, G_DEAL, f"1 p 2 p 0 18 0 GH {moves}", result))
    assert not g.complete and why in g.kept and g.value == int(result.split("v:")[1].split()[0])
    assert g.reason in ("resigned", "shown cards") and iss.summarize([g]) == {"incomplete": 1, g.reason: 1, "kept": 1}


def test_timeout_mid_play():
    g = iss.replay(rec(105, G_DEAL, "1 p 2 p 0 18 0 GH 0 CJ 1 S7 w TI.2",
                       "d:0 win v:144 m:4 bidok p:0 t:0 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:2 r:0"))
    assert (g.declarer, g.complete, g.reason, g.value, g.won) == (0, False, "timeout", 144, True)


def test_timeout_in_the_auction_and_reason_from_result_fields():
    g = iss.replay(rec(106, N_DEAL, "1 p w TI.2", "d:-1 penalty v:0 m:0 bidok p:0 t:0 p0:0 p1:0 p2:1 l:-1 to:2 r:0"))
    assert (g.declarer, g.contract, g.complete, g.reason, g.value) == (None, None, False, "timeout", 0)
    # no TI move, but R[] names the seat that timed out
    g = iss.replay(rec(107, N_DEAL, "1 p", "d:-1 penalty v:0 m:0 p:0 t:0 l:-1 to:2 r:0"))
    assert g.reason == "timeout"


@pytest.mark.parametrize(("line", "declarer", "contract", "reason", "value"), [
    (REAL_LEFT, None, None, "left", 0),
    (REAL_UNKNOWN_MOVE_LEFT, 2, "G", "left", 96),
])
def test_real_incomplete_records(line, declarer, contract, reason, value):
    g = iss.replay(line)
    assert (g.declarer, g.contract, g.reason, g.value, g.complete) == (declarer, contract, reason, value, False)


CONCEDE_FILE = Path(__file__).parent / "data" / "iss_concede.txt"  # more real RE / SC records (ISS clients' tests)


@pytest.mark.parametrize(("line", "declarer", "contract", "reason", "result", "tail"), [
    # declarer shows cards after leading CJ; middlehand resigns, plays H9, rearhand resigns: rearhand (on
    # turn) concedes for the defenders, the declarer accepts
    (REAL_GRAND_OUVERT_SHOWN, 0, "GO", "shown cards", (192, True, 120, 10), [(2, "concede"), (0, "accept")]),
    # null ouvert: both defenders resign before the first card; forehand (on turn) concedes
    (REAL_NULL_OUVERT_RESIGNED, 1, "NO", "resigned", (46, True, 14, 0), [(0, "concede"), (1, "accept")]),
    # the declarer shows cards and plays on (HJ, taking the trick); both defenders resign: the declarer's claim
    (1039093, 1, "G", "shown cards", (48, True, 84, 5), [(1, "claim"), (0, "accept"), (2, "accept")]),
    # the declarer on turn shows cards, both defenders resign: the declarer's claim, accepted by both
    (6934288, 2, "G", "shown cards", (72, True, 86, 8), [(2, "claim"), (0, "accept"), (1, "accept")]),
])
def test_real_re_and_sc_records_replay_through_concede_and_claim(line, declarer, contract, reason, result, tail):
    if isinstance(line, int):
        line = next(x for x in CONCEDE_FILE.read_text().splitlines() if f"ID[{line}]" in x)
    g = iss.replay(line)
    assert (g.declarer, g.contract, g.reason, g.complete, g.kept) == (declarer, contract, reason, True, None)
    assert (g.value, g.won, g.declarer_points, g.declarer_tricks) == result
    assert history_tail(g, len(tail)) == tail and g.state.phase == DONE
    assert g.state.outcome.declarer_score == g.value == int(g.record.result["v"])


def test_the_concede_file_replays(capsys):
    assert iss.main([str(CONCEDE_FILE)]) == 0
    out = capsys.readouterr().out
    assert "complete    2" in out and "conceded:     2" in out and "kept        0" in out


def test_unknown_move_stops_the_replay_there():
    g = iss.replay(REAL_UNKNOWN_MOVE_LEFT)
    assert g.state.trick_count == 0 and g.state.trick == [] and g.matadors == 1 and g.bid == 20


def test_a_move_after_an_unknown_move_is_an_error():
    line = REAL_UNKNOWN_MOVE_LEFT.replace("0 ?? w LE.1", "0 ?? 1 CQ")
    raises(line, "18358", "'1 CQ'", "after the unknown move '0 ??'")


def test_an_unknown_move_without_a_reason_is_an_error():
    line = REAL_UNKNOWN_MOVE_LEFT.replace(" w LE.1 ", " ").replace("l:1", "l:-1")
    raises(line, "18358", "stops at the unknown move '0 ??'", "gives no reason")


# --- errors ----------------------------------------------------------------------------------
def test_illegal_card_play_names_record_and_move():
    e = raises(REAL.replace("0 SA 1 S7 2 DA", "0 SA 1 D9 2 DA"), "541932", "move 7", "'1 D9'", "follow suit")
    assert (e.record_id, e.move_index, e.move) == ("541932", 7, "1 D9")
    raises(REAL.replace("0 SA 1 S7", "0 SA 1 HA"), "541932", "'1 HA'", "illegal")  # not in hand


@pytest.mark.parametrize(("line", "fragments"), [
    ("(;GM[Skat]ID[201]R[] ;)", ("record 201", "missing property MV")),
    ("(;GM[Skat]ID[202]MV[w CJ.SJ]R[] ;)", ("record 202", "32")),
    (rec(203, N_DEAL.replace("DT", "??"), "1 p", ""), ("record 203", "'??' is not a card")),
    (rec(204, N_DEAL, "1 p 2", ""), ("record 204", "pairs")),
    (rec(205, N_DEAL, "1 18 0 p 2 p 1 XX", ""), ("record 205", "move 3 '1 XX'", "not an ISS move")),
    (rec(206, N_DEAL, "0 18", ""), ("record 206", "move 0 '0 18'", "seat 1's turn")),
    (rec(207, N_DEAL, "1 19", ""), ("record 207", "19 is not a Skat bid")),
    (rec(208, N_DEAL, "1 18 0 p 2 p 1 s w D9.DA", ""), ("record 208", "'w D9.DA'", "skat shown")),
    (rec(209, N_DEAL, "1 18 0 p 2 p 1 G", ""), ("record 209", "did not pick up")),
    (rec(210, N_DEAL, f"{N_AUCTION} 1 NH", ""), ("record 210", "'1 NH'", "hand game")),
    (rec(211, N_DEAL, "1 18 0 p 2 p 1 CS", ""), ("record 211", "'1 CS'", "hand game")),
    (rec(212, N_DEAL, f"{N_AUCTION} 1 N.SA.SK {N_PLAY} 0 C7", N_LOST), ("record 212", "after the game is over")),
    (rec(213, N_DEAL, f"{N_AUCTION} 1 N.SA.SK 0 H9 1 H7", N_LOST), ("record 213", "gives no reason")),
    (rec(214, N_DEAL, "1 18 0 p 2 p 1 s w D9.DT 1 N.SA.SK 0 SC", ""), ("record 214", "cannot show cards")),
    (rec(215, N_DEAL, "1 18 0 p x p", ""), ("record 215", "'x p'", "not a seat")),
    ("(;GM[Skat]ID[216]MV[w " + N_DEAL + " 1 p]R[v:x] junk ;)", ("record 216", "junk")),
    ("garbage", ("record ?", "not an ISS record")),
])
def test_malformed_records(line, fragments):
    raises(line, *fragments)


def test_null_below_the_bid_is_named_not_bent():
    auction = "1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 24 0 p 2 p 1 s w D9.DT"
    raises(rec(301, N_DEAL, f"{auction} 1 N.SA.SK {N_PLAY}", N_LOST),
           "record 301", "'1 N.SA.SK'", "below the bid 24", "server accepted")


@pytest.mark.parametrize(("old", "new", "field"), [
    ("v:-54", "v:-27", "field v"), ("m:-2", "m:2", "field m"), ("p:59", "p:61", "field p"),
    ("t:4", "t:5", "field t"), ("d:2", "d:1", "field d"), ("loss", "win", "win/loss"),
])
def test_result_disagreement_names_record_and_field(old, new, field):
    result = "R[d:2 loss v:-54 m:-2 bidok p:59 t:4"
    raises(REAL.replace(result, result.replace(old, new)), "541932", field, "server says")


# --- files and CLI ---------------------------------------------------------------------------
@pytest.fixture
def record_file(tmp_path):
    lines = [REAL, "", rec(103, N_DEAL, "1 p 2 p 0 p", "passed"), REAL.replace("1 S7", "1 D9"), REAL_LEFT,
             rec(102, N_DEAL, f"{N_AUCTION} 1 N.SA.SK {N_PLAY}", N_LOST)]
    path = tmp_path / "games.sgf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_iter_records_modes(record_file):
    with pytest.raises(iss.IssError) as info:
        list(iss.iter_records(record_file))
    assert f"{record_file}:4" in str(info.value) and "541932" in str(info.value)
    log: list[iss.IssError] = []
    games = iss.parse_file(record_file, errors="skip", error_log=log)
    assert [g.id for g in games] == ["541932", "103", "30", "102"]
    assert len(log) == 1 and log[0].location.endswith(":4") and log[0].move == "1 D9"
    assert iss.summarize(games) == {"complete": 2, "incomplete": 2, "passed in": 1, "left": 1}
    with pytest.raises(ValueError, match="errors must be"):
        next(iss.iter_records(record_file, errors="ignore"))


def test_gzip_file(tmp_path):
    path = tmp_path / "games.sgf.gz"
    with gzip.open(path, "wt") as f:
        f.write(REAL + "\n")
    assert [g.value for g in iss.iter_records(path)] == [-54]


def test_cli_counts(record_file, capsys):
    assert iss.main([str(record_file)]) == 1  # one record is an error
    out = capsys.readouterr().out
    assert "records     5" in out and "complete    2" in out and "incomplete  2" in out
    assert "passed in:" in out and "left:" in out and "errors      1" in out and "541932" in out


def test_cli_as_module(record_file):
    proc = subprocess.run([sys.executable, "-m", "envs.skat.iss", str(record_file)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stderr  # one record is an error
    assert "complete    2" in proc.stdout


def test_the_shipped_sample_is_the_real_records(capsys):
    assert iss.SAMPLE.read_text().splitlines() == list(REAL_RECORDS)
    assert iss.main([str(iss.SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "records     7" in out and "complete    5" in out and "conceded:     2" in out and "incomplete  2" in out
    assert "kept        0" in out and "errors      0" in out


# --- round trip: random games of the rules core, written as ISS records ----------------------
def to_iss(state, rid: int, form: int) -> str:
    """Write a finished core game as an ISS record (declare/discard in one of the three forms)."""
    from envs.skat import actions as A
    from envs.skat.cards import CARD_NAMES, cards_of

    deal = [c for h in state.dealt for c in cards_of(h)] + cards_of(state.original_skat)
    moves, discards = [], []
    for p, a in state.history:
        if a in A.BID_INDEX.values():
            moves.append(f"{p} {A.BID_VALUES[a - A.BID]}")
        elif a in (A.HOLD, A.PASS):
            moves.append(f"{p} {'y' if a == A.HOLD else 'p'}")
        elif a == A.PICKUP:
            moves.append(f"{p} s w {'.'.join(CARD_NAMES[c] for c in cards_of(state.original_skat))}")
        elif A.DISCARD <= a < A.DECLARE:
            discards.append(CARD_NAMES[a - A.DISCARD])
        elif A.DECLARE <= a < A.KONTRA:
            label, tail = A.CONTRACTS[a - A.DECLARE].label, ".".join(discards)
            if not discards:
                moves.append(f"{p} {label}")
            else:
                moves.append((f"{p} {label}.{tail}", f"{p} {tail} {p} {label}", f"{p} {label} {p} {tail}")[form])
        elif a >= A.PLAY:
            moves.append(f"{p} {CARD_NAMES[a - A.PLAY]}")
    o = state.outcome
    result = "passed" if o is None else (f"d:{state.declarer} {'win' if o.won else 'loss'} v:{o.declarer_score} "
                                         f"m:{o.matadors} p:{o.declarer_points} t:{o.declarer_tricks}")
    return rec(rid, ".".join(CARD_NAMES[c] for c in deal), " ".join(moves), result)


def test_random_core_games_round_trip():
    import random

    from envs.skat.rules import SkatGame

    game, rng, seen = SkatGame(scoring="classic"), random.Random(7), set()
    for seed in range(150):
        state = game.new_initial_state(seed)
        while state.current_player >= 0:
            legal = state.legal_actions()
            # bid low most of the time, so games are not all overbid
            state.apply_action(legal[-1] if rng.random() < 0.5 and state.phase == 0 else rng.choice(legal))
        g = iss.replay(to_iss(state, seed, seed % 3))
        if state.passed_in:
            assert g.reason == "passed in"
            continue
        seen.add(state.contract.label)
        assert g.complete and g.declarer == state.declarer and g.value == state.outcome.declarer_score
        assert g.state.history == state.history
    assert len(seen) >= 10  # many contract types and announcement levels went through the parser


def test_cli_missing_file(tmp_path, capsys):
    assert iss.main([str(tmp_path / "nope.sgf")]) == 2
    assert "cannot read" in capsys.readouterr().err
