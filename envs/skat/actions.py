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

These 162 actions are the whole action space of the ISkO table (``variant="isko"`` with today's
options; shipped checkpoints have 162 outputs). Every other table plays in the extended space of
:data:`NUM_ALL_ACTIONS`, whose first 162 indices are the same actions; after them come
(:data:`ALL_ACTION_NAMES`):

=========================  ==========================================================
``supra``, ``resupra``     the further doublings after Kontra and Re (option ``supra``)
``concede``, ``claim``     give up the game / claim the remaining tricks (``concede``)
``accept``, ``reject``     the other side's answer to a concession or claim
``tournee``, ``guckser``   North American skat: turn a skat card / pick up both (grand)
``passt``                  "passt mir nicht": the first turned card does not suit
``play XX``/``discard XX`` the sixes of Sechserskat (``C6 S6 H6 D6``)
``give XX``                Revolution: hand card XX to the partner
``play slot K``            Idiotenskat: play the card in hand slot K (unseen by its holder)
``discard slot K``         Idiotenskat: put the card in slot K into the skat
``declare <contract>``     pickup games with schneider/schwarz announced (North American
                           skat: ``CS`` ... ``GZ``) and ``R`` (Revolution)
``bid N``                  the bids only other tables reach (North American values, 92 for
                           Revolution, the higher values of the 36-card pack)
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
    """A declaration: game type plus announcements, with its ISS name (``CHS``, ``GHO``, ``NO``).
    ``revolution``: the Revolution (a null ouvert hand in which the defenders exchange cards)."""

    __slots__ = ("game", "hand", "schneider", "schwarz", "ouvert", "label", "revolution")

    def __init__(self, game: int, hand: bool, schneider: bool, schwarz: bool, ouvert: bool,
                 revolution: bool = False) -> None:
        self.game, self.hand, self.schneider, self.schwarz, self.ouvert = game, hand, schneider, schwarz, ouvert
        self.revolution = revolution
        if revolution:
            self.label = "R"
            return
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


# --- the extended action space of every other table ------------------------------------------
# North American (Tournee) skat: base values (Tournee, Solo, Grand Guckser, grand ouvert) and nulls.
TOURNEE_BASE = {DIAMONDS: 5, HEARTS: 6, SPADES: 7, CLUBS: 8, GRAND: 12}
SOLO_BASE = {DIAMONDS: 9, HEARTS: 10, SPADES: 11, CLUBS: 12, GRAND: 20}
GRAND_OUVERT_BASE = 24
GUCKSER_BASE, GUCKSER_LOST_BASE = 16, 32
TOURNEE_NULL, TOURNEE_NULL_OUVERT = 20, 40
REVOLUTION_VALUE = 92


def _multiples(bases: tuple[int, ...], levels: range) -> set[int]:
    return {b * m for b in bases for m in levels}


# Every value a North American game can have: suit games "with/without" 1..11 plus game, schneider,
# schwarz and up to two announced levels (2..16); grand 2..9 (grand ouvert is always played for every
# trick: game, schneider and schwarz, 4..7); the two nulls.
TOURNEE_BID_VALUES: tuple[int, ...] = tuple(sorted(
    _multiples((5, 6, 7, 8, 9, 10, 11, 12), range(2, 17)) | _multiples((12, 16, 20), range(2, 10))
    | _multiples((GRAND_OUVERT_BASE,), range(4, 8)) | {TOURNEE_NULL, TOURNEE_NULL_OUVERT}))
# The 36-card pack: a suit game may be "with/without" 12 (the six of trumps), levels up to 19.
SIX_PACK_BID_VALUES: tuple[int, ...] = tuple(sorted(set(BID_VALUES) | _multiples((9, 10, 11, 12), range(2, 20))))
EXTRA_BID_VALUES: tuple[int, ...] = tuple(sorted(
    (set(TOURNEE_BID_VALUES) | set(SIX_PACK_BID_VALUES) | {REVOLUTION_VALUE}) - set(BID_VALUES)))

NUM_SIXES, NUM_SLOTS = 4, 12  # the sixes (card ids 32..35); Idiotenskat's hand slots (ten cards and the skat)
SUPRA = NUM_ACTIONS
RESUPRA = SUPRA + 1
CONCEDE = RESUPRA + 1
CLAIM = CONCEDE + 1
ACCEPT = CLAIM + 1
REJECT = ACCEPT + 1
TOURNEE = REJECT + 1
GUCKSER = TOURNEE + 1
PASST = GUCKSER + 1
PLAY_SIX = PASST + 1
DISCARD_SIX = PLAY_SIX + NUM_SIXES
GIVE = DISCARD_SIX + NUM_SIXES
PLAY_SLOT = GIVE + NUM_CARDS + NUM_SIXES
DISCARD_SLOT = PLAY_SLOT + NUM_SLOTS
EXTRA_CONTRACTS: tuple[Contract, ...] = tuple(
    Contract(g, False, True, z, False) for g in (CLUBS, SPADES, HEARTS, DIAMONDS, GRAND) for z in (False, True)
) + (Contract(NULL, True, False, False, True, revolution=True),)
DECLARE_EXTRA = DISCARD_SLOT + NUM_SLOTS
BID_EXTRA = DECLARE_EXTRA + len(EXTRA_CONTRACTS)
NUM_ALL_ACTIONS = BID_EXTRA + len(EXTRA_BID_VALUES)

ALL_CONTRACTS: tuple[Contract, ...] = CONTRACTS + EXTRA_CONTRACTS  # contract index -> Contract
ALL_CONTRACT_BY_LABEL = {c.label: i for i, c in enumerate(ALL_CONTRACTS)}
REVOLUTION_CONTRACT = ALL_CONTRACT_BY_LABEL["R"]
ALL_BID_VALUES: tuple[int, ...] = tuple(sorted(set(BID_VALUES) | set(EXTRA_BID_VALUES)))
ALL_BID_INDEX = {**BID_INDEX, **{v: BID_EXTRA + i for i, v in enumerate(EXTRA_BID_VALUES)}}  # value -> action
BID_OF_ACTION = {a: v for v, a in ALL_BID_INDEX.items()}  # action -> value
SIX_NAMES = ("C6", "S6", "H6", "D6")


def declare_action(contract_index: int) -> int:
    """The ``declare`` action of a contract index into :data:`ALL_CONTRACTS`."""
    n = len(CONTRACTS)
    return DECLARE + contract_index if contract_index < n else DECLARE_EXTRA + contract_index - n


def contract_of_action(action: int) -> int:
    """The contract index (into :data:`ALL_CONTRACTS`) of a ``declare`` action, -1 if it is none."""
    if DECLARE <= action < KONTRA:
        return action - DECLARE
    if DECLARE_EXTRA <= action < BID_EXTRA:
        return len(CONTRACTS) + action - DECLARE_EXTRA
    return -1


def play_action(c: int) -> int:
    """The ``play`` action of card id c (a six: 32..35)."""
    return PLAY + c if c < NUM_CARDS else PLAY_SIX + c - NUM_CARDS


def discard_action(c: int) -> int:
    return DISCARD + c if c < NUM_CARDS else DISCARD_SIX + c - NUM_CARDS


def card_of_play(action: int) -> int:
    """The card id a ``play`` action plays, -1 if it is no card play."""
    if PLAY <= action < PLAY + NUM_CARDS:
        return action - PLAY
    if PLAY_SIX <= action < PLAY_SIX + NUM_SIXES:
        return NUM_CARDS + action - PLAY_SIX
    return -1


def card_of_discard(action: int) -> int:
    if DISCARD <= action < DISCARD + NUM_CARDS:
        return action - DISCARD
    if DISCARD_SIX <= action < DISCARD_SIX + NUM_SIXES:
        return NUM_CARDS + action - DISCARD_SIX
    return -1


def cards_mask_to_actions(mask: int, base: int, six_base: int) -> int:
    """A bit set of cards (ids 0..35) -> the bit set of their actions (``play`` or ``discard``)."""
    return (mask & 0xFFFFFFFF) << base | (mask >> NUM_CARDS) << six_base


def _all_names() -> tuple[str, ...]:
    names = list(ACTION_NAMES)
    names += ["supra", "resupra", "concede", "claim", "accept", "reject", "tournee", "guckser", "passt"]
    names += [f"play {n}" for n in SIX_NAMES] + [f"discard {n}" for n in SIX_NAMES]
    names += [f"give {n}" for n in CARD_NAMES + SIX_NAMES]
    names += [f"play slot {k}" for k in range(NUM_SLOTS)] + [f"discard slot {k}" for k in range(NUM_SLOTS)]
    names += [f"declare {c.label}" for c in EXTRA_CONTRACTS]
    names += [f"bid {v}" for v in EXTRA_BID_VALUES]
    assert len(names) == NUM_ALL_ACTIONS and len(set(names)) == NUM_ALL_ACTIONS
    return tuple(names)


ALL_ACTION_NAMES: tuple[str, ...] = _all_names()
_ALL_INDEX = {n: i for i, n in enumerate(ALL_ACTION_NAMES)}


def action_name(action: int) -> str:
    """The readable name of an action index of the extended table (0..161 on the ISkO table)."""
    if not isinstance(action, int | bool) and not hasattr(action, "__index__"):
        raise TypeError(f"action must be an int, got {type(action).__name__}")
    action = int(action)
    if not 0 <= action < NUM_ALL_ACTIONS:
        raise ValueError(f"action {action} out of range 0..{NUM_ALL_ACTIONS - 1}")
    return ALL_ACTION_NAMES[action]


def action_index(text: str) -> int:
    """``"play CJ"`` -> index. Also accepts ``"bid 18"``, ``"declare GH"``, bare ``"18"``, the sixes
    (``"play C6"``) and every other name of :data:`ALL_ACTION_NAMES`."""
    key = " ".join(str(text).split())
    if key in _INDEX:
        return _INDEX[key]
    if key in _ALL_INDEX:
        return _ALL_INDEX[key]
    if key.isdigit() and int(key) in ALL_BID_INDEX:
        return ALL_BID_INDEX[int(key)]
    parts = key.split(" ")
    if len(parts) == 2 and parts[0] in ("play", "discard", "give") and parts[1].upper() in _ALL_INDEX_CARDS:
        return _ALL_INDEX[f"{parts[0]} {parts[1].upper()}"]
    if len(parts) == 2 and parts[0] in ("play", "discard"):
        return (PLAY if parts[0] == "play" else DISCARD) + card(parts[1].upper())
    raise ValueError(f"unknown Skat action {text!r}; names look like 'bid 18', 'hold', 'pass', 'pickup', "
                     f"'hand', 'discard SA', 'declare GH', 'kontra', 're', 'play CJ' (other tables: 'supra', "
                     f"'concede', 'claim', 'accept', 'tournee', 'passt', 'give SA', 'play slot 3', 'play C6')")


_ALL_INDEX_CARDS = frozenset(CARD_NAMES + SIX_NAMES)
