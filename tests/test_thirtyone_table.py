"""Thirty-One variants: worked cases from the rule texts (envs/thirtyone/variants.py quotes them).

Brag rankings (Stop the Bus), straight flushes, the Cut Throat tie, a Banking round's token flow, the
Switch turn options and restart, the pool games, token rewards and the round cap, on fixed deals.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import thirtyone_v0
from envs.thirtyone import ThirtyOneGame, card, card_name, hand_value, lives_lost
from envs.thirtyone.brag import brag_name, brag_value
from envs.thirtyone.cards import DECKS
from envs.thirtyone.observation import decode
from envs.thirtyone.phases import CHOOSE, EXCHANGES, MORE, OVER, PLACE, RENEWED, RESTART, TURN
from envs.thirtyone.render import render_text
from envs.thirtyone.scoring import pot_shares
from envs.thirtyone.table import deal_positions


def table_deck(exchange: str, hands: dict[int, str], table: str, *, dealer: int, n: int, up: str | None = None,
               stock: str = "", deck: int = 52) -> list[str]:
    """A full deck order dealing ``hands`` (seat -> cards), the table slots ``table`` (widow / pool: 3
    cards; Switch: the dealer's second hand, then the face-down hand), the turned-up card ``up`` and
    ``stock`` on top of the stock."""
    order = [(dealer + i) % n for i in range(1, n + 1)]
    k, pos = deal_positions(EXCHANGES.index(exchange), len(order))
    out: list[str | None] = [None] * k
    for j, seat in enumerate(order):
        for i, c in zip(pos.hands[j], hands[seat].split(), strict=True):
            out[i] = c
    for i, c in zip(pos.table, table.split(), strict=True):
        out[i] = c
    if pos.up >= 0:
        out[pos.up] = up
    out += stock.split()
    rest = [card_name(c) for c in DECKS[deck] if card_name(c) not in out]
    return [c for c in out if c is not None] + rest


def start(variant: str, hands: dict[int, str], table: str, *, dealer: int, up: str | None = None,
          stock: str = "", **opts):
    game = ThirtyOneGame(variant=variant, num_players=len(hands), **opts)
    deck = table_deck(game.options.exchange, hands, table, dealer=dealer, n=len(hands), up=up, stock=stock,
                      deck=game.options.deck)
    return game, game.new_initial_state(seed=0, deck=deck, dealer=dealer)


def act(state, game, *names: str) -> None:
    for name in names:
        state.apply_action(game.action_index(name))


def ids(cards: str) -> list[int]:
    return sorted(card(c) for c in cards.split())


# ------------------------------------------------------------------ hand values from the texts
def test_brag_rankings_follow_the_text() -> None:
    # "three of a kind (a 'prial') as the best hand, followed by a running flush, then a run, then a
    # flush, then a pair followed by a high card"
    ladder = ["C2 S2 H2", "HQ HK HA", "C4 S5 H6", "D2 D9 DK", "CA SA H2", "CA SK H9"]
    values = [brag_value(h) for h in ladder]
    assert values == sorted(values, reverse=True) and len(set(values)) == 6
    assert [brag_name(v).split()[0] for v in values] == ["prial", "running", "run", "flush", "pair", "high"]
    # "ranked by high card or high pair, then by middle card or kicker, then low card"
    assert brag_value("CK S9 H4") > brag_value("CQ SJ H9")  # high card first
    assert brag_value("CK S9 H4") > brag_value("DK S8 H7")  # then the middle card
    assert brag_value("CK S9 H4") > brag_value("DK D9 S3") > brag_value("DK D9 S2")  # then the low card
    assert brag_value("C8 S8 H2") > brag_value("C7 S7 HA")  # the high pair
    assert brag_value("C8 S8 HA") > brag_value("D8 H8 HK")  # then the kicker
    # "Suits are irrelevant"
    assert brag_value("CK S9 H4") == brag_value("DK H9 C4")
    assert brag_value("H4 H5 H6") == brag_value("S4 S5 S6")
    # our choice: aces high, A-2-3 the lowest run, A-A-A the best prial
    assert brag_value("SA H2 D3") < brag_value("S2 H3 D4") < brag_value("SQ HK DA")
    assert brag_name(brag_value("SA H2 D3")) == "run A-2-3"
    assert brag_value("SA HA DA") > brag_value("S3 H3 D3")
    assert brag_name(brag_value("C8 S8 HA")) == "pair of 8s, A kicker"
    assert brag_value("C8 S8 HA D8") == brag_value("C8 S8 D8")  # four cards: the best three


def test_straight_flush_and_three_of_a_kind_values() -> None:
    # "Rarely, people play that any straight-flush (three cards of the same suit in sequence) is worth
    # 30 (except for A-K-Q, which is 31)."
    assert hand_value("H2 H3 H4") == 9 and hand_value("H2 H3 H4", straight_flush=30) == 30
    assert hand_value("HA HK HQ", straight_flush=30) == 31
    assert hand_value("HA H2 H3", straight_flush=30) == 16  # the ace is high only
    assert hand_value("H2 H3 H5", straight_flush=30) == 10
    # Cut Throat: "all hands ranking as 30½ are equal and considered a tie, E.g. 2,2,2 and A,A,A"
    assert hand_value("C2 S2 H2", three_of_a_kind=30.5) == hand_value("CA SA HA", three_of_a_kind=30.5) == 30.5
    assert lives_lost([30.5, 30.5, 20]) == [0, 0, 1]
    game = ThirtyOneGame(straight_flush=30)
    assert game.table_layout and game.valuer.value(sum(1 << c for c in ids("S7 S8 S9"))) == 30


def test_cut_throat_tie_and_tokens() -> None:
    assert lives_lost([18, 18, 25], knocker=0, knocker_tie="double") == [2, 0, 0]
    # "the knocker tying for the lowest score will lose two tokens. All others with the same total as
    # the knocker will not lose a token."
    game, s = start("cut_throat", {0: "C2 S3 H8", 1: "C3 S2 D8", 2: "HK HQ H9"}, "", dealer=2, up="DK")
    act(s, game, "knock")
    for _ in range(2):
        act(s, game, "draw")
        act(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["values"] == [8, 8, 29] and s.last_round["lives_lost"] == [2, 0, 0]
    assert s.tokens == [1, 3, 3] and s.payoff == [-2.0, 0.0, 0.0]  # tokens paid as they are lost
    assert not game.table_layout and game.options.free_ride is False


def test_pot_shares() -> None:
    assert pot_shares(7, [1, 2], 3) == [0, 4, 3]
    assert pot_shares(6, [0], 2) == [6, 0]
    with pytest.raises(ValueError):
        pot_shares(3, [], 2)


# ------------------------------------------------------------------ Banking
def test_banking_blitz_from_the_widow() -> None:
    # "each player has to ante one token"; the widow is dealt face down; exchanges leave the cards put
    # there face up; "If any player acquires a blitz ... all other players place one token or coin on
    # the table, and the player who blitzed takes all of the tokens"
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    game, s = start("banking", hands, "HA HK HQ", dealer=2, up="DK")
    assert s.tokens == [2, 2, 2] and s.pot == 3 and s.face_up == [0, 0, 0] and s.pile == [card("DK")]
    assert game.action_index("pick 1") in s.legal_actions() and game.action_index("draw") in s.legal_actions()
    view = decode(_observe(game, s, 1))  # the other players see three face-down widow cards, nothing more
    assert view["table"][:3] == [-1, -1, -1] and view["face_down"] == [True] * 3 + [False] * 3
    act(s, game, "pick 1")
    assert s.phase == PLACE and card("C2") in s.legal_actions() and card("HA") not in s.legal_actions()
    act(s, game, "discard C2")
    assert s.phase == MORE and s.table[0] == card("C2") and s.face_up[0] == 1
    assert s.legal_actions() == [game.action_index("pick 2"), game.action_index("pick 3"), game.action_index("stop")]
    assert decode(_observe(game, s, 1))["table"][0] == card("C2")
    act(s, game, "pick 2", "discard S3", "pick 3", "discard H4")  # HA HK HQ: a blitz
    r = s.last_round
    assert r["kind"] == "blitz" and r["tokens"] == [4, -2, -2]  # 7, 1, 1 tokens after the round
    assert s.payoff == [4.0, -2.0, -2.0]  # reward_scheme="tokens": the round's net tokens
    assert s.round_no == 2 and s.pot == 3 and s.tokens == [6, 0, 0] and all(s.alive)  # the next round's antes


def _observe(game, state, seat: int) -> np.ndarray:
    from envs.thirtyone.observation_table import encode_table

    return encode_table(state, seat)


def test_banking_showdown_tie_splits_the_pot_and_out_of_tokens() -> None:
    # "the player with the highest-valued hand takes all the tokens": tied highest hands share, the odd
    # token to the first of them from the dealer's left
    hands = {0: "HA HK C2", 1: "SA SK D2", 2: "C3 D4 S5"}
    game, s = start("banking", hands, "D9 D8 D7", dealer=2, up="CK")
    act(s, game, "knock")
    for _ in range(2):
        act(s, game, "draw")
        act(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["values"] == [21, 21, 5] and s.last_round["tokens"] == [1, 0, -1]
    assert s.tokens == [3, 2, 1]  # 4, 3, 2 after the round, less the next round's ante
    game, s = start("banking", {0: "HA HK C2", 1: "C3 D4 S5"}, "D9 D8 D7", dealer=1, up="CK", lives=1, ante=1)
    act(s, game, "knock", "draw")
    act(s, game, f"discard {card_name(s.hands[1][-1])}")
    assert s.is_terminal() and s.tokens == [2, 0] and s.payoff == [1.0, -1.0] and not s.alive[1]


# ------------------------------------------------------------------ Stop the Bus and Schwimmen
def test_stop_the_bus_swap_all_and_knock() -> None:
    # "the game starts with three face-up cards on the tables. On their turn, players may swap one or
    # three cards from their hand for the table cards."
    game, s = start("stop_the_bus", {0: "C2 S7 HK", 1: "D5 S5 C9"}, "H3 H4 H5", dealer=1)
    assert s.phase == TURN and s.face_up == [1, 1, 1] and s.table_by == [1, 1, 1] and s.pile == []
    legal = [game.action_name(a) for a in s.legal_actions()]
    assert legal == ["knock", "pick 1", "pick 2", "pick 3", "swap 1"]
    act(s, game, "knock")
    act(s, game, "swap 1")  # player 1 takes the running flush; its pair goes to the table face up
    r = s.last_round
    assert r["kind"] == "showdown" and r["lives_lost"] == [2, 0]  # the knocker alone lowest pays two
    assert s.lives(0) == 1 and s.round_no == 2


def test_stop_the_bus_has_no_blitz_and_pick_keeps_the_rest() -> None:
    game, s = start("stop_the_bus", {0: "HA SA DA", 1: "D5 S5 C9"}, "H3 H4 H6", dealer=1)
    assert s.phase == TURN and s.round_no == 1  # a prial of aces dealt does not end the round
    act(s, game, "pick 3")
    assert s.phase == PLACE and card("H6") not in s.legal_actions()
    act(s, game, "discard HA")
    assert s.table == [card("H3"), card("H4"), card("HA")] and s.known[0] == 1 << card("H6")  # taken face up
    assert s.hands[0] == [card("SA"), card("DA"), card("H6")] and s.phase == TURN and s.current_player == 1
    assert s.turn_no == 1


def test_schwimmen_deck_trips_and_swimming() -> None:
    game, s = start("schwimmen", {0: "C7 S7 H7", 1: "DA DK C8"}, "H9 HT HJ", dealer=1)
    assert game.options.deck == 32 and s.hand_value(0) == 30.5 and len(s.stock) == 32 - 9
    assert game.action_index("swap 1") in s.legal_actions()
    act(s, game, "swap 1")  # H9 HT HJ: 29
    act(s, game, "knock")  # player 1 knocks with DA DK: 21
    act(s, game, "pick 2", "discard H9")  # no pass in the pool game: the last turn costs player 0 (20)
    assert s.last_round["values"] == [20, 21] and s.last_round["lives_lost"] == [1, 0]
    s.tokens[1] = 1
    assert s.on_county(1) and "swimming" in render_text(s)


# ------------------------------------------------------------------ Switch
def test_switch_dealer_choice_pick_renew_swap() -> None:
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    game, s = start("switch", hands, "HA HK H2 DA DK DQ", dealer=2)
    # "The dealer looks at both hands and chooses the hand they want to play with"
    assert s.phase == CHOOSE and s.current_player == 2 and s.legal_actions() == [63, 70]
    dealer_view, other_view = decode(_observe(game, s, 2)), decode(_observe(game, s, 0))
    assert sorted(dealer_view["table"][:3]) == ids("HA HK H2") and dealer_view["face_down"] == [True] * 6
    assert other_view["table"] == [-1] * 6 and other_view["face_down"] == [True] * 6
    act(s, game, "swap 1")  # "places the other hand face-up next to the face-down hand"
    assert s.hand(2) == ids("HA HK H2") and s.face_up == [1, 1, 1, 0, 0, 0] and s.current_player == 0
    # "if they pick up a face-down card, their discard will be face-up"
    act(s, game, "pick 4", "discard C2")
    assert s.table[3] == card("C2") and s.face_up[3] == 1 and s.known[0] == 0 and card("DA") in s.hands[0]
    # "If they choose face-down their turn continues": no knock, no second renewal
    act(s, game, "renew 2 down")
    assert s.phase == RENEWED and s.current_player == 1
    assert [game.action_name(a) for a in s.legal_actions()] == [f"pick {j}" for j in range(1, 7)] + ["swap 1",
                                                                                                      "swap 2"]
    assert s.dead == 1 << card("C2") and s.gone == (1 << card("DK")) | (1 << card("DQ"))
    act(s, game, "swap 1")  # "Swap one of the hands entirely with their own hand."
    assert s.hand(1) == ids("D2 D3 S9") and s.known[1] == sum(1 << c for c in ids("D2 D3 S9"))
    assert s.table[:3] == [card("C5"), card("S6"), card("H7")] and s.table_by[:3] == [1, 1, 1]
    act(s, game, "knock")  # the dealer: "Nocking applies the same as it does in the normal game"
    act(s, game, "renew 1 up")  # face up: the turn is over
    assert s.current_player == 1 and s.phase == TURN and s.face_up[:3] == [1, 1, 1] and s.table_by[:3] == [0] * 3
    act(s, game, "pick 1", f"discard {card_name(s.hands[1][0])}")
    # the dealer holds HA HK H2, three hearts over 21: it is offered the restart first
    assert s.phase == RESTART and s.offers == [2] and s.last_round is None
    act(s, game, "score")
    assert s.last_round["kind"] == "showdown" and s.last_round["knocker"] == 2 and s.round_no == 2


def test_switch_restart() -> None:
    # "if a player has a hand of three cards of the same suit and is greater than 21, they may choose to
    # restart the game making their hand the new face-up hand"
    game, s = start("switch", {0: "HA HK H9", 1: "SK SQ S3"}, "D2 D3 D4 C7 C8 C9", dealer=1)
    act(s, game, "keep", "knock", "renew 2 up")
    assert s.phase == RESTART and s.offers == [0, 1] and s.current_player == 0
    assert s.legal_actions() == [game.action_index("restart"), game.action_index("score")]
    assert sorted(decode(_observe(game, s, 0))["held_by"][1]) == ids("SK SQ S3")  # the hands are shown
    act(s, game, "score")
    assert s.current_player == 1
    act(s, game, "restart")
    r = s.last_round
    assert r["kind"] == "restart" and r["void"] and s.tokens == [4, 4] and s.round_no == 2 and s.dealer == 1
    assert s.restarted and sorted(s.table[:3]) == ids("SK SQ S3")
    assert s.face_up == [1, 1, 1, 0, 0, 0] and s.table_by[:3] == [1, 1, 1] and s.phase == TURN
    assert s.current_player == 0 and len(s.hands[1]) == 3 and not set(s.hands[1]) & set(ids("SK SQ S3"))
    assert s.stats["restarts"] == 1


# ------------------------------------------------------------------ token rewards and the round cap
@pytest.mark.parametrize(("options", "n"), [({"reward_scheme": "tokens"}, 4), ({"variant": "cut_throat"}, 3),
                                            ({"variant": "banking"}, 4), ({"variant": "banking"}, 2)])
def test_token_returns_are_money(options: dict, n: int) -> None:
    """Each loser pays its three tokens (pennies), the winner takes them: returns +3 (n-1) and -3."""
    for seed in range(4):
        e = thirtyone_v0.env(num_players=n, **options)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            totals[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(legal.size)]))
        assert sorted(totals.values()) == [-3.0] * (n - 1) + [3.0 * (n - 1)]


def test_max_rounds_ranks_the_players_still_in() -> None:
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    expected = {"win": [-0.5, 0.25, 0.25], "placement": [-1.0, 0.5, 0.5], "tokens": [-2.0, 1.0, 1.0]}
    for scheme, payoff in expected.items():
        game, s = start("scat", hands, "", dealer=2, up="DK", max_rounds=1, reward_scheme=scheme)
        assert game.table_layout  # max_rounds is not in the classic observation
        act(s, game, "knock")
        for _ in range(2):
            act(s, game, "draw")
            act(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
        assert s.phase == OVER and s.tokens == [2, 4, 4] and s.payoff == payoff, scheme
