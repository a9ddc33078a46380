"""Card-play features an endgame expert reads beside the Skat observation (``features: true`` in
:mod:`agents.endgame_expert`): the facts a player works out at the table from the cards seen so far.

The observation (``envs.skat.observation``, layout ``skat3``) gives card planes by card id, the game
type and the current trick. Which card still beats which depends on the game type's trumps and
order, and what is still out depends on everything played; an MLP must otherwise learn that per game
type from the labels. These are computed in torch, batched, from the observation alone (so they leak
nothing it does not hold), with the trick tables of ``envs.skat.cards`` (EFF_SUIT, ORDER):

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

import torch

from envs.skat import observation as layout
from envs.skat.cards import EFF_SUIT, GAME_NAMES, GRAND, NUM_CARDS, ORDER, POINTS, holding_card

NUM_FEATURES = 5 * NUM_CARDS + 3 * layout.NUM_EFFECTIVE_SUITS + 1


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
    """``forward(obs) -> (batch, NUM_FEATURES)``; the tables are buffers that no checkpoint stores."""

    def __init__(self) -> None:
        super().__init__()
        higher, beats, suit = _tables()
        self.register_buffer("higher", higher, persistent=False)
        self.register_buffer("beats", beats, persistent=False)
        self.register_buffer("suit", suit, persistent=False)
        self.register_buffer("points", torch.tensor(POINTS, dtype=torch.float32), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        def planes(offset: int, n: int = 1) -> torch.Tensor:  # (batch, n, 32)
            return obs[:, offset : offset + n * NUM_CARDS].reshape(-1, n, NUM_CARDS)

        hand = planes(layout.HAND)[:, 0]
        trick = planes(layout.TRICK, 3)  # by relative seat
        skat = planes(layout.SKAT_PUT)[:, 0] + planes(layout.SKAT_TAKEN)[:, 0]
        seen = hand + planes(layout.PLAYED, 3).sum(1) + trick.sum(1) + skat
        out = (1.0 - seen).clamp(min=0.0)
        game = obs[:, layout.GAME_TYPE : layout.GAME_TYPE + len(GAME_NAMES)].clone()
        game[:, GRAND] = torch.maximum(game[:, GRAND], obs[:, layout.RAMSCH])
        higher = torch.einsum("bg,gcd->bcd", game, self.higher)
        beats = torch.einsum("bg,gcd->bcd", game, self.beats)
        suit = torch.einsum("bg,gcs->bcs", game, self.suit)
        higher_out = torch.einsum("bcd,bd->bc", higher, out)
        master = hand * (higher_out == 0).float() * game.sum(1, keepdim=True)
        leader = obs[:, layout.LEADER : layout.LEADER + 3]
        lead = torch.einsum("br,brc->bc", leader, trick)
        second = torch.einsum("br,brc->bc", leader.roll(1, dims=1), trick)  # the seat after the leader
        second_takes = torch.einsum("bc,bcd,bd->b", second, beats, lead)[:, None]
        holder = lead * (1.0 - second_takes) + second * second_takes
        takes = torch.einsum("bcd,bd->bc", beats, holder)
        out_suits = torch.einsum("bc,bcs->bs", out, suit) / 8
        own_suits = torch.einsum("bc,bcs->bs", hand, suit) / 8
        led_suit = torch.einsum("bc,bcs->bs", lead, suit)
        trick_points = (trick.sum(1) * self.points).sum(1, keepdim=True) / 30
        return torch.cat([out, higher_out / 8, master, holder, takes, out_suits, own_suits, led_suit, trick_points], 1)
