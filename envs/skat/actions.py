"""The Skat action table: one ``Discrete(NUM_ACTIONS)`` space shared by every seat and phase.

Each index has a stable readable name; ranges per phase are contiguous:

=========================  ==========================================================
``bid N``                  a bid, N from :data:`BID_VALUES` (18, 20, 22, 23, ... 264)
``hold``, ``pass``         answer a bid; ``pass`` also declines Kontra / Re
``pickup``, ``hand``       take the skat, or play hand
``discard XX``             put card XX into the skat (twice, one card each)
``declare <contract>``     ISS contract letters: type C S H D G N, then O ouvert,
                           H hand, S schneider announced, Z schwarz announced
``kontra``, ``re``         the optional doubling (Kontra/Re option)
``play XX``                play card XX to the trick
=========================  ==========================================================
"""

from __future__ import annotations

from envs.skat.cards import CARD_NAMES, CLUBS, DIAMONDS, GRAND, HEARTS, NULL, NUM_CARDS, SPADES, card

BASE_VALUES = {CLUBS: 12, SPADES: 11, HEARTS: 10, DIAMONDS: 9, GRAND: 24}
NULL_VALUES = {"N": 23, "NH": 35, "NO": 46, "NOH": 59}

# Every value a game can have between 18 and 264 is a legal bid: suit 9..12 and grand 24 times a
# multiplier (2..18 for suits, 2..11 for grand), and the four null values.
BID_VALUES: tuple[int, ...] = tuple(
    sorted(
        {b * m for b in (9, 10, 11, 12) for m in range(2, 19) if b * m >= 18}
        | {24 * m for m in range(2, 12)}
        | set(NULL_VALUES.values())
    )
)
MAX_BID = BID_VALUES[-1]


class Contract:
    """A declaration: game type plus announcements, with its ISS name (``CHS``, ``GHO``, ``NO``)."""

    __slots__ = ("game", "hand", "schneider", "schwarz", "ouvert", "label")

    def __init__(self, game: int, hand: bool, schneider: bool, schwarz: bool, ouvert: bool) -> None:
        self.game, self.hand, self.schneider, self.schwarz, self.ouvert = game, hand, schneider, schwarz, ouvert
        letters = "CSHDGN"[game]
        if game == NULL:
            letters += ("O" if ouvert else "") + ("H" if hand else "")
        else:
            letters += ("H" if hand else "") + ("S" if schneider and not schwarz else "")
            letters += ("Z" if schwarz and not ouvert else "") + ("O" if ouvert else "")
        self.label = letters

    def __repr__(self) -> str:
        return f"Contract({self.label})"


def _contracts() -> tuple[Contract, ...]:
    out = []
    for g in (CLUBS, SPADES, HEARTS, DIAMONDS, GRAND):
        out.append(Contract(g, False, False, False, False))
        out.append(Contract(g, True, False, False, False))
        out.append(Contract(g, True, True, False, False))
        out.append(Contract(g, True, True, True, False))
        out.append(Contract(g, True, True, True, True))  # ouvert implies schwarz (and schneider) announced
    for hand in (False, True):
        for ouvert in (False, True):
            out.append(Contract(NULL, hand, False, False, ouvert))
    return tuple(out)


CONTRACTS: tuple[Contract, ...] = _contracts()
CONTRACT_BY_LABEL = {c.label: i for i, c in enumerate(CONTRACTS)}

# --- index ranges ---------------------------------------------------------------------------
BID = 0
NUM_BIDS = len(BID_VALUES)
HOLD = BID + NUM_BIDS
PASS = HOLD + 1
PICKUP = PASS + 1
HAND = PICKUP + 1
DISCARD = HAND + 1
DECLARE = DISCARD + NUM_CARDS
KONTRA = DECLARE + len(CONTRACTS)
RE = KONTRA + 1
PLAY = RE + 1
NUM_ACTIONS = PLAY + NUM_CARDS

BID_INDEX = {v: BID + i for i, v in enumerate(BID_VALUES)}


def _names() -> tuple[str, ...]:
    names = [f"bid {v}" for v in BID_VALUES] + ["hold", "pass", "pickup", "hand"]
    names += [f"discard {n}" for n in CARD_NAMES]
    names += [f"declare {c.label}" for c in CONTRACTS]
    names += ["kontra", "re"]
    names += [f"play {n}" for n in CARD_NAMES]
    assert len(names) == NUM_ACTIONS
    return tuple(names)


ACTION_NAMES: tuple[str, ...] = _names()
_INDEX = {n: i for i, n in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    if not isinstance(action, int | bool) and not hasattr(action, "__index__"):
        raise TypeError(f"action must be an int, got {type(action).__name__}")
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def action_index(text: str) -> int:
    """``"play CJ"`` -> index. Also accepts ``"bid 18"``, ``"declare GH"`` and bare ``"18"``."""
    key = " ".join(str(text).split())
    if key in _INDEX:
        return _INDEX[key]
    if key.isdigit() and int(key) in BID_INDEX:
        return BID_INDEX[int(key)]
    parts = key.split(" ")
    if len(parts) == 2 and parts[0] in ("play", "discard"):
        return (PLAY if parts[0] == "play" else DISCARD) + card(parts[1].upper())
    raise ValueError(f"unknown Skat action {text!r}; names look like 'bid 18', 'hold', 'pass', 'pickup', "
                     f"'hand', 'discard SA', 'declare GH', 'kontra', 're', 'play CJ'")
