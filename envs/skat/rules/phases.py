"""The phases of an extended table (every table but the ISkO one): legal actions and transitions.

``SkatState`` hands every decision of an extended table here, except plain card play (its fast
path). The ISkO phases (auction, skat, discard, declare, Kontra/Re, play) are the same rules with
the table's bid list, pack and hand sizes; the others are Supra/Resupra, a pending concession or
claim (``answer``), Schieberamsch (``schieben``), the Tournee's turned skat card (``turn``) and
announcement (``announce``), and the Revolution's exchange (``exchange``). Positions that act
automatically (a dummy passes in the auction, Oma plays the top card of its stack) are advanced
by ``play.auto`` after every action; card play itself, concessions and claims are ``envs.skat.rules.play``.
"""

from __future__ import annotations

from envs.skat import actions as A
from envs.skat.cards import GAME_LETTERS, GRAND, JACK, JACK_MASK, NULL, cards_of
from envs.skat.deal import FOREHAND
from envs.skat.pack import RAMSCH_LOW
from envs.skat.rules.extras import GUCKSER_MODE, PASST_MODE, SOLO_MODE, TOURNEE_MODE
from envs.skat.rules.phase_ids import (
    ANNOUNCE,
    ANSWER,
    AUCTION,
    DECLARE,
    DISCARD,
    DONE,
    EXCHANGE,
    KONTRA,
    PLAY,
    RE,
    RESUPRA,
    SCHIEBEN,
    SKAT,
    SUPRA,
    TURN,
)
from envs.skat.rules.phase_ids import State as SkatState
from envs.skat.rules.play import answer as _answer
from envs.skat.rules.play import auto as _auto
from envs.skat.rules.play import play as _play
from envs.skat.rules.play import play_legal as _play_legal
from envs.skat.scoring import null_value

_LABEL = A.ALL_CONTRACT_BY_LABEL
_TOURNEE_NULL = {"NH": A.TOURNEE_NULL, "NOH": A.TOURNEE_NULL_OUVERT}


def _contract_action(label: str) -> int:
    return A.declare_action(_LABEL[label])


# --- who may do what ------------------------------------------------------------------------------
def legal_actions(s: SkatState) -> list[int]:
    phase, p, t, x = s.phase, s.current_player, s.table, s.x
    if phase == PLAY:
        return _play_legal(s)
    if phase == AUCTION:
        if p == s.listener and s.stage < 3:
            return [A.HOLD, A.PASS]
        if s.stage == 3:
            return [t.bid_actions[0], A.PASS]
        return [*t.bid_actions[s.bid_idx + 1:], A.PASS]
    if phase == SKAT:
        return [A.TOURNEE, A.GUCKSER, A.HAND] if t.tournee else [A.PICKUP, A.HAND]
    if phase == DISCARD:
        if t.idiot:
            return [A.DISCARD_SLOT + k for k, c in enumerate(x.slots[p]) if c >= 0]
        cards = s.hands[p]
        if x.schiebe_pos >= 0:
            cards &= ~JACK_MASK  # Schieberamsch: jacks may not be passed on
        return [A.discard_action(c) for c in cards_of(cards)]
    if phase == DECLARE:
        return _declare_legal(s)
    if phase == KONTRA:
        return [A.KONTRA, A.PASS]
    if phase == RE:
        return [A.RE, A.PASS]
    if phase == SUPRA:
        return [A.SUPRA, A.PASS]
    if phase == RESUPRA:
        return [A.RESUPRA, A.PASS]
    if phase == ANSWER:
        return [A.ACCEPT, A.REJECT]
    if phase == SCHIEBEN:
        return [A.PICKUP, A.PASS]
    if phase == TURN:
        c = x.turned[-1]
        out = [_contract_action(GAME_LETTERS[c >> 3])]
        if c & 7 == JACK:
            out.append(_contract_action("G"))
        if len(x.turned) == 1:
            out.append(A.PASST)
        return out
    if phase == ANNOUNCE:
        letter = GAME_LETTERS[x.trump_game]
        return [_contract_action(letter + a) for a in ("", "S", "Z")]
    if phase == EXCHANGE:
        gives = [A.GIVE + c for c in cards_of(s.hands[p])]
        if x.to_give:
            return gives
        return (gives if x.given < s.options.revolution_exchange else []) + [A.PASS]
    return []


def _declare_legal(s: SkatState) -> list[int]:
    t, x, bid = s.table, s.x, s.bid
    if t.officers:
        return [_contract_action(g) for g in GAME_LETTERS]
    if t.tournee:  # Solo: the skat stays on the table
        labels = [g + "H" + a for g in "CSHDG" for a in ("", "S", "Z")] + ["GHO"]
        labels += [n for n, v in _TOURNEE_NULL.items() if v >= bid]
        return [_contract_action(label) for label in labels]
    out = []
    for i, c in enumerate(A.CONTRACTS):
        if c.hand != (not s.skat_taken) or (c.game == NULL and null_value(c) < bid):
            continue
        if x.fixed_game >= 0 and c.game != x.fixed_game:
            continue
        out.append(A.DECLARE + i)
    if s.options.revolution and not s.skat_taken and bid <= A.REVOLUTION_VALUE and x.fixed_game < 0:
        out.append(A.declare_action(A.REVOLUTION_CONTRACT))
    return out


# --- transitions -------------------------------------------------------------------------------------
def apply(s: SkatState, action: int) -> None:
    if s.phase == DONE or action not in legal_actions(s):
        s._illegal(action, _why(s, action))
    p, phase, x = s.current_player, s.phase, s.x
    if phase == PLAY:
        _play(s, p, action)
    else:
        s.history.append((p, action))
        if phase == AUCTION:
            s._auction(p, action)
        elif phase == SKAT:
            _skat(s, p, action)
        elif phase == DISCARD:
            _discard(s, p, action)
        elif phase in (DECLARE, ANNOUNCE):
            s.contract_index = A.contract_of_action(action)
            s.contract = A.ALL_CONTRACTS[s.contract_index]
            if s.contract.revolution:
                _start_exchange(s)
            else:
                _start_kontra(s)
        elif phase == KONTRA:
            if action == A.KONTRA:
                s.doubling, x.kontra_by = 2, p
                s.phase, s.current_player = RE, s.declarer
            else:
                s._next_kontra()
        elif phase in (RE, SUPRA, RESUPRA):
            _doubling(s, phase, action)
        elif phase == ANSWER:
            _answer(s, action)
        elif phase == SCHIEBEN:
            if action == A.PICKUP:
                _take_skat(s, p)
                s.phase = DISCARD
            else:
                x.pushes += 1
                _next_schieben(s)
        elif phase == TURN:
            _turn(s, p, action)
        elif phase == EXCHANGE:
            _exchange(s, p, action)
    _auto(s)


def _why(s: SkatState, action: int) -> str:
    if s.phase == PLAY and s.trick:
        c = A.card_of_play(action)
        if c >= 0 and s.hands[s.current_player] >> c & 1:
            return "must follow suit"
    return ""


def end_auction(s: SkatState, declarer: int) -> None:
    if declarer < 0:
        if s.options.ramsch:
            start_ramsch(s)
        else:
            s.phase, s.current_player = DONE, -1  # passed in: nobody scores
        return
    s.declarer = declarer
    s.phase = SKAT
    s.current_player = declarer


def begin(s: SkatState) -> None:
    """The first decision of a new deal on a table without an auction."""
    t = s.table
    if t.auction:
        return
    if s.options.ramsch_only:
        start_ramsch(s)
        return
    s.declarer = FOREHAND
    s.current_player = FOREHAND
    s.phase = DECLARE if t.officers else SKAT


def start_ramsch(s: SkatState) -> None:
    if s.options.schieberamsch:
        s.x.schiebe_pos = FOREHAND
        s.phase, s.current_player = SCHIEBEN, FOREHAND
    else:
        s._start_play()


def start_play(s: SkatState) -> None:
    """Called by ``SkatState._start_play`` once the phase, leader and game type are set."""
    if s.contract is None and s.options.ramsch_tens != "high":
        s.play_game = RAMSCH_LOW
        if s.options.ramsch_tens == "one":
            s.points_of = s.table.pack.points_ten_one


def _take_skat(s: SkatState, p: int) -> None:
    x = s.x
    s.skat_taken = True
    x.skat_in[p] = s.skat
    x.skat_out[p] = 0
    if s.table.idiot:  # the skat joins the hand in slots 10 and 11, unseen by its holder
        for k, c in enumerate(c for c in x.skat_order if s.skat >> c & 1):
            x.slots[p][s.table.hand_size + k] = c
    s.hands[p] |= s.skat
    s.skat = 0


def _skat(s: SkatState, p: int, action: int) -> None:
    x = s.x
    if action == A.PICKUP:
        _take_skat(s, p)
        s.phase = DISCARD
    elif action == A.HAND:
        if s.table.tournee:
            x.mode = SOLO_MODE
        s.phase = DECLARE
    elif action == A.TOURNEE:
        x.mode = TOURNEE_MODE
        x.turned = [x.skat_order[0]]
        s.phase = TURN
    else:  # Grand Guckser: both skat cards, grand
        x.mode, x.trump_game = GUCKSER_MODE, GRAND
        _take_skat(s, p)
        s.phase = DISCARD


def _discard(s: SkatState, p: int, action: int) -> None:
    x, t = s.x, s.table
    if t.idiot:
        k = action - A.DISCARD_SLOT
        c, x.slots[p][k] = x.slots[p][k], -1
    else:
        c = A.card_of_discard(action)
    bit = 1 << c
    s.hands[p] ^= bit
    s.skat |= bit
    x.skat_out[p] |= bit
    if s.skat.bit_count() < t.skat_size:
        return
    if x.schiebe_pos >= 0:
        x.schiebe_taken |= 1 << p
        _next_schieben(s)
    elif x.mode in (TOURNEE_MODE, PASST_MODE, GUCKSER_MODE):
        s.phase = ANNOUNCE
    else:
        s.phase = DECLARE


def _next_schieben(s: SkatState) -> None:
    x = s.x
    x.schiebe_pos += 1
    if x.schiebe_pos > 2:
        x.schiebe_pos = -1
        s._start_play()
    else:
        s.phase, s.current_player = SCHIEBEN, x.schiebe_pos


def _turn(s: SkatState, p: int, action: int) -> None:
    x = s.x
    if action == A.PASST:
        x.mode = PASST_MODE
        second = x.skat_order[1]
        x.turned.append(second)
        x.shown |= 1 << second
        return
    x.trump_game = A.ALL_CONTRACTS[A.contract_of_action(action)].game
    if x.mode == TOURNEE_MODE:
        x.shown |= 1 << x.turned[0]  # the card that suits is shown to the other players
    _take_skat(s, p)
    s.phase = DISCARD


def _defenders(s: SkatState) -> list[int]:
    """The defending positions that decide (not the dummy), from forehand."""
    t = s.table
    return [q for q in range(t.positions) if q != s.declarer and q != t.dummy]


def _start_kontra(s: SkatState) -> None:
    if s.options.kontra:
        eligible = _defenders(s)
        if s.table.auction:  # a defender who made or held a call (no auction: every defender)
            eligible = [q for q in eligible if s.called[q]]
        s.kontra_queue = eligible
    else:
        s.kontra_queue = []
    s._next_kontra()


def _doubling(s: SkatState, phase: int, action: int) -> None:
    if action == A.PASS:
        s._start_play()
    elif phase == RE:
        s.doubling = 4
        if s.options.supra and s.x.kontra_by >= 0:
            s.phase, s.current_player = SUPRA, s.x.kontra_by
        else:
            s._start_play()
    elif phase == SUPRA:
        s.doubling = 8
        s.phase, s.current_player = RESUPRA, s.declarer
    else:
        s.doubling = 16
        s._start_play()


def _start_exchange(s: SkatState) -> None:
    x = s.x
    first = _defenders(s)[0]
    x.giver, x.given, x.to_give = first, 0, 0
    s.phase, s.current_player = EXCHANGE, first
    if s.options.revolution_exchange == 0:
        _end_exchange(s)


def _end_exchange(s: SkatState) -> None:
    s.x.giver = -1
    _start_kontra(s)


def _exchange(s: SkatState, p: int, action: int) -> None:
    x = s.x
    first, second = _defenders(s)
    if action == A.PASS:
        if x.given == 0:
            _end_exchange(s)
        else:
            x.giver, x.to_give = second, x.given
            s.current_player = second
        return
    c = action - A.GIVE
    partner = second if p == first else first
    s.hands[p] ^= 1 << c
    s.hands[partner] |= 1 << c
    if x.to_give:
        x.to_give -= 1
        if not x.to_give:
            _end_exchange(s)
        return
    x.given += 1
    if x.given >= s.options.revolution_exchange:
        x.giver, x.to_give = second, x.given
        s.current_player = second

