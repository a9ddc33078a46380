"""Thirty-One at the play table, every game of ``envs.thirtyone.variants`` (scat, cut_throat,
banking with its widow and pot, switch, stop_the_bus, schwimmen, no_elimination): one table "deal"
is a whole game (rounds until one player is left, or a points game to its target); each round ends
in a showdown the front ends show.

Moves and keys: ``play.thirtyone.moves``; the view of a seat and the showdowns: ``play.thirtyone.view``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from envs.thirtyone import actions as A
from envs.thirtyone.cards import CARD_NAMES
from envs.thirtyone.env import raw_env
from envs.thirtyone.options import CHOICES, MAX_PLAYERS, ThirtyOneOptions
from envs.thirtyone.rules import ThirtyOneState
from envs.thirtyone.settle import tokens_won
from envs.thirtyone.variants import VARIANTS
from play.core import BaseAdapter, Flag, Move, Table, option_fields
from play.thirtyone.moves import ALIASES, KEYS_HELP, move_of, moves
from play.thirtyone.view import frame, showdown, standing, view

# The table plays whole games; the reward scheme, the episode and the first dealer are the env's business.
OPTION_NAMES = ("variant",) + tuple(f.name for f in dataclasses.fields(ThirtyOneOptions)
                                    if f.name not in ("variant", "episode", "reward_scheme", "first_dealer"))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(ThirtyOneOptions)}
_CHOICES: dict[str, tuple[Any, ...]] = {**CHOICES, "num_players": tuple(range(2, MAX_PLAYERS + 1))}


def state(table: Table) -> ThirtyOneState:
    return table.env.state


class ThirtyOneAdapter(BaseAdapter):
    game = "thirtyone"
    title = "Thirty-One"
    deal_word = "game"
    option_names = OPTION_NAMES
    flags = (Flag("--players", "num_players", {"type": int, "help": "2..9 (default 4)"}),
             Flag("--lives", "lives", {"type": int, "help": "lives (tokens) per player (default 3)"}))
    keys_help = KEYS_HELP
    aliases = ALIASES

    def make_env(self, options: dict[str, Any]) -> Any:
        return raw_env(**self.check_options(options), episode="game")

    def setup(self) -> dict[str, Any]:
        options = option_fields(OPTION_NAMES[1:], _DEFAULTS, _CHOICES)
        variants = [{"name": v.name, "summary": v.title, "options": dict(v.options)} for v in VARIANTS.values()]
        return {"title": self.title, "variants": variants, "options": options}

    # --- the flow ------------------------------------------------------------------------------
    def start(self, table: Table) -> None:
        env, deal = table.env, table.deal
        deal.seed = table.seed + table.deals_played  # game k of the session is reset with seed S + k
        env.reset(seed=deal.seed)
        st = state(table)
        deal.start = {"dealer": st.dealer}
        deal.frames.append(frame(table, st, "the deal, round 1"))

    def to_act(self, table: Table) -> int | None:
        st = state(table)
        return None if st.is_terminal() else st.current_player

    def over(self, table: Table) -> bool:
        return state(table).is_terminal()

    def moves(self, table: Table, seat: int) -> list[Move]:
        st = state(table)
        if st.is_terminal() or st.current_player != seat:
            return []
        return moves(st, seat)

    def after_step(self, table: Table, seat: int, action: int) -> list[dict[str, Any]]:
        env = table.env
        st = state(table)
        move = move_of(action, st, seat)
        last = st.last_round
        before = set(st.hands[seat])
        env.step(action)  # a ValueError naming the action if it is illegal
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)  # an eliminated player leaves the table (PettingZoo's dead step)
        label = move.label.replace(" from the discard pile", "")
        event: dict[str, Any] = {"kind": "move", "seat": seat, "action": action,
                                 "text": f"{table.names[seat]}: {label}"}
        if st.last_round is last and (action == A.DRAW or (move.card or "").startswith("#")):
            got = set(st.hands[seat]) - before
            if got:
                event["note"] = f"You {'draw' if action == A.DRAW else 'pick'} {CARD_NAMES[got.pop()]}"
        events = [event]
        if st.last_round is not last:
            sd = showdown(st, table.names)
            events.append({"kind": "round_end", "showdown": sd, "text": sd["title"]})
            table.deal.frames.append({**frame(table, st, sd["title"]), "showdown": sd})
        elif action not in (A.DRAW, A.TAKE, A.LOOK) and not A.PICK <= action < A.SWAP:
            table.deal.frames.append(frame(table, st, f"{table.names[seat]}: {label}"))
        return events

    # --- results and the session score --------------------------------------------------------
    def new_score(self, table: Table) -> dict[str, Any]:
        n = len(table.env.possible_agents)
        second = {"points": "points", "pot": "tokens won"}.get(table.env.game.options.scoring, "lives lost")
        return {"columns": ["games won", second], "rows": [[0, 0] for _ in range(n)], "deals": 0}

    def finish(self, table: Table) -> dict[str, Any]:
        st = state(table)
        returns = st.returns()
        if st.opts.scoring == "points":
            winner = st.scores.index(max(st.scores))
        elif sum(st.alive) == 1:
            winner = st.alive.index(True)
        else:  # max_rounds reached: the most lives / tokens
            winner = max((s for s in range(st.n) if st.alive[s]), key=lambda s: (st.tokens[s], returns[s]))
        rows = table.score["rows"]
        rows[winner][0] += 1
        won = tokens_won(st)
        for s in range(st.n):  # the game's points, tokens won, or lives lost (the free ride counts as one)
            rows[s][1] += (st.scores[s] if st.opts.scoring == "points" else int(won[s]) if st.opts.scoring == "pot"
                           else table.env.game.start_tokens - st.tokens[s])
        table.score["deals"] += 1
        steps = [[table.names[s], standing(st, s) if st.alive[s] else "out"] for s in range(st.n)]
        if won is not None and st.opts.reward_scheme == "tokens":
            steps.append(["tokens", ", ".join(f"{table.names[s]} {w:+g}" for s, w in enumerate(won))])
        summary = f"{table.names[winner]} won the game after {st.round_no} rounds"
        return {"kind": "game", "summary": summary, "steps": steps, "scores": None, "winner": winner,
                "rounds": st.round_no, "returns": returns,
                "showdown": showdown(st, table.names) if st.last_round else None}

    def view(self, table: Table, seat: int) -> dict[str, Any]:
        return view(table, state(table), seat)


ADAPTER = ThirtyOneAdapter()
