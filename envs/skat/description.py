"""Skat as generic code sees it (``envs.games.describe("skat")``): seats, decision kinds, evaluation.

Every table of ``envs.skat.variants`` is evaluated the same way: a duplicate unit is one deal (a
whole list on ``episode="list"`` tables), drawn from ``(seed, unit)`` and replayed with the same
dealer (the last seat: ``player_0`` is forehand) in every seating. The number of seats comes from
the env (``possible_agents``: 3, 4 or 2); at four the seat that deals sits the deal out and is
neither declarer nor defender in the tallies. A list is tallied over its deals (``games`` counts
deals, so ``points_per_game`` stays per deal and ``points_per_list`` per 36 deals).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.games import Column, GameDescription, Metric, fmt
from envs.skat.cards import CARD_NAMES, GRAND, NUM_CARDS, cards_of

DUPLICATE_DEALER = 2  # the dealer of every duplicate deal: player_i then sits at position i


def duplicate_deal(seed: int, unit: int) -> dict[str, Any]:
    """Deal ``unit`` of a match: ``{"hands": [3 hands by position], "skat": ...}`` in card notation."""
    from envs.skat.rules import deal_from_deck

    perm = np.random.default_rng([seed, unit, 1]).permutation(NUM_CARDS).tolist()
    hands, skat = deal_from_deck(perm)
    text = lambda mask: " ".join(CARD_NAMES[c] for c in cards_of(mask))  # noqa: E731
    return {"hands": [text(h) for h in hands], "skat": text(skat)}


class SkatDescription(GameDescription):
    name = "skat"
    title = "Skat"
    env_module = "envs.skat_v0"
    rule_agent = "agents.rule_skat:RuleSkatAgent"
    agent_specs = {"pimc": "agents.pimc:make_pimc"}  # pimc, pimc:worlds=24,question=exact
    openspiel_name = "skat"

    unit = "deal"
    unit_phrase = "duplicate deals"
    games_per_work_item = 96
    fields = ("games", "points", "declared", "declarer_won", "suit", "grand", "null", "passed_in", "defended",
              "defence_won")
    metrics = (
        Metric("points_per_game", "points", "games"),
        Metric("points_per_list", "points", "games", 36.0),  # a 36-game list, the tournament standard
        Metric("declarer_share", "declared", "games"),
        Metric("declarer_win_rate", "declarer_won", "declared"),
        Metric("suit_share", "suit", "declared"),
        Metric("grand_share", "grand", "declared"),
        Metric("null_share", "null", "declared"),
        Metric("passed_in_rate", "passed_in", "games"),
        Metric("defence_win_rate", "defence_won", "defended"),
    )
    headline = "points_per_game"
    headline_phrase = "points per game"
    default_target_ci = 5.0
    rank_by = ("points", True)
    record_columns = ("declarer", "game_type", "won", "passed_in")
    ablation_groups = {"auction": ("bid", "hold", "pass"), "skat": ("pickup", "hand"), "discard": ("discard",),
                       "declare": ("declare",), "kontra": ("kontra", "re"), "play": ("play",)}
    episode_stats_keys = ("passed_in", "ramsch", "declarer_win", "bid", "game_value", "overbid", "hand_game",
                          "declarer_points", "game_type/clubs", "game_type/spades", "game_type/hearts",
                          "game_type/diamonds", "game_type/grand", "game_type/null")

    # SkatZero's split: before the declaration (or Ramsch), declarer, the defender after the declarer,
    # the defender before it.
    num_roles = 4

    def role_of(self, obs: Any) -> Any:
        from envs.skat.observation import DECLARER, OBSERVATION_SIZE

        if obs.shape[1] == OBSERVATION_SIZE:  # the ISkO table
            declarer = obs[:, DECLARER: DECLARER + 3]  # relative one-hot: me, the next seat, the one after
            return (declarer.argmax(dim=1) + 1) * (declarer.sum(dim=1) > 0.5)
        from envs.skat.observation_x import LAYOUTS

        layout = LAYOUTS["skat4" if obs.shape[1] == LAYOUTS["skat4"].size else "skat3x"]
        f, pos = layout.fields["declarer"], layout.fields["position"]
        declarer = obs[:, f.offset: f.offset + f.size]
        slot = declarer.argmax(dim=1)
        if layout.slots == 4:  # seats round the table: the declarer's position, then its distance in play order
            me = obs[:, pos.offset: pos.offset + 3].argmax(dim=1)
            slot = ((me + slot) % 4 - me) % 3
        return (slot + 1) * (declarer.sum(dim=1) > 0.5)  # at two players the opponent is slot 1

    def vector_env(self, num_envs: int, device: str = "cpu", seed: int | None = None, **options: Any) -> Any:
        """The batched engine (``envs.skat.vector``) for the ISkO table and its options (scoring, Kontra,
        Ramsch, dealer), else the AEC loop (``envs.vector.AECVectorEnv``) for the extended tables."""
        from envs.skat.options import validate_options
        from envs.skat.vector import vector_env

        # The engine's own switches are not game options: only the batched engine takes them.
        engine = {k: options.pop(k) for k in ("compile", "validate", "backend") if k in options}
        if not validate_options(**options).classic:
            return super().vector_env(num_envs, device=device, seed=seed, **options)
        return vector_env(num_envs, device=device, seed=seed, **engine, **options)

    def decode(self, vector: np.ndarray) -> Any:
        from envs.skat.observation import decode

        return decode(vector)

    def rules_game(self, **options: Any) -> Any:
        from envs.skat.rules import SkatGame

        return SkatGame(**options)

    match_overrides = ("dealer",)

    def match_options(self, options: dict[str, Any]) -> dict[str, Any]:
        from envs.skat.options import validate_options

        seats = validate_options(**options).players
        return {**options, "dealer": seats - 1}  # at three DUPLICATE_DEALER: player_i sits at position i

    def unit_reset(self, seed: int, unit: int) -> tuple[int | None, dict[str, Any] | None]:
        """The deal of ``duplicate_deal(seed, unit)`` on any table (the env shuffles its own pack with
        that key); the env seed makes a list's later deals the same in every seating too."""
        from envs.games import unit_seed

        return unit_seed(seed, unit), {"deal": {"shuffle": [seed, unit, 1]}}

    def record(self, env: Any, returns: Sequence[float]) -> tuple[tuple[float, ...], dict[str, Any]]:
        raw = env.unwrapped
        if raw.series is not None:  # a list: its deals, tallied together
            return tuple(float(r) for r in returns), _list_details(raw)
        st = raw.state
        by_seat = tuple(raw.seat_scores())
        t = raw.table
        declarer = t.seat_of(st.declarer, raw.dealer) if st.declarer >= 0 else -1
        won = bool(st.outcome.won) if st.outcome is not None and declarer >= 0 else False
        details = {"declarer": declarer, "game_type": st.contract.game if st.contract is not None else -1,
                   "won": won, "passed_in": bool(st.passed_in)}
        if t.seats == 4:
            details["sitting_out"] = raw.dealer
        return by_seat, details

    def tally(self, returns: Sequence[float], details: dict[str, Any], seat: int) -> tuple[float, ...]:
        if "deals" in details:
            return tuple([details["deals"], returns[seat], *(details[f][seat] for f in self.fields[2:7]),
                          details["passed_in"], details["defended"][seat], details["defence_won"][seat]])
        row = [0.0] * len(self.fields)
        row[0], row[1], row[7] = 1.0, returns[seat], float(details["passed_in"])
        declarer, game_type = details["declarer"], details["game_type"]
        if declarer == seat:
            row[2], row[3] = 1.0, float(details["won"])
            row[4 if game_type < GRAND else 5 if game_type == GRAND else 6] = 1.0
        elif declarer >= 0 and seat != details.get("sitting_out", -1):
            row[8], row[9] = 1.0, float(not details["won"])
        return tuple(row)

    def columns(self) -> list[Column]:
        def types(r: dict[str, Any]) -> str:
            return "/".join("-" if r[k] != r[k] else f"{100 * r[k]:.0f}" for k in ("suit_share", "grand_share",
                                                                                   "null_share"))

        return [Column("points/game [95% CI]", 24, lambda r: fmt(r, "points_per_game")),
                Column("per 36-game list", 24, lambda r: fmt(r, "points_per_list", 0)),
                Column("declared", 8, lambda r: f"{100 * r['declarer_share']:.1f}%"),
                Column("declarer won", 22, lambda r: fmt(r, "declarer_win_rate", 1, True)),
                Column("suit/grand/null", 15, types),
                Column("passed in", 9, lambda r: f"{100 * r['passed_in_rate']:.1f}%"),
                Column("defence won", 11, lambda r: f"{100 * r['defence_win_rate']:.1f}%")]

    def plot_panels(self) -> list[tuple[str, str, float]]:
        return [("points_per_game", "Seeger-Fabian points per game", 1.0),
                ("declarer_win_rate", "declarer win rate (%)", 100.0)]

    def pair_extras(self, diff: Any, second: Any) -> dict[str, Any]:
        return {"diff_points_per_list": 36 * diff.mean.value, "list_lo": 36 * diff.mean.low,
                "list_hi": 36 * diff.mean.high}

    def pair_text(self, row: dict[str, Any]) -> str:
        return f"per list {row['diff_points_per_list']:+.0f}"

    def table_note(self, seats: int) -> str:
        return ""


def _list_details(raw: Any) -> dict[str, Any]:
    """A list's deals added up by seat (the record columns: declarer -1, game_type -1, won the declarer's wins)."""
    n = raw.table.seats
    out: dict[str, Any] = {k: [0.0] * n for k in ("declared", "declarer_won", "suit", "grand", "null", "defended",
                                                     "defence_won")}
    passed_in = 0.0
    for entry in raw.deal_log:
        passed_in += entry["passed_in"]
        d = entry["declarer"]
        if d < 0:
            continue
        g = entry["game_type"]
        out["declared"][d] += 1
        out["declarer_won"][d] += entry["won"]
        out["suit" if g < GRAND else "grand" if g == GRAND else "null"][d] += 1
        for seat in entry["defenders"]:
            out["defended"][seat] += 1
            out["defence_won"][seat] += not entry["won"]
    won = int(sum(out["declarer_won"]))
    return {**out, "deals": float(len(raw.deal_log)), "passed_in": passed_in, "declarer": -1, "game_type": -1,
            "won": won}
