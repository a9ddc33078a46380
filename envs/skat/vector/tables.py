"""Lookup tables of the batched Skat engine, built once from the reference modules.

Nothing here restates a rule: every table is computed by calling ``envs.skat.cards``,
``envs.skat.actions``, ``envs.skat.rules`` (legal masks of constructed states) and
``envs.skat.scoring`` (``settle``, ``seat_scores``), then converted to tensors. The engine only
indexes them. :func:`tables` caches one set per device.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import torch

from envs.skat import actions as A
from envs.skat import observation as O
from envs.skat.cards import (
    EFF_SUIT,
    FOLLOW,
    GRAND,
    NULL,
    NUM_CARDS,
    POINTS,
    TOTAL_POINTS,
    TRUMP_SEQUENCES,
    trick_winner,
)
from envs.skat.deal import DEAL_PATTERN
from envs.skat.observation import NUM_SCALARS
from envs.skat.rules import AUCTION, DECLARE, DISCARD, DONE, KONTRA, PLAY, RE, SKAT, SkatGame
from envs.skat.scoring import SCORING_SYSTEMS, Outcome, matadors, seat_scores, settle

NB = A.NUM_BIDS  # bid indices 0..NB-1; the engine stores "bid index + 1" (0 = no bid yet)

# --- keys of the action-mask table (one row per key; cards are added by the engine) ----------
K_LISTENER, K_STAGE3, K_BIDDER = 0, 1, 2  # K_BIDDER + (bid index + 1)
K_SKAT = K_BIDDER + NB + 1
K_CARDS = K_SKAT + 1  # discard and play: no fixed action, only the cards added later
K_DECLARE = K_CARDS + 1  # + skat_taken * (NB + 1) + bid index + 1
K_KONTRA = K_DECLARE + 2 * (NB + 1)
K_RE = K_KONTRA + 1
K_DONE = K_RE + 1  # a finished deal: every action accepted (and ignored), as pgx does
NUM_MASK_KEYS = K_DONE + 1

# --- scalar offsets (from the start of the scalars) of the observation layout's fields --------
def _scalar(offset: int) -> int:
    return offset - O.SCALAR_OFFSET


S_POSITION, S_PHASE, S_BID, S_MAX_CALL, S_BIDDER, S_LISTENER, S_DECLARER = (
    _scalar(x) for x in (O.POSITION, O.PHASE, O.BID, O.MAX_CALL, O.BIDDER, O.LISTENER, O.DECLARER))
S_GAME_TYPE, S_RAMSCH, S_HAND_GAME, S_KONTRA, S_RE = (
    _scalar(x) for x in (O.GAME_TYPE, O.RAMSCH, O.HAND_GAME, O.KONTRA, O.RE))
S_CARD_POINTS, S_TRICK_COUNT, S_LEADER, S_RAMSCH_ON, S_KONTRA_ON, S_TOURNAMENT, S_VOIDS = (
    _scalar(x) for x in (O.CARD_POINTS, O.TRICK_COUNT, O.LEADER, O.RAMSCH_ON, O.KONTRA_ON, O.TOURNAMENT, O.VOIDS))
S_CONTRACT_END = S_RE + 1  # game type .. re: one block written from the contract and the doubling
# the blocks the engine writes in one piece must be contiguous in the layout
assert O.PASSED == O.MAX_CALL + 3 and O.CALLED == O.PASSED + 3 and O.TRICKS_WON == O.CARD_POINTS + 3
assert (O.RAMSCH, O.HAND_GAME, O.SCHNEIDER, O.SCHWARZ, O.OUVERT, O.KONTRA) == tuple(
    O.GAME_TYPE + 6 + i for i in range(6)) and O.TRICK_COUNT == O.TRICKS_WON + 3

# --- the flat feature table of the per-position scalars (index = base + value) --------------
F_CALL, F_PASSED, F_CALLED, F_POINTS, F_TRICKS = range(5)
MAX_POINTS = TOTAL_POINTS  # ramsch counts the skat too: never more than all 120 points


def _legal_row(state) -> np.ndarray:
    m = state.legal_mask()
    return np.array([m >> a & 1 for a in range(A.NUM_ACTIONS)], dtype=bool)


def mask_rows() -> np.ndarray:
    """[NUM_MASK_KEYS, NUM_ACTIONS] bool: the legal actions of each key, from the rules core's
    ``legal_mask`` on a state put in that situation."""
    base = SkatGame().new_initial_state(seed=0)
    rows = np.zeros((NUM_MASK_KEYS, A.NUM_ACTIONS), dtype=bool)

    def at(**fields) -> np.ndarray:
        s = base.clone()
        for k, v in fields.items():
            setattr(s, k, v)
        return _legal_row(s)

    rows[K_LISTENER] = at(phase=AUCTION, stage=1, bidder=1, listener=0, current_player=0, bid_idx=0, bid=18)
    rows[K_STAGE3] = at(phase=AUCTION, stage=3, bidder=2, listener=0, current_player=0, bid_idx=-1, bid=0)
    for b in range(-1, NB):
        bid = A.BID_VALUES[b] if b >= 0 else 0
        rows[K_BIDDER + b + 1] = at(phase=AUCTION, stage=1, bidder=1, listener=0, current_player=1, bid_idx=b,
                                    bid=bid)
        for taken in (0, 1):
            rows[K_DECLARE + taken * (NB + 1) + b + 1] = at(phase=DECLARE, skat_taken=bool(taken), bid_idx=b,
                                                             bid=bid, declarer=0, current_player=0)
    rows[K_SKAT] = at(phase=SKAT, declarer=0, current_player=0)
    rows[K_KONTRA] = at(phase=KONTRA, current_player=1)
    rows[K_RE] = at(phase=RE, current_player=0)
    rows[K_DONE] = True
    for k in (K_CARDS,):
        rows[k] = False
    return rows


def _f32(x: float) -> float:
    """A Python float rounded as the observation's float32 assignment rounds it."""
    return float(np.float32(x))


@dataclass
class Tables:
    """The engine's tables on one device (int64 unless noted)."""

    device: torch.device
    ar3: torch.Tensor  # [3] positions 0 1 2
    mod3: torch.Tensor  # [8] i % 3
    bit: torch.Tensor  # [33] 1 << card, 0 at index 32
    pow32: torch.Tensor  # [32] 1 << i
    action_bit: torch.Tensor  # [A] card bit of a play or discard action, else 0
    action_card: torch.Tensor  # [A] card of a play or discard action, else 0
    eff: torch.Tensor  # [6*32] effective suit of a card in a game type
    follow: torch.Tensor  # [6*5] cards of an effective suit in a game type
    winner_points: torch.Tensor  # [6*32**3] winner offset (0..2) + 4 * card points of the trick
    points_byte: torch.Tensor  # [4*256] card points of the cards in byte k of a card set
    deal_order: torch.Tensor  # [32] deck slots sorted by pile (forehand, middlehand, rearhand, skat)
    bid_value: torch.Tensor  # [NB+1] bid value of bid index + 1 (0: no bid)
    contract_game: torch.Tensor  # [29] game type of a contract
    contract_ouvert: torch.Tensor  # [29] bool
    low_pos: torch.Tensor  # [8] lowest position in a position bit set (kontra queue)
    mask_rows: torch.Tensor  # [NUM_MASK_KEYS, A] bool
    # observation
    aux_rows: torch.Tensor  # float32 [2592, 71] scalars: the one-hots of position, phase, seats
    contract_rows: torch.Tensor  # float32 [31*3, 13] scalars 30-42: contract, ramsch, kontra, re
    feature_base: torch.Tensor  # [5] offset of each per-position feature in feature_value
    feature_value: torch.Tensor  # float32: per-position feature values (bid/264, flags, points/120, tricks/10)
    trick_count_value: torch.Tensor  # float32 [11]
    void_rows: torch.Tensor  # float32 [32**3, 15] scalars 56-70 from the voids of the relative seats
    seat_of: torch.Tensor  # [3*3] seat of position pos when dealer deals: (dealer + 1 + pos) % 3
    pos_of_seat: torch.Tensor  # [3, 3] position of seat s when dealer deals
    # scoring
    seq: torch.Tensor  # [6, 11] trump sequence (matadors) per game type, padded with card 0 (null: none)
    pow11: torch.Tensor  # [11] 1 << j
    matadors: torch.Tensor  # [6*2048] |matadors| of game type g and which of its sequence's cards are held
    point_trick_class: torch.Tensor  # [121*11] (declarer's points, tricks) -> points class * 3 + tricks class
    rel_seat: torch.Tensor  # [3*3, 3] (dealer, declarer position) -> per seat its position relative to the declarer
    action_points: torch.Tensor  # [A] card points of the card of a play or discard action, else 0
    value: torch.Tensor  # [29*12*4*3] game value without the bid (contract, |matadors|, points, tricks class)
    made: torch.Tensor  # [29*12*4*3] bool: the declarer made the contract (bid aside)
    overbid_value: torch.Tensor  # [29*(NB+1)] value charged when overbid
    declarer_sign: torch.Tensor  # [2] declarer score per value point: lost, won
    score_a: dict  # system -> [2(won), 3(relative to declarer)] factor of the declarer score
    score_b: dict  # system -> [2, 3] constant


# the declarer's card points and tricks in the classes the settle tables are built on: points 0-30,
# 31-60, 61-89, 90-120 (schneider, lost, won, schneider), tricks 0, 1-9, 10 (schwarz)
POINTS_CLASS = [(p >= 31) + (p >= 61) + (p >= 90) for p in range(TOTAL_POINTS + 1)]
TRICKS_CLASS = [(t >= 1) + (t >= 10) for t in range(11)]


def _settle_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Game value and made flag by (contract, |matadors|, points class, tricks class) with no bid,
    and the overbid value by (contract, bid index + 1), all from ``settle``."""
    points_rep = (20, 45, 75, 100)  # one of each POINTS_CLASS
    tricks_rep = (0, 5, 10)  # one of each TRICKS_CLASS
    n = len(A.CONTRACTS)
    value = np.zeros((n, 12, 4, 3), dtype=np.int64)
    made = np.zeros((n, 12, 4, 3), dtype=bool)
    over = np.zeros((n, NB + 1), dtype=np.int64)
    for ci, c in enumerate(A.CONTRACTS):
        seq = TRUMP_SEQUENCES[c.game]
        for m in range(1, 12):
            if c.game != NULL and m > len(seq):
                continue
            cards = sum(1 << x for x in seq[:m]) if c.game != NULL else 0  # "with" m matadors
            for pc, pts in enumerate(points_rep):
                for tc, tr in enumerate(tricks_rep):
                    o = settle(c, 0, cards, pts, tr)
                    value[ci, m, pc, tc], made[ci, m, pc, tc] = o.value, o.won
        cards = 1 << seq[0] if seq else 0  # the lowest level: with 1
        lowest = settle(c, 0, cards, 45, 5).value
        for b in range(NB):  # the value charged when the game is worth less than the bid
            over[ci, b + 1] = settle(c, A.BID_VALUES[b], cards, 45, 5).value if lowest < A.BID_VALUES[b] else 0
    return value, made, over


def _seat_score_tables() -> tuple[list[int], dict, dict]:
    """``seat_scores`` is affine in the declarer score: scores = a * declarer_score + b. Derive a and
    b per system and result (checked on another value and doubling), declarer at position 0."""
    def outcome(won: bool, value: int, doubling: int = 1) -> Outcome:
        return Outcome(won, value, 1, 1, False, False, False, 61, 5, doubling)

    sign = [outcome(False, 1).declarer_score, outcome(True, 1).declarer_score]
    a_tab, b_tab = {}, {}
    for system in SCORING_SYSTEMS:
        a_rows, b_rows = [], []
        for won in (False, True):
            b = seat_scores(outcome(won, 0), 0, system)
            one = seat_scores(outcome(won, 1), 0, system)
            a = [one[i] - b[i] for i in range(3)]
            a = [x // sign[won] for x in a]  # per point of declarer score
            check = seat_scores(outcome(won, 7, 2), 0, system)
            x = outcome(won, 7, 2).declarer_score
            if check != [a[i] * x + b[i] for i in range(3)]:
                raise AssertionError(f"seat_scores is not affine in the declarer score ({system})")
            a_rows.append(a)
            b_rows.append(b)
        a_tab[system], b_tab[system] = a_rows, b_rows
    return sign, a_tab, b_tab


@cache
def _host_tables() -> dict:
    t: dict = {}
    t["bit"] = [1 << c for c in range(NUM_CARDS)] + [0]
    t["pow32"] = [1 << i for i in range(32)]
    ab, ac = [0] * A.NUM_ACTIONS, [0] * A.NUM_ACTIONS
    for c in range(NUM_CARDS):
        ab[A.PLAY + c] = ab[A.DISCARD + c] = 1 << c
        ac[A.PLAY + c] = ac[A.DISCARD + c] = c
    t["action_bit"], t["action_card"] = ab, ac
    t["eff"] = [EFF_SUIT[g][c] for g in range(6) for c in range(NUM_CARDS)]
    t["follow"] = [FOLLOW[g][s] for g in range(6) for s in range(5)]
    wp = np.zeros((6, 32, 32, 32), dtype=np.int64)
    pts = np.array(POINTS)
    trick_points = pts[:, None, None] + pts[None, :, None] + pts[None, None, :]
    for g in range(6):
        for c0 in range(32):
            for c1 in range(32):
                wp[g, c0, c1] = [trick_winner(g, (c0, c1, c2)) for c2 in range(32)]
    t["winner_points"] = (wp + 4 * trick_points[None]).reshape(-1)
    t["points_byte"] = [sum(POINTS[8 * k + i] for i in range(8) if v >> i & 1) for k in range(4) for v in range(256)]
    t["deal_order"] = sorted(range(NUM_CARDS), key=lambda i: (DEAL_PATTERN[i], i))
    t["bid_value"] = [0, *A.BID_VALUES]
    t["contract_game"] = [c.game for c in A.CONTRACTS]
    t["contract_ouvert"] = [c.ouvert for c in A.CONTRACTS]
    t["low_pos"] = [(m & -m).bit_length() - 1 if m else 0 for m in range(8)]
    t["mask_rows"] = mask_rows()
    t.update(_observation_tables())
    seq = np.zeros((6, 11), dtype=np.int64)
    mat = np.ones((6, 2048), dtype=np.int64)  # null (no trumps): the settle tables' row "with 1"
    for g in range(5):
        s = TRUMP_SEQUENCES[g]
        seq[g, : len(s)] = s
        for key in range(2048):  # bit j: the j-th card of the sequence is held (bits past its end ignored)
            mat[g, key] = abs(matadors(g, sum(1 << c for j, c in enumerate(s) if key >> j & 1)))
    t["seq"], t["matadors"], t["pow11"] = seq, mat.reshape(-1), [1 << j for j in range(11)]
    t["point_trick_class"] = [POINTS_CLASS[pts] * 3 + TRICKS_CLASS[tr] for pts in range(TOTAL_POINTS + 1)
                              for tr in range(11)]
    t["rel_seat"] = [[((s - d - 1) % 3 - q) % 3 for s in range(3)] for d in range(3) for q in range(3)]
    t["action_points"] = [POINTS[ac[a]] if ab[a] else 0 for a in range(A.NUM_ACTIONS)]
    value, made, over = _settle_tables()
    t["value"], t["made"], t["overbid_value"] = value.reshape(-1), made.reshape(-1), over.reshape(-1)
    t["declarer_sign"], t["score_a"], t["score_b"] = _seat_score_tables()
    return t


def _observation_tables() -> dict:
    """Where each observation entry comes from; the float values are rounded as observe() rounds them."""
    from envs.skat.actions import MAX_BID

    t: dict = {}
    rel = [[(q - p) % 3 for q in range(3)] for p in range(3)]
    aux = []
    for p in range(3):
        for phase in range(8):
            for bidder in range(3):
                for listener in range(3):
                    for declarer in range(-1, 3):
                        for leader in range(3):
                            row = np.zeros(NUM_SCALARS, dtype=np.float32)
                            row[[S_POSITION + p, S_PHASE + phase]] = 1.0
                            if phase == AUCTION:
                                row[[S_BIDDER + rel[p][bidder], S_LISTENER + rel[p][listener]]] = 1.0
                            if declarer >= 0:
                                row[S_DECLARER + rel[p][declarer]] = 1.0
                            if phase == PLAY:
                                row[S_LEADER + rel[p][leader]] = 1.0
                            aux.append(row)
    t["aux_rows"] = np.array(aux)
    cidx = []
    for ck in range(len(A.CONTRACTS) + 2):  # contract + 1; 0 none; the last: ramsch being played
        for level in range(3):  # 0 none, 1 kontra, 2 re
            row = np.zeros(NUM_SCALARS, dtype=np.float32)
            if 1 <= ck <= len(A.CONTRACTS):
                c = A.CONTRACTS[ck - 1]
                row[S_GAME_TYPE + c.game] = 1.0
                row[S_HAND_GAME:S_HAND_GAME + 4] = (c.hand, c.schneider, c.schwarz, c.ouvert)
            elif ck == len(A.CONTRACTS) + 1:
                row[S_RAMSCH] = 1.0
            row[[S_KONTRA, S_RE]] = (level >= 1, level >= 2)
            cidx.append(row[S_GAME_TYPE:S_CONTRACT_END])
    t["contract_rows"] = np.array(cidx)
    inv_bid = 1.0 / MAX_BID
    features = [
        [_f32(v * inv_bid) for v in (0, *A.BID_VALUES)],  # highest call
        [0.0, 1.0],  # passed
        [0.0, 1.0],  # called
        [_f32(v / 120.0) for v in range(MAX_POINTS + 1)],  # card points
        [_f32(v / 10.0) for v in range(11)],  # tricks
    ]
    base, flat = [], []
    for f in features:
        base.append(len(flat))
        flat += f
    t["feature_base"], t["feature_value"] = base, flat
    t["trick_count_value"] = [_f32(v / 10.0) for v in range(11)]
    keys = np.arange(32**3)
    t["void_rows"] = ((keys[:, None] >> np.arange(15)) & 1).astype(np.float32)  # key: 5 bits per relative seat
    t["seat_of"] = [(d + 1 + pos) % 3 for d in range(3) for pos in range(3)]
    t["pos_of_seat"] = [[(s - d - 1) % 3 for s in range(3)] for d in range(3)]
    return t


@cache
def tables(device: str | torch.device = "cpu") -> Tables:
    """The tables on ``device`` (built once per process and device)."""
    device = torch.device(device)
    h = _host_tables()

    def i64(x) -> torch.Tensor:
        return torch.as_tensor(np.asarray(x, dtype=np.int64), device=device)

    def f32(x) -> torch.Tensor:
        return torch.as_tensor(np.asarray(x, dtype=np.float32), device=device)

    ints = ("bit", "pow32", "action_bit", "action_card", "eff", "follow", "winner_points", "points_byte",
            "deal_order", "bid_value", "contract_game", "low_pos",
            "feature_base", "seat_of", "pos_of_seat", "seq", "matadors", "point_trick_class", "pow11", "rel_seat",
            "action_points", "value", "overbid_value", "declarer_sign")
    return Tables(
        device=device,
        ar3=i64([0, 1, 2]),
        mod3=i64([i % 3 for i in range(8)]),
        contract_ouvert=torch.as_tensor(np.asarray(h["contract_ouvert"], dtype=bool), device=device),
        mask_rows=torch.as_tensor(h["mask_rows"], device=device),
        feature_value=f32(h["feature_value"]),
        trick_count_value=f32(h["trick_count_value"]),
        void_rows=f32(h["void_rows"]),
        aux_rows=f32(h["aux_rows"]),
        contract_rows=f32(h["contract_rows"]),
        made=torch.as_tensor(np.asarray(h["made"], dtype=bool), device=device),
        score_a={s: i64(v) for s, v in h["score_a"].items()},
        score_b={s: i64(v) for s, v in h["score_b"].items()},
        **{k: i64(h[k]) for k in ints},
    )


assert NUM_SCALARS == 71 and GRAND == 4 and DONE == 7 and DISCARD == 2  # the layout the tables encode
