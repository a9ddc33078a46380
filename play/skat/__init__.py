"""Skat at the play table: every table of ``envs.skat.variants`` (three or four players, two with a
dummy, Officers' Skat, Tournee, Ramsch games, Supra, conceding, Revolution, Sechserskat,
Idiotenskat, Raeuberskat, lists and Bierskat). One table "deal" is one Skat deal; a list goes on
in the env from one deal to the next (``start`` resets the env only when its episode is over).

Moves and keys: ``play.skat.moves``; the view of a seat: ``play.skat.view``; the result step by
step: ``play.skat.result``; records: ``play.skat.records``; the solver's question:
``play.skat.solver``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from envs.bitset import cards_of
from envs.skat import actions as A
from envs.skat.env import raw_env
from envs.skat.options import DUMMY_MODES, EPISODES, LIST_REWARDS, RAMSCH_SCORINGS, RAMSCH_TENS, SkatOptions
from envs.skat.rules import DONE, PLAY
from envs.skat.scoring import SCORING_SYSTEMS
from envs.skat.variants import VARIANTS
from play.core import BaseAdapter, Deal, Flag, Move, Table, option_fields
from play.skat import records, solver
from play.skat.moves import ALIASES, KEYS_HELP, moves
from play.skat.result import result, scores_by_seat
from play.skat.view import frame, plays_dummy, position_of, state, trick_cards, view, who

# Every option of envs.skat.options but the dealer (a table rotates it): the variant first.
OPTION_NAMES = ("variant",) + tuple(f.name for f in dataclasses.fields(SkatOptions) if f.name not in ("dealer",
                                                                                                     "variant"))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(SkatOptions)}
_CHOICES: dict[str, tuple[Any, ...]] = {
    "scoring": SCORING_SYSTEMS, "players": (3, 4, 2), "pack": (32, 36), "revolution_exchange": tuple(range(11)),
    "ramsch_scoring": RAMSCH_SCORINGS, "ramsch_tens": RAMSCH_TENS, "dummy": (None, *DUMMY_MODES),
    "episode": EPISODES, "list_rewards": LIST_REWARDS,
}
_NUMBERS = ("list_deals", "target_score")  # a positive integer or none


class SkatAdapter(BaseAdapter):
    game = "skat"
    title = "Skat"
    deal_word = "deal"
    option_names = OPTION_NAMES
    flags = (Flag("--players", "players", {"type": int, "help": "3, 4 (the dealer sits out) or 2 (with dummy=...)"}),
             Flag("--scoring", "scoring", {"choices": SCORING_SYSTEMS,
                                           "help": "tournament (Seeger-Fabian) or classic"}),
             Flag("--kontra", "kontra", {"action": "store_const", "const": True,
                                         "help": "defenders may double (Kontra), the declarer redouble"}),
             Flag("--ramsch", "ramsch", {"action": "store_const", "const": True,
                                         "help": "a passed-in deal is played as Ramsch"}))
    keys_help = KEYS_HELP
    aliases = ALIASES

    def make_env(self, options: dict[str, Any]) -> Any:
        return raw_env(**self.check_options(options))

    def coerce(self, name: str, value: Any) -> Any:
        if name == "sequence" and isinstance(value, str):  # "DHSCGN" or "D H S C G N"
            return tuple(value.replace(",", " ").split()) if " " in value or "," in value else tuple(value)
        return value

    def setup(self) -> dict[str, Any]:
        """The web page's choices: the variants and every option (values are checked by the env)."""
        options = option_fields(OPTION_NAMES[1:], _DEFAULTS, _CHOICES, _NUMBERS)
        variants = [{"name": v.name, "summary": v.summary,
                     "options": {k: list(x) if isinstance(x, tuple) else x for k, x in v.options.items()}}
                    for v in VARIANTS.values()]
        return {"title": self.title, "variants": variants, "options": options}

    def agent_unfit(self, name: str, env: Any) -> str | None:
        if name == "pimc" and not env.table.classic:
            return "pimc plays the three-player table of the International Skat Order only (no variant options)"
        return None

    def agent_label(self, name: str) -> str:
        return {"pimc": "pimc (search: sampled deals solved double dummy)"}.get(name, name)

    # --- the flow ------------------------------------------------------------------------------
    def start(self, table: Table) -> None:
        env, deal = table.env, table.deal
        running = bool(env.agents) and not any(env.terminations.values())
        if table.deals_played == 0:
            env.reset(seed=table.seed)
            deal.seed = table.seed
        elif not running or env.state.phase == DONE:
            env.reset()
        st = env.state
        deal.notes["state"] = st
        deal.start = records.deal_start(env, st)
        deal.frames.append(frame(table, "the deal"))
        if st.phase == PLAY:
            self._play_starts(table)

    def to_act(self, table: Table) -> int | None:
        st = state(table)
        if st.phase == DONE:
            return None
        return table.env.possible_agents.index(table.env.agent_at(st.current_player))

    def over(self, table: Table) -> bool:
        return state(table).phase == DONE

    def moves(self, table: Table, seat: int) -> list[Move]:
        if self.to_act(table) != seat:
            return []
        return moves(state(table))

    def after_step(self, table: Table, seat: int, action: int) -> list[dict[str, Any]]:
        st = state(table)
        p, leader, tricks, phase = st.current_player, st.leader, st.trick_count, st.phase
        played, last = list(st.played), st.last_trick
        move = next((m for m in moves(st) if m.action == action), None)
        table.env.step(action)  # raises a ValueError naming the action if it is illegal
        label = move.label if move is not None else A.action_name(action)
        actor = who(table, p) + (f" ({table.names[seat]})" if who(table, p) != table.names[seat] else "")
        event: dict[str, Any] = {"kind": "move", "seat": seat, "action": action, "text": f"{actor}: {label}"}
        if A.PLAY_SLOT <= action < A.DISCARD_SLOT:  # an unseen card played by slot: now everybody sees it
            c = st.table.pack.names[cards_of(st.played[p] & ~played[p])[0]]
            event["text"], event["note"] = f"{actor}: plays {c}", f"{label}: it was {c}"
        elif A.card_of_discard(action) >= 0 or A.DISCARD_SLOT <= action < A.DECLARE_EXTRA:
            event["text"], event["note"] = f"{actor}: puts a card into the skat", f"You: {label}"
        elif A.GIVE <= action < A.PLAY_SLOT:
            event["text"], event["note"] = f"{actor}: gives a card to the partner", f"You: {label}"
        events = [event]
        if st.trick_count == tricks + 1 and st.last_trick and st.last_trick != last:
            cards = trick_cards(table, leader, st.last_trick)
            text = " ".join(c["card"] for c in cards)
            events.append({"kind": "trick", "number": st.trick_count, "cards": cards, "winner": who(table, st.leader),
                           "text": f"Trick {st.trick_count}: {text} -> {who(table, st.leader)}"})
            table.deal.frames.append(frame(table, f"trick {st.trick_count} to {who(table, st.leader)}", cards,
                                           who(table, st.leader)))
        elif st.phase == DONE and st.x is not None and st.x.ending != "played":
            ending = f"{st.x.ending} by {who(table, st.x.ended_by)}"
            events.append({"kind": "trick", "text": f"The deal ends early: {ending}"})
            table.deal.frames.append(frame(table, f"the deal ends early: {ending}"))
        if phase != PLAY and st.phase == PLAY:
            self._play_starts(table)
        return events

    def _play_starts(self, table: Table) -> None:
        deal = table.deal
        if "play_start" in deal.notes:
            return
        st = state(table)
        deal.notes["play_start"] = st.clone() if st.contract is not None else None
        deal.frames.append(frame(table, "before the first trick"))

    # --- results and the session score --------------------------------------------------------
    def new_score(self, table: Table) -> dict[str, Any]:
        n = len(table.env.possible_agents)
        return {"columns": ["points", "declared", "won"], "rows": [[0, 0, 0] for _ in range(n)], "deals": 0}

    def finish(self, table: Table) -> dict[str, Any]:
        st = state(table)
        out = result(table, st)
        rows = table.score["rows"]
        for seat, score in enumerate(scores_by_seat(table, st)):
            rows[seat][0] += score
        if out.get("declarer") is not None:
            rows[out["declarer"]][1] += 1
            rows[out["declarer"]][2] += int(out["won"])
        table.score["deals"] += 1
        table.deal.frames.append(frame(table, "the end: " + out["summary"]))
        return out

    def view(self, table: Table, seat: int) -> dict[str, Any]:
        v = view(table, seat)
        v["plays_dummy"] = plays_dummy(table, seat)
        v["position"] = position_of(table, seat)
        return v

    # --- after a deal ------------------------------------------------------------------------------
    def downloads(self, table: Table, deal: Deal) -> list[str]:
        return ["json"] + (["iss"] if records.iss_possible(table, deal) else [])

    def record(self, table: Table, deal: Deal, fmt: str) -> str:
        if fmt != "iss":
            raise ValueError(f"Skat deals download as json or iss, not {fmt!r}")
        return records.deal_iss(table, deal)

    def question(self, table: Table, deal: Deal) -> str | None:
        return solver.question(table, deal)

    def analyse(self, table: Table, deal: Deal) -> dict[str, Any]:
        answer = dict(solver.analyse(table, deal))
        if answer.get("line"):
            answer["line_text"] = solver.line_text(answer["line"])
        return answer


ADAPTER = SkatAdapter()
