"""The value of each first move of a fixed opening hand, by the search's own rollouts and by whole games.

A check of what the search sees, independent of the world sampler: ``deals`` random deals that give seat 0
(first to act, the dealer on its right) ``hand`` and turn up ``up``; every legal first move is played on the
same deal (common random numbers), then every seat plays the rule agent's heuristics (``rollout.rule_move``).
Printed per move: the search's leaf value at the end of the round (``leaf_value``: the chance to win the
game from the lives left), the chance to lose a life and to blitz this round, and the share of whole games
won; then the paired differences with their standard errors::

    python -m agents.search_thirtyone.probe --hand "HA HK H9" --up C3 --players 4 --deals 4000
    python -m agents.search_thirtyone.probe --hand "HA HK H2" --up C3 --players 2 --option lives=1 \\
        --option free_ride=false
"""

from __future__ import annotations

import argparse
import random
import sys

import numpy as np
import yaml

from agents.search_thirtyone import leaf_value
from agents.search_thirtyone.rollout import play_round, rule_move
from envs.thirtyone.cards import DECKS, card_name
from envs.thirtyone.phases import OVER
from envs.thirtyone.rules import ThirtyOneGame

COLUMNS = ("leaf", "lose a life", "own blitz", "game won")


def probe(hand: list[str], up: str, players: int, deals: int, seed: int = 0, **options) -> dict[str, np.ndarray]:
    """Per legal first move: an array (deals played, 4) of the ``COLUMNS``. Deals in which the round ends
    before seat 0 moves (a dealt blitz) are left out."""
    game = ThirtyOneGame(num_players=players, reward_scheme="win", **options)
    rng = random.Random(seed)
    names = set(hand) | {up}
    rest = [card_name(c) for c in DECKS[game.options.deck] if card_name(c) not in names]
    full = game.options.lives + (1 if game.options.free_ride else 0)
    rows: dict[str, list] = {}
    for d in range(deals):
        rng.shuffle(rest)
        hands = [hand] + [rest[3 * r - 3 : 3 * r] for r in range(1, players)]
        deck: list[str] = [""] * (3 * players + 1)
        for seat in range(players):
            deck[seat], deck[seat + players], deck[seat + 2 * players] = hands[seat]
        deck[3 * players] = up
        deck += rest[3 * players - 3 :]
        first = game.new_initial_state(seed=d, deck=deck, dealer=players - 1)
        if first.current_player != 0 or first.pub_version != 1:
            continue
        for action in first.legal_actions():
            s = first.clone()
            s.apply_action(action)
            if s.pub_version == 1:
                play_round(s)
            own_blitz = s.last_round["kind"] == "blitz" and s.tokens[0] == full
            row = [leaf_value(s), s.tokens[0] < full, own_blitz]
            while s.phase != OVER:
                s.apply_action(rule_move(s))
            rows.setdefault(game.action_name(action), []).append(row + [s.payoff[0] > 0])
    return {k: np.array(v, dtype=float) for k, v in rows.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.search_thirtyone.probe", description=__doc__.split("\n\n")[0])
    ap.add_argument("--hand", required=True, help='seat 0\'s three cards, e.g. "HA HK H9"')
    ap.add_argument("--up", required=True, help="the turned-up card, e.g. C3")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a Thirty-One game option")
    args = ap.parse_args(argv)
    try:
        options = {k: yaml.safe_load(v) for k, _, v in (o.partition("=") for o in args.option)}
        values = probe(args.hand.split(), args.up, args.players, args.deals, args.seed, **options)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    n = len(next(iter(values.values())))
    print(f"{n} deals: {args.hand} with {args.up} up, {args.players} players, options {options}")
    print(f"{'move':8s}" + "".join(f"{c:>14s}" for c in COLUMNS))
    for name, v in values.items():
        print(f"{name:8s}" + "".join(f"{x:14.4f}" for x in v.mean(axis=0)))
    names = list(values)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = values[a] - values[b]
            se = d.std(axis=0, ddof=1) / np.sqrt(n)
            print(f"{a} - {b}: leaf {d[:, 0].mean():+.4f} +- {se[0]:.4f}, "
                  f"game won {d[:, 3].mean():+.4f} +- {se[3]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
