"""Rule-based Thirty-One baseline: plays sensibly from the observation dict of its seat alone.

Heuristics (all from what the seat can see, decoded with ``envs.thirtyone.observation.decode``):

* **Never misses a blitz.** If the discard top makes 31 with two of its cards it takes it; with
  four cards in hand it always keeps a 31.
* **Knocks on a threshold** (``agents.rule_thirtyone_knock``) that depends on the number of players
  still in and how far the round is: on the first lap ``KNOCK_FIRST_LAP[players]`` (21 with 2
  players down to 17 with 7 or more: early, the others' hands are still random and weak, and more
  players make it likelier that somebody is lower), then 3 more per lap (the others have improved
  their hands), capped at ``KNOCK_CAP`` = 28. On its last life (on the county, or one life without
  the free ride) it knocks one point earlier, to end the round before the others improve. It never
  knocks below the ``min_knock_score`` option (the mask forbids it anyway) and declines the
  throw-down.
* **Takes the discard when it improves the hand**: it takes the top card if keeping it with the
  best two of its cards is worth more than the hand now; otherwise it draws from the stock.
* **Keeps the suit it is building**: it discards the card whose removal leaves the best hand; among
  equal hands it keeps the most cards of one suit (the suit it is building) and the highest cards
  of that suit, and throws the card that feeds the next player least (a low card, and not of a
  suit the next player was seen taking from the discard pile). Remaining ties are broken at
  random (seeded).

Games with cards on the table (the variants Banking, Switch, Stop the Bus, Schwimmen; the table
layout of ``envs.thirtyone.observation_table``) add, with the same discard rule:

* **Takes improving table cards**: it compares every visible exchange (a face-up table card with
  its best discard, a whole face-up table hand, the discard top) with its hand and makes the best
  one that improves it; a widow exchange stops when nothing improves. Where a turn must change
  something (the pool, Switch) and nothing improves, Switch renews a table hand face up (a look at
  new cards that ends the turn), else it makes the exchange that costs least.
* **Knocks on a threshold**: in 31-count games the one above, 2 points higher where every turn
  sees table cards (the pool, Switch) or nobody loses lives (the pot game); with brag rankings a
  pair of eights on the first lap, a pair of queens on the second, then a flush.
* The Switch dealer keeps the better of its two hands; at a Switch restart offer it restarts when
  its hand is the lowest shown (it would lose a life).
"""

from __future__ import annotations

import numpy as np

from agents.base import ArrayAgent, Observation
from agents.rule_thirtyone_arrays import act_arrays
from agents.rule_thirtyone_knock import KNOCK_BRAG, KNOCK_CAP, KNOCK_TABLE_BONUS, knock_threshold
from envs.thirtyone.actions import (
    DRAW,
    KEEP,
    KNOCK,
    LOOK,
    PICK,
    RENEW,
    RESTART,
    SCORE,
    STOP,
    SWAP,
    TAKE,
    THROW_DOWN,
)
from envs.thirtyone.brag import brag_value
from envs.thirtyone.cards import SUIT, VALUE
from envs.thirtyone.layout import OBS_SIZE
from envs.thirtyone.observation import decode
from envs.thirtyone.scoring import hand_value


class RuleThirtyOneAgent(ArrayAgent):
    """Baseline for Thirty-One; see the module docstring for its heuristics."""

    game = "thirtyone"
    name = "rule"
    shareable = True  # no per-deal state (its generator only breaks ties): one instance serves every seat
    array_size = OBS_SIZE  # classic-layout rows go through the batched player

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("RuleThirtyOneAgent.act called with an empty action mask (no legal action)")
        if legal.size == 1:
            return int(legal[0])
        info = decode(observation)
        if mask[LOOK] or mask[THROW_DOWN]:
            return LOOK if mask[LOOK] else THROW_DOWN
        if "table" in info:
            action = self._table_game(info, mask, [int(a) for a in legal])
        elif mask[DRAW] or mask[TAKE]:
            action = self._turn(info, mask)
        else:
            action = self._discard(info, [int(a) for a in legal])
        return action if mask[action] else int(legal[self.rng.integers(legal.size)])

    def _act_rows(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Classic-layout games together in one compiled loop (``agents.rule_thirtyone_arrays``);
        ``act_arrays`` sends games with cards on the table to ``act`` one by one."""
        return act_arrays(observations, masks, self.rng)

    # ----------------------------------------------------------------- helpers
    def _value(self, cards: list[int], info: dict) -> float:
        if info.get("ranking") == "brag":
            return float(brag_value(cards))
        return hand_value(cards, three_of_a_kind=info["three_of_a_kind"], three_aces=info["three_aces"],
                          straight_flush=info.get("straight_flush"))

    def _best_with(self, hand: list[int], card: int, info: dict) -> float:
        """The best three-card hand of ``hand`` + ``card``, keeping ``card``."""
        return max(self._value([card] + hand[:i] + hand[i + 1 :], info) for i in range(len(hand)))

    def _knock_now(self, info: dict, now: float) -> bool:
        players = max(info["active"], 2)
        lap = int(info["lap"] + 1e-6)
        if info["ranking"] == "brag":
            return now >= KNOCK_BRAG[min(lap, len(KNOCK_BRAG) - 1)]
        last_life = info["on_county"][0] or (info["lives"][0] <= 1e-6)
        bonus = KNOCK_TABLE_BONUS if info["exchange"] in ("pool", "switch") or info["pot_game"] else 0
        return now >= min(knock_threshold(players, lap, last_life) + bonus, KNOCK_CAP)

    def _table_game(self, info: dict, mask: np.ndarray, legal: list[int]) -> int:
        """A decision of a game with cards on the table (see the module docstring)."""
        hand, table, phase = info["hand"], info["table"], info["table_phase"]
        if phase == "choose":  # the dealer sees its second hand in slots 1..3
            return SWAP if self._value(table[:3], info) > self._value(hand, info) else KEEP
        if phase == "restart":
            mine = self._value(hand, info)
            shown = [self._value(cards, info) for cards in info["held_by"][1:] if len(cards) == 3]
            return RESTART if shown and mine <= min(shown) else SCORE
        if info["phase"] == "discard":  # after a draw, a take or a pick
            return self._discard(info, legal)
        now = self._value(hand, info)
        if mask[KNOCK] and self._knock_now(info, now):
            return KNOCK
        moves: list[tuple[float, int]] = []  # (value after the move, action) of every visible exchange
        for j, card in enumerate(table):
            if mask[PICK + j] and card >= 0 and not info["face_down"][j]:
                moves.append((self._best_with(hand, card, info), PICK + j))
        for h in range(2):
            cards = table[3 * h : 3 * h + 3]
            if mask[SWAP + h] and len(cards) == 3 and min(cards) >= 0 and not any(info["face_down"][3 * h : 3 * h + 3]):
                moves.append((self._value(cards, info), SWAP + h))
        if mask[TAKE] and info["top"] >= 0:
            moves.append((self._best_with(hand, info["top"], info), TAKE))
        best = max(moves, default=None, key=lambda m: m[0])
        if best is not None and best[0] > now:
            return best[1]
        if mask[STOP]:
            return STOP
        if mask[DRAW]:
            return DRAW
        renew = [a for a in legal if RENEW <= a < STOP and (a - RENEW) % 2 == 0]  # face up: a look, the turn ends
        if renew:
            down = [a for a in renew if any(info["face_down"][3 * ((a - RENEW) // 2) : 3 * ((a - RENEW) // 2) + 3])]
            return (down or renew)[0]
        if best is not None:
            return best[1]
        return legal[int(self.rng.integers(len(legal)))]

    def _turn(self, info: dict, mask: np.ndarray) -> int:
        hand, top = info["hand"], info["top"]
        now = self._value(hand, info)
        with_top = max((self._value([top] + hand[:i] + hand[i + 1 :], info) for i in range(len(hand))), default=0.0)
        if top >= 0 and with_top >= 31 and mask[TAKE]:
            return TAKE
        if mask[KNOCK]:
            players = max(info["active"], 2)
            lap = int(info["lap"] + 1e-6)
            last_life = info["on_county"][0] or (info["lives"][0] <= 1e-6)
            if now >= knock_threshold(players, lap, last_life):
                return KNOCK
        if top >= 0 and with_top > now and mask[TAKE]:
            return TAKE
        return DRAW if mask[DRAW] else TAKE

    def _discard(self, info: dict, legal: list[int]) -> int:
        hand = info["hand"]
        fed_suits = {SUIT[c] for c in info["held_by"][1]} if len(info["held_by"]) > 1 else set()
        best, best_key = legal[0], None
        for c in legal:
            rest = [x for x in hand if x != c]
            suits = [SUIT[x] for x in rest]
            building = max(set(suits), key=lambda s: (suits.count(s), sum(VALUE[x] for x in rest if SUIT[x] == s)))
            in_suit = sorted((VALUE[x] for x in rest if SUIT[x] == building), reverse=True)
            key = (
                self._value(rest, info),
                len(in_suit),
                tuple(in_suit),
                -(VALUE[c] + (5 if SUIT[c] in fed_suits else 0)),
                self.rng.random(),
            )
            if best_key is None or key > best_key:
                best, best_key = c, key
        return best
