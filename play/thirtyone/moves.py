"""Thirty-One moves as a person reads and types them, on every table (stock, widow, pool, Switch).

Keys: ``d`` draw, ``t`` take the discard, ``k`` knock, ``x`` throw down, ``l`` look, a card to discard
or put on the table (``HK``), ``p1`` .. ``p6`` pick a table card (a face-up one also by its name),
``s1`` / ``s2`` swap the hand with the pool or table hand 1 / 2, ``r1u`` ``r1d`` ``r2u`` ``r2d`` renew a
table hand face up / down, ``stop``, ``keep``, ``restart``, ``count`` (score the round, no restart).
A face-down table card is the token ``#j`` (slot j, drawn as a card back).
"""

from __future__ import annotations

from envs.thirtyone import actions as A
from envs.thirtyone.brag import brag_name
from envs.thirtyone.cards import CARD_NAMES, RANK, SUIT
from envs.thirtyone.phases import CHOOSE, PLACE, POOL, SWITCH, WIDOW
from envs.thirtyone.rules import ThirtyOneState
from play.core import Move

KEYS = {A.DRAW: "d", A.TAKE: "t", A.KNOCK: "k", A.THROW_DOWN: "x", A.LOOK: "l", A.STOP: "stop", A.KEEP: "keep",
        A.RESTART: "restart", A.SCORE: "count"}
LABELS = {A.DRAW: "draw from the stock", A.KNOCK: "knock", A.THROW_DOWN: "throw down (everyone shows at once)",
          A.LOOK: "look at the hand", A.STOP: "stop exchanging", A.KEEP: "keep the dealt hand",
          A.RESTART: "restart the round with this hand face up", A.SCORE: "score the round (no restart)"}
ALIASES = {"draw": "d", "take": "t", "knock": "k", "throw": "x", "look": "l"}
KEYS_HELP = ("Thirty-One: d draw, t take the discard, k knock, x throw down, l look, a card to discard;\n"
             "        p1..p6 pick a table card, s1/s2 swap with the pool or a table hand, r1u r1d r2u r2d renew,\n"
             "        stop, keep, restart, count")


def sorted_cards(cards: list[int]) -> list[str]:
    """Grouped by suit, highest first."""
    return [CARD_NAMES[c] for c in sorted(cards, key=lambda c: (SUIT[c], -RANK[c]))]


def value_text(st: ThirtyOneState, value: float) -> str:
    """A hand's value as a player says it: ``27``, ``30.5``, or a brag hand (``pair of 8s, K kicker``)."""
    return brag_name(int(value)) if st.opts.ranking == "brag" else f"{value:g}"


def slot_place(st: ThirtyOneState, j: int) -> str:
    """Where table slot ``j`` lies: the widow, the pool, or one of Switch's table hands."""
    if st.tk == WIDOW:
        return "the widow"
    if st.tk == POOL:
        return "the pool"
    return f"table hand {j // 3 + 1}"


def slot_seen(st: ThirtyOneState, j: int, seat: int) -> bool:
    """Does ``seat`` see the card in slot ``j``? Face up, or the Switch dealer's second hand before choosing."""
    return bool(st.face_up[j]) or (st.peek == seat and j < 3)


def slot_token(st: ThirtyOneState, j: int, seat: int) -> str:
    return CARD_NAMES[st.table[j]] if slot_seen(st, j, seat) else f"#{j + 1}"


def move_of(action: int, st: ThirtyOneState, seat: int) -> Move:
    if action < A.DRAW:
        name = CARD_NAMES[action]
        verb = f"put {name} on {slot_place(st, st.slot)}" if st.phase == PLACE else f"discard {name}"
        return Move(action, verb, name, name)
    if action == A.TAKE:
        top = CARD_NAMES[st.pile[-1]] if st.pile else "?"
        return Move(action, f"take {top} from the discard pile", "t")
    if A.PICK <= action < A.SWAP:
        j = action - A.PICK
        token = slot_token(st, j, seat)
        what = token if not token.startswith("#") else f"the face-down card {j + 1}"
        return Move(action, f"pick {what} from {slot_place(st, j)}", f"p{j + 1}", token)
    if A.SWAP <= action < A.RENEW:
        h = action - A.SWAP
        if st.phase == CHOOSE:
            return Move(action, "take the second hand (the dealt one goes face up)", f"s{h + 1}")
        where = "the pool" if st.tk != SWITCH else f"table hand {h + 1}"
        return Move(action, f"swap your hand with {where}", f"s{h + 1}")
    if A.RENEW <= action < A.STOP:
        h, down = divmod(action - A.RENEW, 2)
        how = "down (then pick or swap)" if down else "up (ends the turn)"
        return Move(action, f"renew table hand {h + 1} face {how}", f"r{h + 1}{'d' if down else 'u'}")
    return Move(action, LABELS[action], KEYS[action])


def moves(st: ThirtyOneState, seat: int) -> list[Move]:
    order = {c: i for i, c in enumerate(sorted_cards(st.hands[seat]))}
    return sorted((move_of(a, st, seat) for a in st.legal_actions()), key=lambda m: order.get(m.card, -1))
