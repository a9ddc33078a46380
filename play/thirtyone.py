"""Thirty-One at the play table: one table "deal" is a whole game (rounds until one player is left,
or a points game to its target); each round ends in a showdown that the front ends show."""

from __future__ import annotations

from typing import Any

from envs.thirtyone import actions as A
from envs.thirtyone.cards import CARD_NAMES, RANK, SUIT
from envs.thirtyone.env import raw_env
from envs.thirtyone.options import CHOICES, OPTION_NAMES
from envs.thirtyone.rules import PHASE_NAMES, ThirtyOneState
from play.core import Move, Table

# Options a table may set (the episode is always a whole game; the reward scheme does not matter here).
OPTIONS = tuple(o for o in OPTION_NAMES if o not in ("episode", "reward_scheme", "max_turns", "first_dealer"))
KEYS = {A.DRAW: "d", A.TAKE: "t", A.KNOCK: "k", A.THROW_DOWN: "x", A.LOOK: "l"}


def rules_state(env: Any) -> ThirtyOneState:
    """The env's rules state (``game_state``; ``state`` in newer envs)."""
    st = getattr(env, "game_state", None)
    return st if isinstance(st, ThirtyOneState) else env.state


def sorted_cards(cards: list[int]) -> list[str]:
    """Grouped by suit, highest first."""
    return [CARD_NAMES[c] for c in sorted(cards, key=lambda c: (SUIT[c], -RANK[c]))]


def move_of(action: int, st: ThirtyOneState) -> Move:
    if action < A.DRAW:
        return Move(action, f"discard {CARD_NAMES[action]}", CARD_NAMES[action], CARD_NAMES[action])
    if action == A.TAKE:
        top = CARD_NAMES[st.pile[-1]] if st.pile else "?"
        return Move(action, f"take {top} from the discard pile", "t")
    labels = {A.DRAW: "draw from the stock", A.KNOCK: "knock", A.THROW_DOWN: "throw down (everyone shows at once)",
              A.LOOK: "look at the hand"}
    return Move(action, labels[action], KEYS[action])


def showdown(st: ThirtyOneState, names: list[str]) -> dict[str, Any]:
    """The last round's showdown: every hand, its value, the lives lost (or points won)."""
    r = st.last_round
    key = "lives_lost" if "lives_lost" in r else "points"
    rows = [{"seat": s, "name": names[s], "hand": sorted_cards(h), "value": v, key: d}
            for s, h, v, d in zip(r["seats"], r["hands"], r["values"], r[key], strict=True)]
    knocker = r["knocker"] if r["knocker"] >= 0 else None
    return {"round": r["round"], "kind": r["kind"], "knocker": knocker, "void": r["void"], "key": key,
            "rows": rows, "eliminated": list(r["eliminated"])}


class ThirtyOneAdapter:
    game = "thirtyone"

    def make_env(self, options: dict[str, Any]) -> Any:
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown Thirty-One table option(s) {unknown}; valid: {list(OPTIONS)}")
        return raw_env(**options, episode="game")

    def start(self, table: Table) -> None:
        env, deal = table.env, table.deal
        deal.seed = table.seed + table.deals_played  # game k of the session is reset with seed S + k
        env.reset(seed=deal.seed)
        st = rules_state(env)
        deal.start = {"dealer": st.dealer}
        deal.frames.append(self.frame(table, "the deal, round 1"))

    def to_act(self, env: Any) -> int | None:
        st = rules_state(env)
        return None if st.is_terminal() else st.current_player

    def over(self, env: Any) -> bool:
        return rules_state(env).is_terminal()

    def moves(self, env: Any, seat: int) -> list[Move]:
        st = rules_state(env)
        if st.is_terminal() or st.current_player != seat:
            return []
        order = {c: i for i, c in enumerate(sorted_cards(st.hands[seat]))}
        return sorted((move_of(a, st) for a in st.legal_actions()), key=lambda m: order.get(m.card, -1))

    def after_step(self, table: Table, seat: int, action: int) -> list[dict[str, Any]]:
        env = table.env
        st = rules_state(env)
        label = move_of(action, st).label.replace(" from the discard pile", "")
        last = st.last_round
        before = set(st.hands[seat])
        tokens, points = list(st.tokens), list(st.scores)
        env.step(action)  # a ValueError naming the action if it is illegal
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)  # an eliminated player leaves the table (PettingZoo's dead step)
        event: dict[str, Any] = {"kind": "move", "seat": seat, "action": action, "label": label}
        if action == A.DRAW and st.last_round is last:
            drawn = set(st.hands[seat]) - before
            event["drawn"] = CARD_NAMES[drawn.pop()] if drawn else None
        events = [event]
        if st.last_round is not last:
            sd = showdown(st, table.names)
            events.append({"kind": "round_end", "showdown": sd})
            rows = table.score["rows"]
            for s in range(st.n):  # from the counters: a blitz on the next deal ends two rounds in one step
                rows[s][1] += st.scores[s] - points[s] if st.opts.scoring == "points" else tokens[s] - st.tokens[s]
            table.deal.frames.append({**self.frame(table, f"round {sd['round']}: {sd['kind']}"), "showdown": sd})
        elif action != A.DRAW and action != A.TAKE and action != A.LOOK:
            table.deal.frames.append(self.frame(table, f"{table.names[seat]}: {label}"))
        return events

    def frame(self, table: Table, caption: str) -> dict[str, Any]:
        st = rules_state(table.env)
        return {"caption": caption, "round": st.round_no,
                "hands": [sorted_cards(st.hands[s]) if st.alive[s] else [] for s in range(st.n)],
                "values": [st.hand_value(s) if st.alive[s] else None for s in range(st.n)],
                "top": CARD_NAMES[st.pile[-1]] if st.pile else None, "stock": len(st.stock)}

    def new_score(self, table: Table) -> dict[str, Any]:
        n = len(table.env.possible_agents)
        second = "points" if rules_state_options(table.env).scoring == "points" else "lives lost"
        return {"columns": ["games won", second], "rows": [[0, 0] for _ in range(n)], "deals": 0}

    def finish(self, table: Table) -> dict[str, Any]:
        st = rules_state(table.env)
        returns = st.returns()
        if st.opts.scoring == "points":
            top = max(st.scores)
            winner = st.scores.index(top)
        else:
            winner = next((s for s in range(st.n) if st.alive[s]), max(range(st.n), key=lambda s: returns[s]))
        table.score["rows"][winner][0] += 1
        table.score["deals"] += 1
        summary = f"{table.names[winner]} won the game after {st.round_no} rounds"
        return {"kind": "game", "summary": summary, "winner": winner, "rounds": st.round_no, "returns": returns,
                "showdown": showdown(st, table.names) if st.last_round else None}

    def view(self, table: Table, seat: int) -> dict[str, Any]:
        st = rules_state(table.env)
        o = st.opts
        over = st.is_terminal()
        seats = []
        for s in range(st.n):
            seats.append({"seat": s, "name": table.names[s], "alive": st.alive[s], "cards": len(st.hands[s]),
                          "lives": st.lives(s), "on_county": st.on_county(s), "score": st.scores[s],
                          "knocked": s == st.knocker, "dealer": s == st.dealer,
                          "hand": sorted_cards(st.hands[s]) if s == seat else None})
        mine = st.hands[seat] if st.alive[seat] else []
        return {"phase": PHASE_NAMES[st.phase], "seats": seats, "hand": sorted_cards(mine),
                "hand_value": st.hand_value(seat) if mine else None, "round": st.round_no,
                "top": CARD_NAMES[st.pile[-1]] if st.pile and not over else None, "pile": len(st.pile),
                "stock": len(st.stock), "knocker": st.knocker if st.knocker >= 0 else None,
                "locked": CARD_NAMES[st.locked] if st.locked >= 0 else None, "scoring": o.scoring,
                "last_round": showdown(st, table.names) if st.last_round else None}

    def public_event(self, table: Table, event: dict[str, Any], seat: int) -> dict[str, Any]:
        if "drawn" in event and event["seat"] != seat:
            return {k: v for k, v in event.items() if k != "drawn"}
        return event


def rules_state_options(env: Any) -> Any:
    return env.game.options


ADAPTER = ThirtyOneAdapter()
OPTION_CHOICES = CHOICES
