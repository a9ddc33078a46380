"""Thirty-One invariants over many random games (hypothesis), the observation layout and no leaks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from envs import thirtyone_v0
from envs.thirtyone import ThirtyOneGame
from envs.thirtyone.cards import DECKS, cards_of
from envs.thirtyone.observation import OBS_SIZE, ObservationEncoder, decode
from envs.thirtyone.rules import DISCARD, PLACE, THROW
from envs.thirtyone.variants import VARIANT_NAMES, VARIANTS

OPTIONS = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 9),
        "deck": st.sampled_from([52, 32]),
        "lives": st.integers(1, 3),
        "free_ride": st.booleans(),
        "three_of_a_kind": st.sampled_from([None, 30, 30.5]),
        "three_aces": st.sampled_from([None, 32]),
        "knock_allowed": st.sampled_from(["first_turn", "after_first_round"]),
        "min_knock_score": st.sampled_from([None, 12, 20]),
        "knocker_penalty": st.sampled_from([1, 2]),
        "knocker_tie": st.sampled_from(["safe", "double"]),
        "stock_exhausted": st.sampled_from(["reshuffle", "draw"]),
        "throw_down": st.booleans(),
        "scoring": st.sampled_from(["lives", "points"]),
        "target_score": st.integers(3, 12),
        "episode": st.sampled_from(["game", "round"]),
        "reward_scheme": st.sampled_from(["win", "placement"]),
    }
)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(s) -> None:
    """Every card is in exactly one place; hands, visible cards, knowledge and tokens are consistent."""
    deck = set(DECKS[s.opts.deck])
    held = [c for seat in s.seats for c in s.hands[seat]]
    on_table = [c for c in s.table if c >= 0]
    everything = held + s.pile + s.stock + on_table + cards_of(s.dead) + cards_of(s.gone)
    assert len(everything) == len(set(everything)) == len(deck) and set(everything) == deck
    four = s.phase in (DISCARD, PLACE)
    for seat in range(s.n):
        assert s.hand_mask[seat] == sum(1 << c for c in s.hands[seat])
        if seat not in s.seats:
            assert s.hands[seat] == []
        elif not s.is_terminal():
            assert len(s.hands[seat]) == (4 if four and seat == s.current_player else 3)
    public = 0
    for m in s.disc_by:
        assert m & public == 0
        public |= m
    face_up = sum(1 << c for c, up in zip(s.table, s.face_up, strict=True) if up and c >= 0)
    assert public == sum(1 << c for c in s.pile) | face_up  # the visible cards, by who put them there
    assert all(s.owner[c] == seat for seat in range(s.n) for c in cards_of(s.disc_by[seat]))
    for seat, m in enumerate(s.known):
        assert m & ~s.hand_mask[seat] == 0  # known cards are really held
    assert all(t >= 0 for t in s.tokens) and s.kitty == sum(s.paid)
    if s.opts.scoring == "pot":  # tokens are only moved, never made
        assert sum(s.tokens) + s.pot == s.n * s.game.start_tokens


@FAST
@given(options=OPTIONS, seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_invariants_and_end(options: dict, seed: int) -> None:
    game = ThirtyOneGame(**options)
    s = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(20_000):
        check_invariants(s)
        if s.is_terminal():
            break
        legal = s.legal_actions()
        assert legal, "the player to act always has a legal action"
        assert s.current_player in s.seats and s.alive[s.current_player]
        if s.knocker >= 0 and s.phase != DISCARD:
            assert s.current_player != s.knocker
        s.apply_action(rng.choice(legal))
    assert s.is_terminal(), "a game always ends"
    assert s.legal_actions() == [] and s.current_player == -1
    r = s.returns()
    if options["episode"] == "game":
        assert max(r) == 1.0 and abs(sum(r)) < 1e-9
    elif options["scoring"] == "lives":
        assert all(-2 <= x <= 0 for x in r)


def reference_encode(s, seat: int) -> np.ndarray:
    """Straight from the documented layout (slow, independent of the fast encoder)."""
    o, n, v = s.opts, s.n, np.zeros(OBS_SIZE, np.float32)
    cp = s.current_player
    hidden = s.phase == THROW and seat == cp
    if not hidden:
        v[s.hands[seat]] = 1
    if s.pile:
        v[52 + s.pile[-1]] = 1
    if s.locked >= 0:
        v[104 + s.locked] = 1
    for c in s.pile:
        v[156 + 52 * ((s.owner[c] - seat) % n) + c] = 1
    for t in range(n):
        if t != seat:
            for c in cards_of(s.known[t]):
                v[624 + 52 * ((t - seat) % n - 1) + c] = 1
    for r in range(n):
        t, base = (seat + r) % n, 1040 + 8 * r
        v[base : base + 8] = [
            1, not s.alive[t], s.lives(t) / o.lives, s.on_county(t), t == s.knocker, t == s.dealer,
            min(s.scores[t] / o.target_score, 1) if o.scoring == "points" else 0, t == cp,
        ]  # fmt: skip
    value = 0.0
    if not hidden:
        hand = s.hands[seat]
        if s.phase == DISCARD and seat == cp:
            value = max(s.valuer.value(s.hand_mask[seat] & ~(1 << c)) for c in hand if c != s.locked)
        else:
            value = s.valuer.value(s.hand_mask[seat])
    m = len(s.seats)
    v[1112:] = [
        s.phase == THROW, s.phase == 1, s.phase == DISCARD, len(s.stock) / 52, len(s.pile) / 52,
        s.knocker >= 0, min(s.turn_no / 100, 1), min(s.turn_no / m / 10, 1), min(s.round_no / 30, 1),
        m / 9, n / 9, value / 32, (o.min_knock_score or 0) / 31, o.deck == 32, o.scoring == "points",
        o.episode == "round", (o.three_of_a_kind or 0) / 31, o.three_aces is not None,
    ]  # fmt: skip
    return v


def hide_swap(s, seat: int, rng: random.Random) -> bool:
    """Swap a card the seat cannot see (an opponent's unknown card) with a stock card, in place."""
    choices = [(t, c) for t in s.seats if t != seat for c in s.hands[t] if not (s.known[t] >> c) & 1]
    if not choices or not s.stock:
        return False
    t, c = rng.choice(choices)
    i = rng.randrange(len(s.stock))
    d = s.stock[i]
    s.hands[t][s.hands[t].index(c)] = d
    s.hand_mask[t] ^= (1 << c) | (1 << d)
    s.stock[i] = c
    return True


@FAST
@given(options=OPTIONS, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_observation_matches_layout_and_leaks_nothing(options: dict, seed: int, steps: int) -> None:
    game = ThirtyOneGame(**options)
    s = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    enc = ObservationEncoder(game)
    for seat in range(s.n):
        obs = enc.encode(s, seat)
        np.testing.assert_allclose(obs, reference_encode(s, seat), atol=1e-6)
        assert obs.min() >= 0 and obs.max() <= 1
        info = decode(obs)
        if not (s.phase == THROW and seat == s.current_player):
            assert sorted(info["hand"]) == sorted(s.hands[seat])
        assert info["top"] == (s.pile[-1] if s.pile else -1) and info["stock"] == len(s.stock)
        other = s.clone()
        if hide_swap(other, seat, rng):
            assert not np.array_equal([other.hand_mask[t] for t in range(s.n)], [s.hand_mask[t] for t in range(s.n)])
            np.testing.assert_array_equal(ObservationEncoder(game).encode(other, seat), obs)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 9), seed=st.integers(0, 2**31 - 1), episode=st.sampled_from(["game", "round"]))
def test_env_masks_never_empty_and_observations_in_bounds(n: int, seed: int, episode: str) -> None:
    e = thirtyone_v0.env(num_players=n, episode=episode)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    space = e.observation_space("player_0")
    for steps, agent in enumerate(e.agent_iter()):
        assert steps < 50_000
        obs, _, term, trunc, info = e.last()
        assert isinstance(info, dict)
        if term or trunc:
            e.step(None)
            continue
        assert space.contains(obs)
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size > 0
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(legal[rng.integers(legal.size)]))
    assert not e.agents


# ------------------------------------------------------------------ the named variants and the table games
@st.composite
def variant_options(draw, name: str) -> dict:
    """The named variant ``name`` with options on top (the ones that fit it)."""
    o = {"variant": name, "num_players": draw(st.integers(2, 9)), "episode": draw(st.sampled_from(["game", "round"])),
         "reward_scheme": draw(st.sampled_from(["win", "placement", "tokens"])), "lives": draw(st.integers(1, 3)),
         "max_rounds": draw(st.sampled_from([None, 3])), "throw_down": draw(st.booleans()),
         "knock_allowed": draw(st.sampled_from(["first_turn", "after_first_round"])),
         "exchange": draw(st.sampled_from([VARIANTS[name].options.get("exchange", "stock"), "widow", "pool",
                                           "switch"])),
         "stock_exhausted": draw(st.sampled_from(["reshuffle", "draw"]))}
    if name != "stop_the_bus":
        o["straight_flush"] = draw(st.sampled_from([None, 30]))
        o["min_knock_score"] = draw(st.sampled_from([None, 20]))
    if name == "no_elimination" and o["reward_scheme"] == "tokens":
        o["reward_scheme"] = "win"
    if o["exchange"] != "switch":
        o["switch_restart"] = False
    try:
        ThirtyOneGame(**o)
    except ValueError:
        assume(False)  # e.g. too many players for the 32-card deck with Switch
    return o


def hidden_cards(s, seat: int) -> list[tuple[str, int, int]]:
    """Cards ``seat`` cannot see: (where, index, card) for other players' cards not known to be held and
    face-down table cards (the Switch dealer sees its second hand while choosing)."""
    out = [("hand", t, c) for t in s.seats if t != seat for c in s.hands[t] if not (s.known[t] >> c) & 1]
    out += [("table", j, c) for j, c in enumerate(s.table)
            if c >= 0 and not s.face_up[j] and not (s.peek == seat and j < 3)]
    return out


def hide_swap_table(s, seat: int, rng: random.Random) -> bool:
    """Swap a card the seat cannot see with a stock card, in place (the table layout's leak check)."""
    choices = hidden_cards(s, seat)
    if not choices or not s.stock:
        return False
    where, at, c = rng.choice(choices)
    i = rng.randrange(len(s.stock))
    d = s.stock[i]
    if where == "hand":
        s.hands[at][s.hands[at].index(c)] = d
        s.hand_mask[at] ^= (1 << c) | (1 << d)
    else:
        s.table[at] = d
    s.stock[i] = c
    return True


PER_VARIANT = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", VARIANT_NAMES)
@PER_VARIANT
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_variant_games_keep_the_invariants_and_end(name: str, data, seed: int) -> None:
    options = data.draw(variant_options(name))
    game = ThirtyOneGame(**options)
    s = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(50_000):
        check_invariants(s)
        if s.is_terminal():
            break
        legal = s.legal_actions()
        assert legal and legal == sorted(legal) and len(set(legal)) == len(legal)
        assert bytes(s.legal_bytes()) == bytes(a in legal for a in range(game.num_actions))
        s.apply_action(rng.choice(legal))
    assert s.is_terminal(), "a game always ends"
    r = s.returns()
    if options["episode"] == "game":
        assert abs(sum(r)) < 1e-9
    if options["reward_scheme"] != "tokens" and options["episode"] == "game":
        assert max(r) == 1.0 or options["max_rounds"]


@pytest.mark.parametrize("name", VARIANT_NAMES)
@PER_VARIANT
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80))
def test_variant_observations_leak_nothing(name: str, data, seed: int, steps: int) -> None:
    """In every variant: swapping any card the seat cannot see (other hands, face-down table cards) with a
    stock card changes nothing in its observation."""
    options = data.draw(variant_options(name))
    from envs.thirtyone.observation_table import TABLE_OBS_SIZE, encode_table

    game = ThirtyOneGame(**options)
    s = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    encode = encode_table if game.table_layout else ObservationEncoder(game).encode
    for seat in range(s.n):
        obs = encode(s, seat)
        assert obs.shape == ((TABLE_OBS_SIZE,) if game.table_layout else (OBS_SIZE,))
        assert obs.min() >= 0 and obs.max() <= 1
        info = decode(obs)
        if not (s.phase == THROW and seat == s.current_player):
            assert sorted(info["hand"]) == sorted(s.hands[seat])
        if game.table_layout:
            seen = [c if (s.face_up[j] or (s.peek == seat and j < 3)) else -1 for j, c in enumerate(s.table)]
            assert info["table"][: len(s.table)] == seen
        other = s.clone()
        if hide_swap_table(other, seat, rng):
            again = encode_table(other, seat) if game.table_layout else ObservationEncoder(game).encode(other, seat)
            np.testing.assert_array_equal(again, obs)
