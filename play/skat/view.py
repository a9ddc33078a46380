"""What a seat sees of a Skat deal, as the generic view of ``play.core`` (any table: three or four
players, two with a dummy, Officers' face-up rows, Idiotenskat's unseen own hand...).

Hidden information comes from one home, ``envs.skat.rules.views`` (``open_hands``, ``skat_known``):
what it shows a position is what the page and the terminal show its person; at the end of a deal
every hand is open. Seats are the env's ``player_0..``; positions (0 forehand, 1 middlehand,
2 rearhand, 3 the dealer sitting out at four) move round the table with the dealer.
"""

from __future__ import annotations

from typing import Any

from envs.skat.cards import cards_of
from envs.skat.rules import ANSWER, DONE, PLAY, POSITION_NAMES, SITTING_OUT, SkatState
from envs.skat.rules.phase_ids import ALL_PHASE_NAMES
from envs.skat.rules.views import open_hands, skat_known
from play.core import Table
from play.skat.moves import calls, contract_text, doubling_text, mode_of, slot_token, sorted_cards

PLAYING = (PLAY, ANSWER, DONE)


def state(table: Table) -> SkatState:
    """The rules state of the table's current deal (a list deals the next one into the env at once)."""
    return table.deal.notes["state"]


def dealer(table: Table) -> int:
    return table.deal.start["dealer"]


def seat_of(table: Table, position: int) -> int:
    """The seat at ``position`` in the current deal (-1: the dummy)."""
    return table.env.table.seat_of(position, dealer(table))


def position_of(table: Table, seat: int) -> int:
    return table.env.table.position_of(seat, dealer(table))


def dummy_name(st: SkatState) -> str:
    return "Oma" if st.table.dummy_mode == "stack" else "Dummy"


def who(table: Table, position: int) -> str:
    """The name of whoever holds ``position``: a seat's name, or the dummy."""
    seat = seat_of(table, position)
    return dummy_name(state(table)) if seat < 0 else table.names[seat]


def position_label(st: SkatState, position: int) -> str:
    if position == SITTING_OUT:
        return "dealer, sitting out"
    return POSITION_NAMES[position]


def plays_dummy(table: Table, seat: int) -> bool:
    """Does ``seat`` play the dummy's cards (Strohmann: the defender, once the game is declared)?"""
    st = state(table)
    t = st.table
    return (t.dummy >= 0 and t.dummy_mode == "open" and st.contract is not None
            and table.env.agent_at(t.dummy) == table.env.possible_agents[seat])


def trick_cards(table: Table, leader: int, cards: tuple[int, ...] | list[int]) -> list[dict[str, Any]]:
    st = state(table)
    names = st.table.pack.names
    return [{"card": names[c], "who": who(table, (leader + i) % st.trick_size)} for i, c in enumerate(cards)]


def tricks_text(n: int) -> str:
    return f"{n} trick{'s' if n != 1 else ''}"


def is_ramsch(st: SkatState) -> bool:
    return st.contract is None and st.phase in PLAYING and not st.passed_in and st.declarer < 0


def game_line(table: Table, st: SkatState) -> str | None:
    if st.contract is not None:
        extra = doubling_text(st.doubling)
        by = f" by {who(table, st.declarer)}" if st.declarer >= 0 else ""
        bid = f", bid {st.bid}" if st.bid else ""
        return f"Game: {contract_text(st.contract, mode_of(st))}{by}{bid}{', ' + extra if extra else ''}"
    if is_ramsch(st):
        pushes = st.x.pushes if st.x is not None else 0
        return "Game: Ramsch" + (f", the skat pushed on {pushes} times (x{2 ** pushes})" if pushes else "")
    return None


def _seat_meta(table: Table, st: SkatState, position: int, auction: list[tuple[int, str]]) -> str:
    if position == SITTING_OUT:
        return "sits this deal out"
    hidden = f", {st.x.hidden[position].bit_count()} face down" if st.table.officers else ""
    if st.phase in PLAYING:
        return f"{tricks_text(st.tricks_won[position])}, {st.points[position]} points{hidden}"
    said = [c for p, c in auction if p == position]
    return (said[-1] if said else "") + hidden


def view(table: Table, seat: int) -> dict[str, Any]:
    st = state(table)
    t = st.table
    pack = t.pack
    g = st.game_type
    me = position_of(table, seat)
    done = st.phase == DONE
    visible = list(st.hands) if done else open_hands(st, me)
    auction = calls(st)
    seats = []
    for s in range(t.seats):
        p = position_of(table, s)
        tags = [position_label(st, p)] + (["declarer"] if p == st.declarer else [])
        if s == dealer(table) and p != SITTING_OUT:
            tags.append("dealer")
        shown = visible[p] if p < 3 and s != seat else 0
        cards = st.hands[p].bit_count() if p < 3 else 0
        seats.append({"seat": s, "name": table.names[s], "tags": tags, "meta": _seat_meta(table, st, p, auction),
                      "cards": cards, "open": sorted_cards(shown, g, pack) if shown or (done and p < 3) else None})
    extra = []
    if t.dummy >= 0:
        d = t.dummy
        mode = {"open": "Strohmann", "stack": "face down, plays its top card", "unused": "not played"}[t.dummy_mode]
        meta = _seat_meta(table, st, d, []) if t.dummy_mode != "unused" else "not played"
        shown = visible[d] if d != me else 0
        extra.append({"seat": None, "name": dummy_name(st), "tags": ["rearhand", mode], "meta": meta,
                      "cards": st.hands[d].bit_count(), "open": sorted_cards(shown, g, pack) if shown else None})
    return {"phase": ALL_PHASE_NAMES[st.phase],
            "headline": f"you are {position_label(st, me)}, phase {ALL_PHASE_NAMES[st.phase]}",
            "seats": seats, "extra_seats": extra, "center": _center(table, st, me),
            "info": _info(table, st, me, auction),
            "rows": _rows(table, st, seat, me, visible), "last": _last(table, st),
            # Skat's own facts (tests and curious readers; the front ends draw the generic keys above)
            "hand": sorted_cards(visible[me], g, pack) if me < 3 else [],
            "auction": [{"seat": seat_of(table, p), "call": c} for p, c in auction], "bid": st.bid,
            "contract": ({"label": st.contract.label, "text": contract_text(st.contract, mode_of(st)),
                          "doubling": st.doubling} if st.contract is not None else
                         {"label": "R", "text": "Ramsch", "doubling": 1} if is_ramsch(st) else None),
            "declarer": seat_of(table, st.declarer) if st.declarer >= 0 else None, "tricks_played": st.trick_count}


def _center(table: Table, st: SkatState, me: int) -> list[dict[str, Any]]:
    names = st.table.pack.names
    if st.trick:
        cards = trick_cards(table, st.leader, st.trick)
        return [{"label": f"trick {st.trick_count + 1}", "cards": [c["card"] for c in cards],
                 "captions": [c["who"] for c in cards], "faded": False}]
    if st.last_trick and st.phase in (PLAY, ANSWER):
        leader = (st.leader - _winner_offset(st)) % st.trick_size
        cards = trick_cards(table, leader, st.last_trick)
        return [{"label": f"taken by {who(table, st.leader)}", "cards": [c["card"] for c in cards],
                 "captions": [c["who"] for c in cards], "faded": True}]
    if st.phase in PLAYING and st.phase != DONE:
        return []
    if st.phase == DONE:
        skat = st.skat
        return [{"label": "the skat", "cards": sorted_cards(skat, st.game_type, st.table.pack), "captions": None,
                 "faded": True}] if skat else []
    put, taken, shown = skat_known(st, me) if me <= SITTING_OUT else (0, 0, 0)
    known = (put | taken | shown) & st.skat
    cards = [names[c] for c in cards_of(known)] + ["##"] * (st.skat & ~known).bit_count()
    if not cards:
        return []
    return [{"label": "the skat", "cards": cards, "captions": None, "faded": False}]


def _winner_offset(st: SkatState) -> int:
    """Where the winner of the last trick sat in it (its leader is the winner minus this)."""
    pack = st.table.pack
    return pack.trick_winner(st.play_game, list(st.last_trick))


def _info(table: Table, st: SkatState, me: int, auction: list[tuple[int, str]]) -> list[str]:
    t = st.table
    out = []
    line = game_line(table, st)
    if line:
        out.append(line)
    if st.x is not None and st.x.fixed_game >= 0 and st.contract is None and st.phase != DONE:
        out.append("Raeuberskat: no bidding, this deal's contract is fixed")
    if auction and st.phase not in PLAYING:
        out.append("Auction: " + ", ".join(f"{who(table, p)} {c}" for p, c in auction))
    if me == SITTING_OUT:
        out.append("You deal this deal and sit it out.")
    elif st.phase in PLAYING:
        out.append(f"You: {tricks_text(st.tricks_won[me])}, {st.points[me]} points")
    if st.phase == ANSWER and st.x.offer is not None:
        kind, offerer, _ = st.x.offer
        from envs.skat import actions as A

        what = "concedes" if kind == A.CONCEDE else "claims"
        out.append(f"{who(table, offerer)} {what} the remaining tricks: {who(table, st.current_player)} answers")
    if t.dummy_mode == "open" and plays_dummy(table, table.human_seat):
        out.append("You play the dummy's cards too (the straw man).")
    if t.officers:
        out.append("Officers' Skat: only face-up cards are played; the card under one turns up when it is played.")
    if t.idiot and me < 3 and st.phase != DONE:
        out.append("Idiotenskat: you cannot see your own cards (your opponents can): choose them by slot.")
    s = table.env.series
    if s is not None:
        totals = ", ".join(f"{table.names[i]} {x:+d}" for i, x in enumerate(s.totals))
        out.append(f"List: {s.dealt} of {s.length} deals played; totals {totals}")
    return out


def _rows(table: Table, st: SkatState, seat: int, me: int, visible: list[int]) -> list[dict[str, Any]]:
    if me >= 3:
        return []
    t, g, pack = st.table, st.game_type, st.table.pack
    if t.idiot and st.phase != DONE:
        cards = [slot_token(k) for k, c in enumerate(st.x.slots[me]) if c >= 0]
        rows = [{"label": "Your hand (unseen)", "cards": cards}]
    else:
        rows = [{"label": "Your hand", "cards": sorted_cards(visible[me], g, pack)}]
    if t.officers and st.x.hidden[me]:
        rows.append({"label": "Face down", "cards": ["##"] * st.x.hidden[me].bit_count()})
    if plays_dummy(table, seat) and st.phase != DONE:
        rows.append({"label": "Dummy (you play it)", "cards": sorted_cards(st.hands[t.dummy], g, pack)})
    return rows


def _last(table: Table, st: SkatState) -> list[str] | None:
    if not st.last_trick:
        return None
    leader = (st.leader - _winner_offset(st)) % st.trick_size
    cards = ", ".join(f"{c['who']} {c['card']}" for c in trick_cards(table, leader, st.last_trick))
    return [f"Last trick: {cards} -> {who(table, st.leader)}"]


def frame(table: Table, caption: str, trick: list[dict[str, Any]] | None = None, winner: str | None = None
          ) -> dict[str, Any]:
    """A replay snapshot: every hand open, the skat, the trick just taken."""
    st = state(table)
    t, g, pack = st.table, st.game_type, st.table.pack
    rows = [{"label": who(table, p), "cards": sorted_cards(st.hands[p], g, pack),
             "note": f"{st.points[p]} pts" if st.phase in PLAYING else ""} for p in range(t.positions)]
    if st.skat:
        rows.append({"label": "skat", "cards": sorted_cards(st.skat, g, pack), "note": ""})
    return {"caption": caption, "rows": rows, "trick": trick or [], "winner": winner}
