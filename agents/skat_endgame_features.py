"""Card-play features an endgame expert reads beside the Skat observation (``features: true`` in
:mod:`agents.endgame_expert`): the facts a player works out at the table from the cards seen so far.

The observation (``envs.skat.observation``, layout ``skat3``) gives card planes by card id, the game
type and the current trick. Which card still beats which depends on the game type's trumps and
order, and what is still out depends on everything played; an MLP must otherwise learn that per game
type from the labels. These are computed from the observation alone (batched in torch; compiled, row by
row, when playing), so they leak nothing it does not hold, with the trick tables of ``envs.skat.cards``
(EFF_SUIT, ORDER):

    offset size  feature
    0      32    out           cards not seen by this seat: with the other two players or in an unseen skat
    32     32    higher_out    per card, the unseen cards of its effective suit that rank above it / 8
    64     32    master        own cards that no unseen card of their suit beats
    96     32    holder        the card holding the current trick (zero when this seat leads)
    128    32    takes         per card, 1 if it beats the holding card (zero when this seat leads)
    160    5     out_suits     unseen cards per effective suit (C S H D, trump) / 8
    165    5     own_suits     own cards per effective suit / 8
    170    5     led_suit      the effective suit led to the current trick, one-hot
    175    1     trick_points  card points in the current trick / 30

Before a game is declared (no game type) every feature but ``out`` is zero; Ramsch uses grand's tables.
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit

from agents.sparse_mlp import playing_batch
from envs.skat import observation as layout
from envs.skat.cards import EFF_SUIT, GAME_NAMES, GRAND, NUM_CARDS, ORDER, POINTS, holding_card

NUM_FEATURES = 5 * NUM_CARDS + 3 * layout.NUM_EFFECTIVE_SUITS + 1


# the card planes the features read, in the observation's order: hand, skat put, skat taken, played x 3,
# trick x 3 (what this seat has seen is their sum)
_SEEN_PLANES = ((layout.HAND, 1), (layout.SKAT_PUT, 1), (layout.SKAT_TAKEN, 1), (layout.PLAYED, 3), (layout.TRICK, 3))
assert all(a + n * NUM_CARDS == b for (a, n), (b, _) in zip(_SEEN_PLANES, _SEEN_PLANES[1:], strict=False))
_SEEN = sum(n for _, n in _SEEN_PLANES)
_CARDS = NUM_CARDS * NUM_CARDS


def _tables() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per game type: higher[g, c, d] (d outranks c in c's suit), beats[g, c, w] (c played to a trick
    held by w takes it, by the rules core's ``holding_card``), suit[g, c, s] (c's effective suit, one-hot)."""
    games = len(GAME_NAMES)
    higher = torch.zeros(games, NUM_CARDS, NUM_CARDS)
    beats = torch.zeros(games, NUM_CARDS, NUM_CARDS)
    suit = torch.zeros(games, NUM_CARDS, layout.NUM_EFFECTIVE_SUITS)
    for g in range(games):
        eff, order = EFF_SUIT[g], ORDER[g]
        for c in range(NUM_CARDS):
            suit[g, c, eff[c]] = 1.0
            for d in range(NUM_CARDS):
                if c != d:
                    beats[g, c, d] = float(holding_card(eff, order, g, (d, c)) == 1)
                    higher[g, c, d] = float(eff[d] == eff[c] and holding_card(eff, order, g, (c, d)) == 1)
    return higher, beats, suit


class EndgameFeatures(torch.nn.Module):
    """``forward(obs) -> (batch, NUM_FEATURES)``; the tables are buffers that no checkpoint stores.

    A batch, or any call under autograd (fitting), runs in torch: one matrix product picks the game type's
    three tables, batched products do the rest. A playing call (a few rows, no autograd) runs the same
    arithmetic in a compiled row loop, :func:`_rows_features`: there each torch call costs more than its
    arithmetic (one row, warm cache: 0.24 ms in torch einsums, 0.12-0.19 ms in these products, 0.007 ms
    compiled).
    Every value is a sum of small integers or eighths, exact in float32, so the two paths agree bit for bit."""

    def __init__(self) -> None:
        super().__init__()
        higher, beats, suit = _tables()
        games = len(GAME_NAMES)
        tables = torch.cat([higher.reshape(games, -1), beats.reshape(games, -1), suit.reshape(games, -1)], 1)
        self.register_buffer("tables", tables, persistent=False)
        self.register_buffer("points", torch.tensor(POINTS, dtype=torch.float32)[:, None], persistent=False)
        self._numpy = (tables.numpy(), self.points[:, 0].numpy())
        _rows_features(np.zeros((1, layout.OBSERVATION_SIZE), np.float32), *self._numpy)  # compile now

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        if playing_batch(obs):  # the same numbers from compiled code: torch's per-call cost dominates here
            return torch.from_numpy(_rows_features(np.ascontiguousarray(obs.numpy(), np.float32), *self._numpy))
        batch = obs.shape[0]
        cards = obs[:, layout.HAND : layout.HAND + _SEEN * NUM_CARDS].reshape(batch, _SEEN, NUM_CARDS)
        hand, trick = cards[:, 0], cards[:, _SEEN - 3 :]  # the trick by relative seat
        out = (1.0 - cards.sum(1)).clamp(min=0.0)
        game = obs[:, layout.GAME_TYPE : layout.GAME_TYPE + len(GAME_NAMES)].clone()
        game[:, GRAND] = torch.maximum(game[:, GRAND], obs[:, layout.RAMSCH])
        tables = game @ self.tables
        higher = tables[:, :_CARDS].reshape(batch, NUM_CARDS, NUM_CARDS)
        beats = tables[:, _CARDS : 2 * _CARDS].reshape(batch, NUM_CARDS, NUM_CARDS)
        suit = tables[:, 2 * _CARDS :].reshape(batch, NUM_CARDS, layout.NUM_EFFECTIVE_SUITS)
        higher_out = torch.bmm(higher, out[:, :, None])[:, :, 0]
        master = hand * (higher_out == 0).float() * game.sum(1, keepdim=True)
        leader = obs[:, layout.LEADER : layout.LEADER + 3]
        # the leader's card, and the card of the seat after the leader
        lead, second = torch.bmm(torch.stack([leader, leader.roll(1, dims=1)], 1), trick).unbind(1)
        second_takes = torch.bmm(torch.bmm(second[:, None], beats), lead[:, :, None])[:, :, 0]
        holder = lead * (1.0 - second_takes) + second * second_takes
        takes = torch.bmm(beats, holder[:, :, None])[:, :, 0]
        out_suits, own_suits, led_suit = torch.bmm(torch.stack([out / 8, hand / 8, lead], 1), suit).unbind(1)
        trick_points = trick.sum(1) @ self.points / 30
        return torch.cat([out, higher_out / 8, master, holder, takes, out_suits, own_suits, led_suit, trick_points], 1)


_GAMES, _SUITS = len(GAME_NAMES), layout.NUM_EFFECTIVE_SUITS
_HAND, _TRICK, _GAME, _RAMSCH, _LEADER = layout.HAND, layout.TRICK, layout.GAME_TYPE, layout.RAMSCH, layout.LEADER


@njit(cache=True, nogil=True)
def _rows_features(obs: np.ndarray, tables: np.ndarray, points: np.ndarray) -> np.ndarray:
    """:meth:`EndgameFeatures.forward` row by row, in the same float32 arithmetic (every sum is of small
    integers or eighths, so exact in any order): the two agree bit for bit (tests/test_skat_endgame_features)."""
    n, c32 = obs.shape[0], NUM_CARDS
    result = np.zeros((n, NUM_FEATURES), np.float32)
    table = np.zeros(tables.shape[1], np.float32)
    vectors = np.zeros((5, c32), np.float32)
    out, hand, lead, second, holder = vectors[0], vectors[1], vectors[2], vectors[3], vectors[4]
    for r in range(n):
        row, f = obs[r], result[r]
        table[:] = 0.0
        game_sum = np.float32(0.0)
        for g in range(_GAMES):
            weight = row[_GAME + g]
            if g == GRAND:
                weight = max(weight, row[_RAMSCH])
            game_sum += weight
            if weight != 0.0:
                table += weight * tables[g]
        higher = table[:_CARDS].reshape(c32, c32)
        beats = table[_CARDS : 2 * _CARDS].reshape(c32, c32)
        suit = table[2 * _CARDS :].reshape(c32, _SUITS)
        for c in range(c32):
            seen = np.float32(0.0)
            for p in range(_SEEN):
                seen += row[_HAND + p * c32 + c]
            out[c] = max(np.float32(1.0) - seen, np.float32(0.0))
            hand[c] = row[_HAND + c]
            lead[c] = np.float32(0.0)
            second[c] = np.float32(0.0)
            for j in range(3):
                card = row[_TRICK + j * c32 + c]
                lead[c] += row[_LEADER + j] * card
                second[c] += row[_LEADER + (j + 2) % 3] * card  # torch's roll(1): the seat after the leader
        second_takes = np.float32(0.0)
        for c in range(c32):
            for d in range(c32):
                second_takes += second[c] * beats[c, d] * lead[d]
        trick_points = np.float32(0.0)
        for c in range(c32):
            holder[c] = lead[c] * (np.float32(1.0) - second_takes) + second[c] * second_takes
            trick_points += (row[_TRICK + c] + row[_TRICK + c32 + c] + row[_TRICK + 2 * c32 + c]) * points[c]
        for c in range(c32):
            higher_out = np.float32(0.0)
            takes = np.float32(0.0)
            for d in range(c32):
                higher_out += higher[c, d] * out[d]
                takes += beats[c, d] * holder[d]
            f[c] = out[c]
            f[c32 + c] = higher_out / np.float32(8.0)
            f[2 * c32 + c] = hand[c] * np.float32(higher_out == 0.0) * game_sum
            f[3 * c32 + c] = holder[c]
            f[4 * c32 + c] = takes
            s = 5 * c32
            for k in range(_SUITS):
                f[s + k] += out[c] / np.float32(8.0) * suit[c, k]
                f[s + _SUITS + k] += hand[c] / np.float32(8.0) * suit[c, k]
                f[s + 2 * _SUITS + k] += lead[c] * suit[c, k]
        f[NUM_FEATURES - 1] = trick_points / np.float32(30.0)
    return result
