"""Skat at the play table: the person's moves, the view of a seat, the result step by step, records.

Seats are the env's ``player_0..2`` (the person sits at seat 0); the rules core counts in positions
(0 forehand, 1 middlehand, 2 rearhand), which move round the table as the dealer rotates.
"""

from __future__ import annotations

from typing import Any

from envs.skat import actions as A
from envs.skat.cards import CARD_NAMES, EFF_SUIT, GAME_NAMES, NULL, ORDER, TRUMP, cards_of
from envs.skat.env import raw_env
from envs.skat.rules import DONE, PHASE_NAMES, PLAY, POSITION_NAMES, SkatState
from envs.skat.scoring import DEFENDER_BONUS, WIN_BONUS, multiplier_steps, null_value
from play.core import Move, Table

OPTIONS = {"scoring": ("tournament", "classic"), "kontra": (False, True), "ramsch": (False, True)}
KEYS = {A.HOLD: "y", A.PASS: "p", A.PICKUP: "s", A.HAND: "h", A.KONTRA: "k", A.RE: "r"}
LABELS = {A.HOLD: "hold", A.PASS: "pass", A.PICKUP: "pick up the skat", A.HAND: "play hand", A.KONTRA: "kontra",
          A.RE: "re"}


def contract_text(contract: A.Contract) -> str:
    """``GHS`` -> ``grand hand, schneider announced``."""
    words = [GAME_NAMES[contract.game]]
    if contract.ouvert:
        words.append("ouvert")
    if contract.hand:
        words.append("hand")
    text = " ".join(words)
    if contract.game != NULL and contract.schwarz and not contract.ouvert:
        text += ", schwarz announced"
    elif contract.game != NULL and contract.schneider and not contract.schwarz:
        text += ", schneider announced"
    return text


def sorted_cards(mask: int, game: int) -> list[str]:
    """A hand as a player sorts it: trumps first (strongest first), then each suit, strongest first.
    Before the declaration the jacks lead, as in grand."""
    g = 4 if game < 0 else game  # grand order until a game is declared
    eff, order = EFF_SUIT[g], ORDER[g]
    return [CARD_NAMES[c] for c in sorted(cards_of(mask), key=lambda c: (eff[c] != TRUMP, eff[c], -order[c]))]


def move_of(action: int) -> Move:
    if action < A.HOLD:
        value = A.BID_VALUES[action - A.BID]
        return Move(action, f"bid {value}", str(value))
    if action in KEYS:
        return Move(action, LABELS[action], KEYS[action])
    if A.DISCARD <= action < A.DECLARE:
        card = CARD_NAMES[action - A.DISCARD]
        return Move(action, f"discard {card}", card, card)
    if A.DECLARE <= action < A.KONTRA:
        contract = A.CONTRACTS[action - A.DECLARE]
        return Move(action, f"declare {contract_text(contract)}", contract.label)
    card = CARD_NAMES[action - A.PLAY]
    return Move(action, f"play {card}", card, card)


class SkatAdapter:
    game = "skat"
    num_seats = 3

    # --- seats and positions -----------------------------------------------------------------
    @staticmethod
    def seat_of(env: Any, position: int) -> int:
        return (env.dealer + 1 + position) % 3

    @staticmethod
    def state(env: Any) -> SkatState:
        return env.state

    def make_env(self, options: dict[str, Any]) -> Any:
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown Skat table option(s) {unknown}; valid: {sorted(OPTIONS)}")
        return raw_env(**options)

    def start(self, table: Table) -> None:
        env, deal = table.env, table.deal
        if table.deals_played == 0:
            env.reset(seed=table.seed)
            deal.seed = table.seed
        else:
            env.reset()
        st = env.state
        deal.start = {"dealer": env.dealer,
                      "hands": [" ".join(sorted_cards(st.dealt[env.position_of(a)], -1)) for a in env.possible_agents],
                      "skat": " ".join(CARD_NAMES[c] for c in cards_of(st.original_skat))}
        deal.frames.append(self.frame(env, "the deal"))

    def to_act(self, env: Any) -> int | None:
        st = env.state
        return None if st.phase == DONE else self.seat_of(env, st.current_player)

    def over(self, env: Any) -> bool:
        return env.state.phase == DONE

    def moves(self, env: Any, seat: int) -> list[Move]:
        st = env.state
        if st.phase == DONE or self.seat_of(env, st.current_player) != seat:
            return []
        order = {c: i for i, c in enumerate(sorted_cards(st.hands[st.current_player], st.game_type))}
        moves = [move_of(a) for a in st.legal_actions()]
        return sorted(moves, key=lambda m: order.get(m.card, -1))  # cards in the order of the sorted hand

    # --- stepping ----------------------------------------------------------------------------
    def after_step(self, table: Table, seat: int, action: int) -> list[dict[str, Any]]:
        env = table.env
        st = env.state
        leader, tricks, phase = st.leader, st.trick_count, st.phase
        env.step(action)  # raises a ValueError naming the action if it is illegal
        events = [{"kind": "move", "seat": seat, "action": action, "label": move_of(action).label,
                   "phase": PHASE_NAMES[phase]}]
        if st.trick_count > tricks:
            winner = self.seat_of(env, st.leader)
            cards = [{"seat": self.seat_of(env, (leader + i) % 3), "card": CARD_NAMES[c]}
                     for i, c in enumerate(st.last_trick)]
            events.append({"kind": "trick", "number": st.trick_count, "cards": cards, "winner": winner})
            table.deal.frames.append(self.frame(env, f"trick {st.trick_count} to {table.names[winner]}", cards,
                                                winner))
        elif phase != PLAY and st.phase == PLAY:
            table.deal.frames.append(self.frame(env, "before the first trick"))
        return events

    def frame(self, env: Any, caption: str, trick: list[dict[str, Any]] | None = None,
              winner: int | None = None) -> dict[str, Any]:
        """A replay snapshot: every hand open, the skat, the trick just taken."""
        st = env.state
        g = st.game_type
        return {"caption": caption,
                "hands": [sorted_cards(st.hands[env.position_of(a)], g) for a in env.possible_agents],
                "skat": sorted_cards(st.skat, g), "trick": trick or [], "winner": winner,
                "points": [st.points[env.position_of(a)] for a in env.possible_agents],
                "tricks": [st.tricks_won[env.position_of(a)] for a in env.possible_agents]}

    # --- results and the session score --------------------------------------------------------
    def new_score(self, table: Table) -> dict[str, Any]:
        return {"columns": ["points", "declared", "won"], "rows": [[0, 0, 0] for _ in range(3)], "deals": 0}

    def finish(self, table: Table) -> dict[str, Any]:
        env = table.env
        result = value_steps(env.state, [self.seat_of(env, p) for p in range(3)], table.names)
        rows = table.score["rows"]
        for seat in range(3):
            rows[seat][0] += result["scores"][seat]
        if result.get("declarer") is not None:
            rows[result["declarer"]][1] += 1
            rows[result["declarer"]][2] += int(result["won"])
        table.score["deals"] += 1
        return result

    # --- what a seat sees ----------------------------------------------------------------------
    def view(self, table: Table, seat: int) -> dict[str, Any]:
        env = table.env
        st = env.state
        g = st.game_type
        me = env.position_of(env.possible_agents[seat])
        calls: list[dict[str, Any]] = []
        for p, a in st.history:
            if a <= A.PASS:
                calls.append({"seat": self.seat_of(env, p), "call": move_of(a).label})
        done = st.phase == DONE
        seats = []
        for s, agent in enumerate(env.possible_agents):
            p = env.position_of(agent)
            open_hand = (s == seat or done or (st.contract is not None and st.contract.ouvert and p == st.declarer
                                               and st.phase == PLAY))
            seats.append({"seat": s, "name": table.names[s], "position": POSITION_NAMES[p],
                          "declarer": p == st.declarer, "cards": st.hands[p].bit_count(),
                          "hand": sorted_cards(st.hands[p], g) if open_hand else None,
                          "tricks": st.tricks_won[p], "points": st.points[p], "passed": st.passed[p],
                          "dealer": p == 2})
        trick = [{"seat": self.seat_of(env, (st.leader + i) % 3), "card": CARD_NAMES[c]}
                 for i, c in enumerate(st.trick)]
        last = None
        if st.last_trick:
            e = next(e for e in reversed(table.deal.events) if e["kind"] == "trick")
            last = {"cards": e["cards"], "winner": e["winner"]}
        skat_seen = me == st.declarer and st.skat_taken or done
        contract = None
        if st.contract is not None:
            contract = {"label": st.contract.label, "text": contract_text(st.contract), "game": GAME_NAMES[g],
                        "doubling": st.doubling}
        elif st.phase in (PLAY, DONE) and not st.passed_in and st.declarer < 0:
            contract = {"label": "R", "text": "Ramsch", "game": "grand", "doubling": 1}
        return {"phase": PHASE_NAMES[st.phase], "seats": seats, "hand": sorted_cards(st.hands[me], g),
                "auction": calls, "bid": st.bid, "contract": contract,
                "declarer": self.seat_of(env, st.declarer) if st.declarer >= 0 else None,
                "skat": sorted_cards(st.skat, g) if skat_seen else None, "skat_cards": st.skat.bit_count(),
                "trick": trick, "last_trick": last, "tricks_played": st.trick_count}

    def public_event(self, table: Table, event: dict[str, Any], seat: int) -> dict[str, Any]:
        if event["kind"] == "move" and event["seat"] != seat and A.DISCARD <= event["action"] < A.DECLARE:
            return {**event, "action": None, "label": "puts a card into the skat"}
        return event


ADAPTER = SkatAdapter()


def value_steps(st: SkatState, seat_of_position: list[int], names: list[str]) -> dict[str, Any]:
    """The result of a finished deal with the game value worked out step by step (the numbers come
    from ``envs.skat.scoring``, which charged them). Scores are by seat."""
    scores = [0, 0, 0]
    for p in range(3):
        scores[seat_of_position[p]] = st.scores[p]
    steps: list[list[str]] = []
    if st.passed_in:
        return {"kind": "passed in", "summary": "Everyone passed: no game, nobody scores.", "steps": [],
                "scores": scores, "declarer": None, "won": False}
    if st.contract is None:  # Ramsch
        for p in range(3):
            steps.append([names[seat_of_position[p]], f"{st.points[p]} card points, {st.tricks_won[p]} tricks"])
        loser = min(range(3), key=lambda p: st.scores[p])
        summary = f"Ramsch: {names[seat_of_position[loser]]} scores {st.scores[loser]:+d}"
        return {"kind": "ramsch", "summary": summary, "steps": steps, "scores": scores, "declarer": None,
                "won": False}
    o, c, d = st.outcome, st.contract, st.declarer
    who = names[seat_of_position[d]]
    steps.append(["game", f"{contract_text(c)} ({c.label}), declared by {who} ({POSITION_NAMES[d]}) at bid {st.bid}"])
    if c.game == NULL:
        steps.append(["null value", f"{null_value(c)} (fixed)"])
    else:
        base = A.BASE_VALUES[c.game]
        steps.append(["base value", f"{base} ({GAME_NAMES[c.game]})"])
        cards = st.dealt[d] | st.original_skat
        for name, n in multiplier_steps(c, cards, o.declarer_points, o.declarer_tricks):
            steps.append([name, f"+{n}"])
        steps.append(["game value", f"{o.multiplier} x {base} = {o.multiplier * base}"])
    if o.overbid:
        steps.append(["overbid", f"the bid {st.bid} is above the game value: lost, charged at {o.value}"])
    steps.append(["declarer", f"{o.declarer_points} card points (skat included), {o.declarer_tricks} tricks"])
    if o.schwarz:
        steps.append(["schwarz", "one side took every trick"])
    elif o.schneider:
        steps.append(["schneider", "one side took 90 card points or more"])
    steps.append(["result", "won" if o.won else "lost"])
    if o.doubling > 1:
        steps.append(["kontra" if o.doubling == 2 else "kontra and re", f"x {o.doubling}"])
    steps.append(["declarer score", f"{o.declarer_score:+d}" + ("" if o.won else " (a lost game counts double)")])
    if st.rules.scoring == "tournament":
        extra = f"{'+' if o.won else '-'}{WIN_BONUS} for the declarer"
        if not o.won:
            extra += f", +{DEFENDER_BONUS} to each defender"
        steps.append(["Seeger-Fabian", extra])
    summary = f"{who} {'won' if o.won else 'lost'} {contract_text(c)}: {scores[seat_of_position[d]]:+d}"
    return {"kind": "game", "summary": summary, "steps": steps, "scores": scores,
            "declarer": seat_of_position[d], "won": o.won, "contract": c.label, "value": o.value,
            "declarer_points": o.declarer_points, "declarer_tricks": o.declarer_tricks, "doubling": o.doubling}
