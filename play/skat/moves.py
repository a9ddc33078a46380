"""Skat moves as a person reads and types them: labels, keys, card tokens, the hand sorted as a player sorts it.

Keys: a bid's value (``18``), ``y`` hold, ``p`` pass (also: no Kontra, push the skat on, stop giving),
``s`` pick up the skat, ``h`` hand, a card (``CJ``, ``C6``), contract letters (``G``, ``CH``, ``NO``,
``CS`` schneider announced, ``R`` the Revolution), ``k`` kontra, ``r`` re, and the words ``supra``,
``resupra``, ``concede``, ``claim``, ``accept``, ``reject``, ``tournee``, ``guckser``, ``passt``.
Idiotenskat's unseen cards are chosen by slot: ``#1`` .. ``#12``.
"""

from __future__ import annotations

from envs.skat import actions as A
from envs.skat.cards import GAME_NAMES, GRAND, NULL, TRUMP, cards_of
from envs.skat.pack import Pack
from envs.skat.rules import ANNOUNCE, EXCHANGE, KONTRA, RE, RESUPRA, SCHIEBEN, SKAT, SUPRA, TURN, SkatState
from envs.skat.rules.extras import MODE_NAMES
from play.core import Move

KEYS = {A.HOLD: "y", A.PASS: "p", A.PICKUP: "s", A.HAND: "h", A.KONTRA: "k", A.RE: "r", A.SUPRA: "supra",
        A.RESUPRA: "resupra", A.CONCEDE: "concede", A.CLAIM: "claim", A.ACCEPT: "accept", A.REJECT: "reject",
        A.TOURNEE: "tournee", A.GUCKSER: "guckser", A.PASST: "passt"}
LABELS = {A.HOLD: "hold", A.PASS: "pass", A.PICKUP: "pick up the skat", A.HAND: "play hand", A.KONTRA: "kontra",
          A.RE: "re", A.SUPRA: "supra", A.RESUPRA: "resupra", A.CONCEDE: "concede the remaining tricks",
          A.CLAIM: "claim the remaining tricks", A.ACCEPT: "accept", A.REJECT: "reject (play on)",
          A.TOURNEE: "tournee (turn a skat card)", A.GUCKSER: "grand guckser (pick up both)",
          A.PASST: "passt mir nicht (turn the second card)"}
PASS_LABELS = {KONTRA: "no kontra", RE: "no re", SUPRA: "no supra", RESUPRA: "no resupra",
               SCHIEBEN: "push the skat on", EXCHANGE: "stop giving"}
ALIASES = {"pass": "p", "hold": "y", "yes": "y", "pickup": "s", "skat": "s", "hand": "h", "kontra": "k",
           "re": "r"}
KEYS_HELP = ("Skat: p pass, y hold, s pick up the skat, h play hand, contract letters (C S H D G N, then H hand,\n"
             "        S schneider, Z schwarz, O ouvert, e.g. GH, NO; R the Revolution), k kontra, r re, supra,\n"
             "        resupra, concede, claim, accept, reject, tournee, guckser, passt; #1.. an unseen card")
DOUBLINGS = {2: "kontra", 4: "kontra and re", 8: "kontra, re and supra", 16: "kontra, re, supra and resupra"}


def contract_text(contract: A.Contract, mode: int = 0) -> str:
    """``GHS`` -> ``grand hand, schneider announced``; a North American mode is named (``hearts tournee``)."""
    if contract.revolution:
        return "Revolution (null ouvert hand, 92)"
    words = [GAME_NAMES[contract.game]]
    if mode:
        words.append(MODE_NAMES[mode])
    if contract.ouvert:
        words.append("ouvert")
    if contract.hand and not mode:
        words.append("hand")
    text = " ".join(words)
    if contract.game != NULL and contract.schwarz and not contract.ouvert:
        text += ", schwarz announced"
    elif contract.game != NULL and contract.schneider and not contract.schwarz:
        text += ", schneider announced"
    return text


def slot_token(k: int) -> str:
    """The token of Idiotenskat's hand slot ``k`` (0-based): ``#1`` .. ``#12``."""
    return f"#{k + 1}"


def sorted_ids(mask: int, game: int, pack: Pack) -> list[int]:
    """Card ids as a player sorts them: trumps first (strongest first), then each suit, strongest
    first. Before the declaration the jacks lead, as in grand."""
    g = GRAND if game < 0 else game
    eff, order = pack.eff_suit[g], pack.order[g]
    return sorted(cards_of(mask), key=lambda c: (eff[c] != TRUMP, eff[c], -order[c]))


def sorted_cards(mask: int, game: int, pack: Pack) -> list[str]:
    return [pack.names[c] for c in sorted_ids(mask, game, pack)]


def move_of(action: int, st: SkatState) -> Move:
    """The move of ``action`` in the state it is legal in (labels depend on the phase)."""
    names = st.table.pack.names
    if action in A.BID_OF_ACTION:
        value = A.BID_OF_ACTION[action]
        return Move(action, f"bid {value}", str(value))
    if action == A.PASS:
        return Move(action, PASS_LABELS.get(st.phase, "pass"), "p")
    if action == A.PICKUP and st.phase == SCHIEBEN:
        return Move(action, "take the skat", "s")
    if action == A.HAND and st.phase == SKAT and st.table.tournee:
        return Move(action, "solo (play hand: the skat stays)", "h")
    if action in KEYS:
        return Move(action, LABELS[action], KEYS[action])
    c = A.card_of_discard(action)
    if c >= 0:
        return Move(action, f"discard {names[c]}", names[c], names[c])
    c = A.card_of_play(action)
    if c >= 0:
        return Move(action, f"play {names[c]}", names[c], names[c])
    index = A.contract_of_action(action)
    if index >= 0:
        contract = A.ALL_CONTRACTS[index]
        if st.phase == TURN:  # North American: the turned card's suit (a jack: or grand) is trump
            turned = names[st.x.turned[-1]]
            trump = "grand" if contract.game == GRAND else f"{GAME_NAMES[contract.game]} trump"
            return Move(action, f"{trump} (take {turned})", contract.label)
        if st.phase == ANNOUNCE:
            what = "schwarz" if contract.schwarz else "schneider" if contract.schneider else ""
            return Move(action, f"announce {what}" if what else "no announcement", contract.label)
        return Move(action, f"declare {contract_text(contract)}", contract.label)
    if A.GIVE <= action < A.PLAY_SLOT:
        name = names[action - A.GIVE]
        return Move(action, f"give {name} to your partner", name, name)
    if A.PLAY_SLOT <= action < A.DISCARD_SLOT:
        k = action - A.PLAY_SLOT
        return Move(action, f"play the unseen card in slot {k + 1}", slot_token(k), slot_token(k))
    if A.DISCARD_SLOT <= action < A.DECLARE_EXTRA:
        k = action - A.DISCARD_SLOT
        return Move(action, f"put the unseen card in slot {k + 1} into the skat", slot_token(k), slot_token(k))
    raise ValueError(f"no move for Skat action {action}")  # every action of the table is covered above


def moves(st: SkatState) -> list[Move]:
    """The legal moves of the player to act: cards in the order of the sorted hand (slots in theirs),
    then the other moves (a concession or claim comes after the cards)."""
    hand = st.hands[st.current_player]
    order = {c: i for i, c in enumerate(sorted_cards(hand, st.game_type, st.table.pack))}
    out = [move_of(a, st) for a in st.legal_actions()]
    return sorted(out, key=lambda m: order.get(m.card, len(order)))


def doubling_text(doubling: int) -> str:
    return DOUBLINGS.get(doubling, "")


def mode_of(st: SkatState) -> int:
    return st.x.mode if st.x is not None else 0


def calls(st: SkatState) -> list[tuple[int, str]]:
    """The auction so far: (position, what it said). The auction is the history's first entries:
    it ends with the third pass, or the second once a bid was made."""
    out: list[tuple[int, str]] = []
    if not st.table.auction:
        return out
    passes = bids = 0
    for p, a in st.history:
        if passes == 3 or (passes == 2 and bids):
            break
        if a in A.BID_OF_ACTION:
            bids += 1
            out.append((p, f"bid {A.BID_OF_ACTION[a]}"))
        elif a in (A.HOLD, A.PASS):
            passes += a == A.PASS
            out.append((p, LABELS[a]))
        else:
            break
    return out
