"""Thirty-One rules core: every rule and option of the issue, on fixed deals."""

from __future__ import annotations

import pytest

from envs.thirtyone import ThirtyOneGame, card, card_name, hand_value, lives_lost, points_won
from envs.thirtyone.cards import DECK_32, DECK_52
from envs.thirtyone.render import render_text
from envs.thirtyone.rules import DISCARD, DRAW, OVER, THROW


# ------------------------------------------------------------------ helpers (used by other test files)
def make_deck(hands: dict[int, str], up: str, stock: str = "", *, dealer: int, n: int, deck: int = 52) -> list[str]:
    """A full deck order dealing ``hands`` (seat -> "HK H8 H5") with ``up`` turned up and ``stock``
    on top of the stock (top first); every seat of the table must be in ``hands``."""
    order = [(dealer + i) % n for i in range(1, n + 1)]
    m = len(order)
    out: list[str | None] = [None] * (3 * m + 1)
    for j, s in enumerate(order):
        cards = hands[s].split()
        out[j], out[j + m], out[j + 2 * m] = cards
    out[3 * m] = up
    out += stock.split()
    rest = [card_name(c) for c in (DECK_52 if deck == 52 else DECK_32) if card_name(c) not in out]
    return [c for c in out if c is not None] + rest


def play(state, game, *names: str) -> None:
    for name in names:
        state.apply_action(game.action_index(name))


def names(state) -> list[str]:
    return [card_name(c) for c in sorted(state.hands[state.current_player])]


def new(n: int, hands: dict[int, str], up: str, stock: str = "", dealer: int | None = None, **opts):
    dealer = n - 1 if dealer is None else dealer
    game = ThirtyOneGame(num_players=n, **opts)
    deck = make_deck(hands, up, stock, dealer=dealer, n=n, deck=opts.get("deck", 52))
    return game, game.new_initial_state(seed=0, deck=deck, dealer=dealer)


QUIET4 = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9", 3: "C8 H9 D4"}  # no blitz, distinct values


# ------------------------------------------------------------------ hand values and scoring helpers
@pytest.mark.parametrize(
    ("cards", "value"),
    [("HK H8 H5", 23), ("SQ D9 D8", 17), ("CA S6 S4", 11), ("CJ H7 S4", 10), ("SA SK SQ", 31), ("DA DT D9", 30)],
)
def test_worked_hand_values(cards: str, value: float) -> None:
    assert hand_value(cards) == value
    assert hand_value(cards.split()) == value
    assert hand_value([card(c) for c in cards.split()]) == value


def test_three_of_a_kind_and_three_aces() -> None:
    assert hand_value("H7 D7 S7") == 7
    assert hand_value("H7 D7 S7", three_of_a_kind=30) == 30
    assert hand_value("H7 D7 S7", three_of_a_kind=30.5) == 30.5
    assert hand_value("HA DA SA") == 11
    assert hand_value("HA DA SA", three_of_a_kind=30.5) == 30.5
    assert hand_value("HA DA SA", three_aces=32) == 32
    assert hand_value("HA DA SA", three_of_a_kind=30, three_aces=32) == 32
    assert hand_value("H7 D7 S7", three_aces=32) == 7
    assert hand_value("HK H8 H5 HA") == 34  # four cards: the best suit


def test_hand_value_errors() -> None:
    with pytest.raises(ValueError, match="not a card"):
        hand_value("HK H8 X5")
    with pytest.raises(ValueError, match="twice"):
        hand_value("HK HK H5")
    with pytest.raises(ValueError, match="at least one"):
        hand_value([])


def test_lives_lost_showdown_and_ties() -> None:
    assert lives_lost([20, 15, 25]) == [0, 1, 0]
    assert lives_lost([15, 15, 25]) == [1, 1, 0]  # all tied for lowest lose one
    assert lives_lost([20, 15, 25], knocker=1) == [0, 2, 0]  # knocker alone lowest: two
    assert lives_lost([20, 15, 25], knocker=1, knocker_penalty=1) == [0, 1, 0]
    assert lives_lost([15, 15, 25], knocker=0) == [0, 1, 0]  # knocker tied for lowest is safe
    # West Lansing Cut Throat: the knocker tied for lowest pays two, the others tied with it nothing
    assert lives_lost([15, 15, 25], knocker=0, knocker_tie="double") == [2, 0, 0]
    assert lives_lost([18, 18, 25], knocker=0, knocker_tie="double") == [2, 0, 0]
    assert lives_lost([18, 18, 18, 25], knocker=1, knocker_tie="double") == [0, 2, 0, 0]
    assert lives_lost([15, 15, 15], knocker=2) == [1, 1, 0]
    assert lives_lost([20, 15, 25], knocker=0) == [0, 1, 0]


def test_lives_lost_blitz() -> None:
    assert lives_lost([31, 15, 25]) == [0, 1, 1]
    assert lives_lost([12, 31, 25], knocker=0) == [1, 0, 1]  # the knocker loses one like everyone
    assert lives_lost([31, 31, 25]) == [0, 0, 1]  # two blitzes on the deal
    assert lives_lost([32, 30.5, 12]) == [0, 1, 1]  # three aces (32) is a blitz; trips 30.5 is not


def test_lives_lost_errors() -> None:
    with pytest.raises(ValueError, match="knocker_tie"):
        lives_lost([1, 2], knocker_tie="sometimes")
    with pytest.raises(ValueError, match="knocker_penalty"):
        lives_lost([1, 2], knocker_penalty=3)
    with pytest.raises(ValueError, match="knocker"):
        lives_lost([1, 2], knocker=2)


def test_points_won() -> None:
    assert points_won([10, 20, 30]) == [1, 2, 3]
    assert points_won([10, 20, 30], knocker=2) == [1, 2, 4]
    assert points_won([10, 20, 30], knocker=0) == [0, 2, 3]
    assert points_won([10, 20, 30], knocker=1) == [1, 1, 3]
    assert points_won([20, 20, 30]) == [2, 2, 3]  # ties take the best place
    assert points_won([30, 30, 10]) == [3, 3, 1]
    assert points_won([15, 15]) == [3, 3]
    assert points_won([10, 20]) == [1, 3]
    assert points_won([31, 20, 10], knocker=2) == [6, 0, 0]


# ------------------------------------------------------------------ deal and turn
def test_deal_from_fixed_deck() -> None:
    game, s = new(4, QUIET4, "DK", "SA HA", dealer=3)
    assert s.current_player == 0  # left of the dealer starts
    assert sorted(card_name(c) for c in s.hands[2]) == ["D2", "D3", "S9"]
    assert card_name(s.pile[-1]) == "DK" and len(s.pile) == 1
    assert len(s.stock) == 52 - 13
    play(s, game, "draw")  # the stock's top card comes first
    assert "SA" in names(s) and s.phase == DISCARD


def test_deal_rotates_and_starts_left_of_dealer() -> None:
    game, s = new(4, {1: "C2 S3 H4", 2: "C5 S6 H7", 3: "D2 D3 S9", 0: "C8 H9 D4"}, "DK", dealer=0)
    assert s.current_player == 1 and s.dealer == 0
    play(s, game, "knock")
    for seat in (2, 3, 0):
        assert s.current_player == seat
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[seat][-1])}")
    assert s.last_round["round"] == 1 and s.round_no == 2
    assert s.dealer == 1 and s.current_player == 2


def test_take_cannot_be_rediscarded_but_a_drawn_card_can() -> None:
    game, s = new(4, QUIET4, "DK", "SA")
    play(s, game, "take")
    assert game.action_index("discard DK") not in s.legal_actions()
    with pytest.raises(ValueError, match=r"discard DK.*'discard'.*taken from the discard pile"):
        play(s, game, "discard DK")
    play(s, game, "discard C2")
    assert card_name(s.pile[-1]) == "C2" and s.current_player == 1
    play(s, game, "draw")
    assert game.action_index("discard SA") in s.legal_actions()
    play(s, game, "discard SA")
    assert card_name(s.pile[-1]) == "SA"


def test_knock_gives_everyone_else_one_turn_then_showdown() -> None:
    game, s = new(4, QUIET4, "DK", "SA HA CA")
    play(s, game, "knock")
    assert game.action_index("knock") not in s.legal_actions()  # one knock per round
    for seat, discard in ((1, "discard C5"), (2, "discard D2"), (3, "discard C8")):
        assert s.current_player == seat
        play(s, game, "draw", discard)
    # showdown: values 0: C2 S3 H4 = 4 (knocker), 1: SA S6 H7 = 17, 2: D3 S9 HA = 11, 3: CA H9 D4 = 11
    r = s.last_round
    assert r["kind"] == "showdown" and r["knocker"] == 0 and r["values"] == [4, 17, 11, 11]
    assert r["lives_lost"] == [2, 0, 0, 0]
    assert s.lives(0) == 1 and s.round_no == 2 and s.stats["knocker_losses"] == 1


def test_illegal_actions_name_the_action_and_phase() -> None:
    game, s = new(4, QUIET4, "DK")
    with pytest.raises(ValueError, match=r"illegal action 3 \(discard C5\) for player_0 in phase 'draw'"):
        s.apply_action(3)
    with pytest.raises(ValueError, match="not an integer"):
        s.apply_action("draw")
    play(s, game, "draw")
    with pytest.raises(ValueError, match="only a card in the hand"):
        play(s, game, "discard HA")
    with pytest.raises(ValueError, match="phase 'discard'"):
        play(s, game, "knock")


# ------------------------------------------------------------------ blitz
def test_blitz_on_the_deal_ends_the_round_at_once() -> None:
    hands = {**QUIET4, 2: "SA SK SQ"}
    game, s = new(4, hands, "DK")
    assert s.round_no == 2 and s.stats["deal_blitzes"] == 1 and s.stats["blitzes"] == 1
    assert s.last_round["kind"] == "blitz" and s.last_round["lives_lost"] == [1, 1, 0, 1]
    assert [s.lives(i) for i in range(4)] == [2, 2, 3, 2]


def test_two_blitzes_on_the_deal() -> None:
    game, s = new(4, {**QUIET4, 1: "SA SK SQ", 3: "HA HK HQ"}, "DK")
    assert s.last_round["lives_lost"] == [1, 0, 1, 0]


def test_blitz_after_a_knock_costs_the_knocker_too() -> None:
    hands = {**QUIET4, 1: "CA CK S6"}
    game, s = new(4, hands, "CQ")
    play(s, game, "knock", "take", "discard S6")  # player 1 makes 31 with the discard top
    r = s.last_round
    assert r["kind"] == "blitz" and r["knocker"] == 0 and r["lives_lost"] == [1, 0, 1, 1]
    assert s.round_no == 2  # players 2 and 3 got no last turn


def test_blitz_from_the_stock_mid_round() -> None:
    game, s = new(4, {**QUIET4, 0: "CA CK S3"}, "DK", "CQ")
    play(s, game, "draw", "discard S3")
    assert s.last_round["kind"] == "blitz" and s.last_round["lives_lost"] == [0, 1, 1, 1]


# ------------------------------------------------------------------ lives, free ride, elimination
def _throw_back(s, game) -> None:
    """The player to act draws from the stock and discards the drawn card."""
    play(s, game, "draw")
    play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")


def test_free_ride_and_elimination() -> None:
    # player 0 with one life: the first loss puts them on the county, the second eliminates them
    game = ThirtyOneGame(num_players=3, lives=1)
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", dealer=2, n=3), dealer=2)
    _throw_back(s, game)
    play(s, game, "knock")  # player 1 knocks
    _throw_back(s, game)  # player 2
    _throw_back(s, game)  # player 0's last turn: still lowest (4)
    assert s.last_round["kind"] == "showdown" and s.last_round["lives_lost"] == [1, 0, 0]
    assert s.lives(0) == 0 and s.on_county(0) and s.alive[0] and s.tokens[0] == 1
    assert s.round_no == 2 and s.current_player == 1  # player 0 dealt; player 1 starts
    # on the county, losing again eliminates: replay the same deal with player 0 on the county
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", dealer=2, n=3), dealer=2)
    s.tokens[0] = 1
    _throw_back(s, game)
    play(s, game, "knock")
    _throw_back(s, game)
    _throw_back(s, game)
    assert not s.alive[0] and s.last_round["eliminated"] == [0] and s.seats == [2, 1] and s.dealer == 1
    assert s.returns() == [-0.5, 0.0, 0.0] and not s.is_terminal()


def test_elimination_without_free_ride_and_the_last_player_wins() -> None:
    game = ThirtyOneGame(num_players=2, lives=1, free_ride=False)
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7"}
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", dealer=1, n=2), dealer=1)
    play(s, game, "knock", "draw")  # player 0 knocks with 4 and is the single lowest
    play(s, game, f"discard {card_name(s.hands[1][-1])}")
    assert s.is_terminal() and s.phase == OVER and s.current_player == -1
    assert not s.alive[0] and s.returns() == [-1.0, 1.0]
    assert s.legal_actions() == []
    with pytest.raises(ValueError, match="finished game"):
        s.apply_action(52)


def test_knocker_on_last_token_losing_two_is_out() -> None:
    game = ThirtyOneGame(num_players=3, lives=0 + 1, free_ride=True)
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", dealer=2, n=3), dealer=2)
    play(s, game, "knock")
    for _ in range(2):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["lives_lost"] == [2, 0, 0] and not s.alive[0]  # 1 life + ride, loses 2: out
    assert s.last_round["eliminated"] == [0] and s.returns()[0] == -0.5


def test_round_that_would_eliminate_everyone_is_void() -> None:
    game = ThirtyOneGame(num_players=2, lives=1, free_ride=False, max_turns=2)
    hands = {0: "C2 S3 H4", 1: "C3 S2 D4"}  # both worth 4
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", "D5 D6", dealer=1, n=2), dealer=1)
    for _ in range(2):  # each draws and throws the drawn card: the turn cap forces a showdown, a tie
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["kind"] == "capped" and s.last_round["lives_lost"] == [1, 1] and s.last_round["void"]
    assert all(s.alive) and not s.is_terminal() and s.round_no == 2


def test_eliminated_seats_are_skipped_by_the_deal() -> None:
    game = ThirtyOneGame(num_players=3, lives=1, free_ride=False)
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", dealer=2, n=3), dealer=2)
    play(s, game, "knock")
    for _ in range(2):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert not s.alive[0] and s.dealer == 1 and s.current_player == 2 and s.seats == [2, 1]
    assert s.hands[0] == [] and s.next_seat[2] == 1 and s.next_seat[1] == 2


# ------------------------------------------------------------------ two players, stock
def test_two_players_can_take_back_own_discard_after_a_knock() -> None:
    game, s = new(2, {0: "HA HK C2", 1: "C5 S6 H7"}, "D3", "HQ")
    play(s, game, "draw", "discard HQ")  # player 0 throws the queen of hearts
    play(s, game, "knock")  # player 1 knocks
    assert card_name(s.pile[-1]) == "HQ" and s.current_player == 0
    play(s, game, "take", "discard C2")  # and player 0 takes their own discard back: 31
    assert s.last_round["kind"] == "blitz" and s.last_round["lives_lost"] == [0, 1]


def test_two_players_take_back_locks_the_card() -> None:
    game, s = new(2, {0: "HA H2 C2", 1: "C5 S6 H7"}, "D3", "HQ")
    play(s, game, "draw", "discard HQ", "knock", "take")
    assert game.action_index("discard HQ") not in s.legal_actions()
    play(s, game, "discard C2")
    assert s.last_round["kind"] == "showdown" and s.last_round["values"] == [23, 7]


def test_stock_reshuffle_keeps_the_top_card() -> None:
    # 9 players with the 32-card deck: 27 cards dealt, 1 turned up, 4 in the stock
    game = ThirtyOneGame(num_players=9, deck=32, first_dealer=8)
    s = game.new_initial_state(seed=1)
    for _ in range(4):
        _throw_back(s, game)
    assert s.stats["reshuffles"] == 1  # at the start of the 5th turn
    assert len(s.pile) == 1 and len(s.stock) == 4  # the 4th discard stays on top
    top = s.pile[0]
    assert s.disc_by[s.owner[top]] == 1 << top and sum(s.disc_by) == 1 << top
    _throw_back(s, game)
    assert len(s.pile) == 2 and len(s.stock) == 3
    held = {c for h in s.hands for c in h}
    assert held | set(s.pile) | set(s.stock) == set(DECK_32) and len(held) == 27


def test_stock_exhausted_draw_voids_the_round() -> None:
    game = ThirtyOneGame(num_players=9, deck=32, first_dealer=8, stock_exhausted="draw")
    s = game.new_initial_state(seed=1)
    lives = [s.lives(i) for i in range(9)]
    for _ in range(4):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["kind"] == "void" and s.stats["voids"] == 1 and s.round_no == 2
    assert [s.lives(i) for i in range(9)] == lives


def test_stock_exhausted_draw_after_a_knock_reshuffles() -> None:
    game = ThirtyOneGame(num_players=9, deck=32, first_dealer=8, stock_exhausted="draw")
    s = game.new_initial_state(seed=1)
    play(s, game, "knock")
    for _ in range(8):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["kind"] == "showdown" and s.stats["reshuffles"] >= 1


# ------------------------------------------------------------------ option knobs
def test_knock_allowed_after_first_round() -> None:
    game, s = new(3, {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}, "DK", knock_allowed="after_first_round")
    for _ in range(3):
        assert game.action_index("knock") not in s.legal_actions()
        with pytest.raises(ValueError, match="after the first full round"):
            play(s, game, "knock")
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert game.action_index("knock") in s.legal_actions()


def test_min_knock_score() -> None:
    game, s = new(3, {0: "C2 S3 H4", 1: "HA HK H7", 2: "D2 D3 S9"}, "DK", min_knock_score=20)
    assert game.action_index("knock") not in s.legal_actions()
    with pytest.raises(ValueError, match="min_knock_score=20"):
        play(s, game, "knock")
    play(s, game, "draw")
    play(s, game, f"discard {card_name(s.hands[0][-1])}")
    assert game.action_index("knock") in s.legal_actions()  # player 1 holds 28


def test_knocker_penalty_one_and_tie_double() -> None:
    for opts, lost in (({"knocker_penalty": 1}, 1), ({}, 2)):
        game, s = new(2, {0: "C2 S3 H4", 1: "C5 S6 H7"}, "DK", **opts)
        play(s, game, "knock", "draw")
        play(s, game, f"discard {card_name(s.hands[1][-1])}")
        assert s.last_round["lives_lost"] == [lost, 0]
    game, s = new(2, {0: "C2 S3 H4", 1: "C3 S2 D4"}, "DK", knocker_tie="double")
    play(s, game, "knock", "draw")
    play(s, game, f"discard {card_name(s.hands[1][-1])}")
    assert s.last_round["lives_lost"] == [2, 0]  # Cut Throat: the player tied with the knocker is safe
    game, s = new(2, {0: "C2 S3 H4", 1: "C3 S2 D4"}, "DK")
    play(s, game, "knock", "draw")
    play(s, game, f"discard {card_name(s.hands[1][-1])}")
    assert s.last_round["lives_lost"] == [0, 1]


def test_three_of_a_kind_option_in_a_showdown() -> None:
    hands = {0: "H7 D7 S7", 1: "HA HK H2"}
    for opts, lost in (({}, [2, 0]), ({"three_of_a_kind": 30}, [0, 1]), ({"three_of_a_kind": 30.5}, [0, 1])):
        game, s = new(2, hands, "C3", **opts)
        play(s, game, "knock", "draw")
        play(s, game, f"discard {card_name(s.hands[1][-1])}")
        assert s.last_round["lives_lost"] == lost


def test_three_aces_is_a_blitz_with_the_option() -> None:
    hands = {0: "HA DA C2", 1: "C5 S6 H7"}
    game, s = new(2, hands, "SA", three_aces=32)
    play(s, game, "take", "discard C2")
    assert s.last_round["kind"] == "blitz" and s.last_round["values"][0] == 32
    game, s = new(2, hands, "SA")
    play(s, game, "take", "discard C2")
    assert s.round_no == 1 and s.current_player == 1


def test_deck_32() -> None:
    game = ThirtyOneGame(num_players=4, deck=32)
    s = game.new_initial_state(seed=3)
    everything = {c for h in s.hands for c in h} | set(s.pile) | set(s.stock)
    assert everything == set(DECK_32) and all(card_name(c)[1] not in "23456" for c in everything)
    with pytest.raises(ValueError, match="32-card deck"):
        game.new_initial_state(deck=[card_name(c) for c in DECK_52])


def test_throw_down() -> None:
    game, s = new(3, {0: "HA HK H7", 1: "C5 S6 H8", 2: "D2 D3 S9"}, "DK", throw_down=True)
    assert s.phase == THROW and s.legal_actions() == [game.action_index("throw_down"), game.action_index("look")]
    play(s, game, "throw_down")  # scored like a knock by player 0: player 1 (8) is lowest
    assert s.last_round["kind"] == "throw_down" and s.last_round["lives_lost"] == [0, 1, 0]
    assert s.stats["throw_downs"] == 1 and s.phase == THROW  # the next round starts with the choice
    game, s = new(3, {0: "C2 S3 H4", 1: "C5 S6 H8", 2: "D2 D3 S9"}, "DK", throw_down=True)
    play(s, game, "throw_down")
    assert s.last_round["lives_lost"] == [2, 0, 0]
    game, s = new(3, {0: "C2 S3 H4", 1: "C5 S6 H8", 2: "D2 D3 S9"}, "DK", throw_down=True)
    play(s, game, "look")
    assert s.phase == DRAW and s.current_player == 0


def test_points_game() -> None:
    game, s = new(3, {0: "HA HK H7", 1: "C5 S6 H8", 2: "D2 D3 S9"}, "DK", scoring="points", target_score=4)
    play(s, game, "knock")
    for _ in range(2):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["points"] == [4, 1, 2] and s.scores == [4, 1, 2]
    assert s.is_terminal() and s.returns() == [1.0, -0.5, -0.5]


def test_points_game_tied_leaders_play_on() -> None:
    game, s = new(2, {0: "C2 S3 H4", 1: "C3 S2 D4"}, "DK", scoring="points", target_score=3)
    play(s, game, "knock", "draw")
    play(s, game, f"discard {card_name(s.hands[1][-1])}")
    assert s.scores == [4, 3] and s.is_terminal()
    game, s = new(2, {0: "C2 S3 H4", 1: "C3 S2 D4"}, "DK", scoring="points", target_score=3)
    play(s, game, "draw")
    play(s, game, f"discard {card_name(s.hands[0][-1])}")
    play(s, game, "knock")
    play(s, game, "draw")
    play(s, game, f"discard {card_name(s.hands[0][-1])}")
    assert s.scores == [3, 4] and s.is_terminal()


def test_round_episode_returns() -> None:
    game, s = new(3, {0: "C2 S3 H4", 1: "C5 S6 H8", 2: "D2 D3 S9"}, "DK", episode="round")
    play(s, game, "knock")
    for _ in range(2):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.is_terminal() and s.returns() == [-2.0, 0.0, 0.0]
    game, s = new(3, {0: "C2 S3 H4", 1: "C5 S6 H8", 2: "D2 D3 S9"}, "DK", episode="round", scoring="points")
    play(s, game, "knock")
    for _ in range(2):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.returns() == [0.0, 2.0, 3.0]


def test_placement_rewards() -> None:
    game = ThirtyOneGame(num_players=3, lives=1, free_ride=False, reward_scheme="placement")
    hands = {0: "C2 S3 H4", 1: "C5 S6 H7", 2: "D2 D3 S9"}
    s = game.new_initial_state(seed=0, deck=make_deck(hands, "DK", dealer=2, n=3), dealer=2)
    play(s, game, "knock")
    for _ in range(2):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.returns()[0] == -1.0  # first out: last place
    while not s.is_terminal():
        la = s.legal_actions()
        s.apply_action(la[-1] if game.action_index("knock") in la else la[0])
    r = s.returns()
    assert sorted(r) == [-1.0, 0.0, 1.0] and sum(r) == 0


def test_max_turns_forces_a_showdown_without_knocker() -> None:
    game, s = new(2, {0: "C2 S3 H4", 1: "C5 S6 H7"}, "DK", max_turns=4)
    for _ in range(4):
        play(s, game, "draw")
        play(s, game, f"discard {card_name(s.hands[s.current_player][-1])}")
    assert s.last_round["kind"] == "capped" and s.last_round["knocker"] == -1 and s.stats["capped"] == 1
    assert s.last_round["lives_lost"] == [1, 0]


# ------------------------------------------------------------------ options, names, clone
@pytest.mark.parametrize(
    ("opts", "match"),
    [
        ({"num_players": 10}, r"num_players must be an int from 2 to 9, got 10"),
        ({"num_players": 1}, "num_players"),
        ({"min_knock_score": 32}, r"min_knock_score must be None or a number from 0 to 31, got 32"),
        ({"three_of_a_kind": 29}, r"three_of_a_kind must be one of \[None, 30, 30.5\]"),
        ({"three_aces": 31}, r"three_aces must be one of \[None, 32\]"),
        ({"deck": 36}, r"deck must be one of \[52, 32\]"),
        ({"knock_allowed": "never"}, r"knock_allowed must be one of \['first_turn', 'after_first_round'\]"),
        ({"knocker_penalty": 3}, "knocker_penalty must be one of"),
        ({"knocker_penalty": True}, "knocker_penalty must be one of"),
        ({"knocker_tie": "lose"}, "knocker_tie must be one of"),
        ({"stock_exhausted": "showdown"}, "stock_exhausted must be one of"),
        ({"scoring": "bank"}, "scoring must be one of"),
        ({"episode": "deal"}, "episode must be one of"),
        ({"reward_scheme": "rank"}, "reward_scheme must be one of"),
        ({"lives": 0}, "lives must be"),
        ({"free_ride": "yes"}, "free_ride must be True or False"),
        ({"throw_down": 1}, "throw_down must be True or False"),
        ({"target_score": 0}, "target_score"),
        ({"max_turns": 0}, "max_turns"),
        ({"first_dealer": 4}, "first_dealer must be None or a seat from 0 to 3"),
        ({"players": 4}, r"unknown Thirty-One option 'players'; valid options: num_players"),
    ],
)
def test_bad_options(opts: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ThirtyOneGame(**opts)


def test_bad_decks() -> None:
    game = ThirtyOneGame(num_players=2)
    deck = [card_name(c) for c in DECK_52]
    with pytest.raises(ValueError, match=r"duplicates \['HK'\]"):
        game.new_initial_state(deck=deck[:-1] + ["HK"])
    with pytest.raises(ValueError, match="not a card"):
        game.new_initial_state(deck=deck[:-1] + ["ZZ"])
    with pytest.raises(ValueError, match=r"missing \['DA'\]"):
        game.new_initial_state(deck=deck[:-1])
    with pytest.raises(ValueError, match="list of card names"):
        game.new_initial_state(deck="HK HQ")
    with pytest.raises(ValueError, match="dealer"):
        game.new_initial_state(dealer=2)


def test_action_names_round_trip() -> None:
    game = ThirtyOneGame()
    assert game.num_actions == 57
    for a in range(57):
        assert game.action_index(game.action_name(a)) == a
    assert game.action_name(37) == "discard HK" and game.action_index("HK") == 37
    assert game.action_index("discard_hk") == 37 and game.action_index("Throw Down") == 55
    with pytest.raises(ValueError, match="unknown action name"):
        game.action_index("fold")
    with pytest.raises(ValueError, match="out of range"):
        game.action_name(57)  # "pick 1" belongs to the games with table cards
    with pytest.raises(ValueError, match="out of range"):
        game.action_name(73)


def test_same_seed_same_game_and_clone_is_independent() -> None:
    game = ThirtyOneGame(num_players=4)
    a, b = game.new_initial_state(seed=7), game.new_initial_state(seed=7)
    c = a.clone()
    while not a.is_terminal():
        la = a.legal_actions()
        assert la == b.legal_actions() == c.legal_actions()
        for st in (a, b, c):
            st.apply_action(la[len(la) // 2])
    assert a.returns() == b.returns() == c.returns()
    d = game.new_initial_state(seed=7)
    e = d.clone()
    d.apply_action(d.legal_actions()[0])
    assert e.phase == DRAW and d.phase == DISCARD and len(e.hands[e.current_player]) == 3
    assert render_text(d).startswith("Thirty-One")  # render imports rules, never the reverse: no str(state)


def test_first_dealer_option_and_random_dealer() -> None:
    s = ThirtyOneGame(num_players=5, first_dealer=2).new_initial_state(seed=0)
    assert s.dealer == 2 and s.current_player == 3
    dealers = {ThirtyOneGame(num_players=5).new_initial_state(seed=k).dealer for k in range(40)}
    assert len(dealers) > 1


def test_precomputed_hand_values_match_hand_value() -> None:
    from itertools import combinations

    from envs.thirtyone.scoring import HandValuer

    for opts in ({}, {"three_of_a_kind": 30}, {"three_of_a_kind": 30.5, "three_aces": 32}, {"three_aces": 32}):
        valuer = HandValuer(opts.get("three_of_a_kind"), opts.get("three_aces"))
        for a, b, c in combinations(range(52), 3):
            assert valuer.value((1 << a) | (1 << b) | (1 << c)) == hand_value([a, b, c], **opts)
