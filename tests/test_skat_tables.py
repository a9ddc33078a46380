"""envs.skat.tables: the derived tables agree with the rules they are derived from."""

from __future__ import annotations

import itertools
import random

from envs.skat.actions import BASE_VALUES, CONTRACTS
from envs.skat.cards import CLUBS, GRAND, JACKS, NULL, ORDER, card, trick_winner
from envs.skat.scoring import settle
from envs.skat.tables import BEATERS, HAND_SIZE, NULL_VALUE, TRUMP_RANK, TRUMPS, overbid_value, trick_winner_index


def test_trick_winner_index_agrees_with_the_rules():
    rng = random.Random(0)
    for g in range(6):
        for _ in range(3000):
            trick = rng.sample(range(32), 3)
            assert trick_winner_index(g, trick) == trick_winner(g, trick)
            assert trick_winner_index(g, trick[:2]) == trick_winner(g, [*trick[:2], trick[0]])


def test_trumps_ranks_and_beaters():
    assert TRUMPS[NULL] == 0 and TRUMPS[GRAND] == sum(1 << j for j in JACKS) and bin(TRUMPS[CLUBS]).count("1") == 11
    assert [TRUMP_RANK[card(n)] for n in ("C7", "C9", "CQ", "CK", "CT", "CA", "DJ", "CJ")] == [0, 2, 3, 4, 5, 6, 7, 10]
    for g in range(5):  # every trump beats a plain card; a higher card of the suit beats a lower one
        for a, b in itertools.permutations(range(32), 2):
            if TRUMPS[g] >> b & 1 and not TRUMPS[g] >> a & 1:
                assert BEATERS[g][a] >> b & 1
            if BEATERS[g][a] >> b & 1 and not (TRUMPS[g] >> b & 1 and not TRUMPS[g] >> a & 1):
                assert ORDER[g][b] > ORDER[g][a]
    assert HAND_SIZE == 10


def test_null_values_and_overbid_charge_as_scored():
    assert NULL_VALUE == {(False, False): 23, (True, False): 35, (False, True): 46, (True, True): 59}
    overbid = 0
    for contract in CONTRACTS:
        if contract.game == NULL:
            assert NULL_VALUE[contract.hand, contract.ouvert] == settle(contract, 18, 0, 0, 0).value
        elif not contract.hand:
            for bid in (18, 30, 48, 70, 120):  # with one (the club jack): a game of 2 x base value
                outcome = settle(contract, bid, 1 << card("CJ"), 61, 5)
                if outcome.overbid:
                    overbid += 1
                    assert outcome.value == overbid_value(contract.game, bid)
                    assert overbid_value(contract.game, bid) % BASE_VALUES[contract.game] == 0
    assert overbid == 18  # four suits x 4 bids over twice their base value, grand 2
