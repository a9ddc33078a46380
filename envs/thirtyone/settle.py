"""The end of a Thirty-One round: lives lost, points won or the pot taken; eliminations and rewards.

Called by the rules core with the state (``end_round``); the scoring rules themselves live in
``envs.thirtyone.scoring`` (``lives_lost``, ``points_won``, ``pot_shares``).

Rewards (``state.payoff``, what the env hands out as it changes):

* ``episode="round"``: minus the lives lost (lives game; ``reward_scheme="tokens"``: minus the tokens
  paid), the points won, or the tokens won or lost (pot game).
* ``episode="game"``, ``"win"``: +1 to the winner, -1/(n-1) to each other player, given at its
  elimination; ``"placement"``: linear in the final place.
* ``"tokens"``: money. Lives game: each life lost is a token paid into the kitty ("if you lose two lives
  you put two pennies in the kitty"; a player pays only the tokens it has: on the county it has none),
  paid as it is lost; the last player in takes the kitty. Pot game: each round's ante and winnings as
  they happen. An episode's return is the tokens won or lost.
* ``max_rounds`` reached: the players still in are ranked by lives / tokens / points; "win" shares the
  win among tied leaders (zero-sum), "placement" ranks them, "tokens" shares the kitty among the leaders.
"""

from __future__ import annotations

from typing import Any

from envs.thirtyone.scoring import elimination_reward, final_rewards, lives_lost, place_reward, points_won, pot_shares

ThirtyOneState = Any  # envs.thirtyone.rules.ThirtyOneState (not imported: rules imports this module)

DELTA_KEYS = {"lives": "lives_lost", "points": "points", "pot": "tokens"}  # the last_round key of the round's result


def ante(s: ThirtyOneState) -> None:
    """Pot game: every player in the round puts ``ante`` tokens (all it has, if fewer) into the pot."""
    s.pot = 0
    s.anted = [0] * s.n
    for x in s.seats:
        a = min(s.opts.ante, s.tokens[x])
        s.tokens[x] -= a
        s.anted[x] = a
        s.pot += a


def _pot_round(s: ThirtyOneState, values: list[float], void: bool) -> list[int]:
    """Pot game: the highest hand(s) take the pot (a blitz: the others pay one more token first);
    a void round gives the antes back. Returns each player's net tokens for the round."""
    seats = s.seats
    if void:
        for x in seats:
            s.tokens[x] += s.anted[x]
        s.pot = 0
        return [0] * len(seats)
    extra = [0] * len(seats)
    if max(values) >= s.blitz:  # "all other players place one token or coin on the table"
        for i, x in enumerate(seats):
            if values[i] < s.blitz and s.tokens[x] > 0:
                s.tokens[x] -= 1
                s.pot += 1
                extra[i] = 1
    top = max(values)
    shares = pot_shares(s.pot, [i for i, v in enumerate(values) if v == top], len(seats))
    for i, x in enumerate(seats):
        s.tokens[x] += shares[i]
    s.pot = 0
    return [shares[i] - s.anted[x] - extra[i] for i, x in enumerate(seats)]


def end_round(s: ThirtyOneState, kind: str, knocker: int = -1) -> None:
    """Score the round (kind: showdown, capped, blitz, throw_down, void, restart); deal the next or finish.
    A restart is scored as a void round and not dealt on (the caller deals the restart)."""
    o, seats, st = s.opts, s.seats, s.stats
    st["rounds"] += 1
    st["turns"] += s.turn_no
    if kind == "blitz":
        st["blitzes"] += 1
    values = [s.valuer.value(s.hand_mask[x]) for x in seats]
    k = seats.index(knocker) if knocker >= 0 else None
    void = kind in ("void", "restart")
    scoring = o.scoring
    if scoring == "pot":
        delta = _pot_round(s, values, void)
    elif void:
        delta = [0] * len(seats)
    elif scoring == "lives":
        delta = lives_lost(values, k, knocker_penalty=o.knocker_penalty, knocker_tie=o.knocker_tie, blitz=s.blitz)
    else:
        delta = points_won(values, k, blitz=s.blitz)
    if k is not None and kind != "blitz" and not void:
        if scoring == "lives":
            lost = delta[k] > 0
        else:
            lost = delta[k] == 0 if scoring == "points" else delta[k] <= 0
        st["knocker_losses"] += lost
    s.last_round = {
        "round": s.round_no, "kind": kind, "knocker": knocker, "seats": list(seats),
        "hands": [s.hands[x] for x in seats],
        "values": values, DELTA_KEYS[scoring]: delta,
        "eliminated": [], "void": void,
    }  # fmt: skip
    if kind == "restart":
        return
    lives = scoring == "lives"
    tokens = o.reward_scheme == "tokens"
    if o.episode == "round":  # rewards: minus the lives lost (or tokens paid), the points or the tokens won
        ride = 1 if o.free_ride else 0
        for x, d in zip(seats, delta, strict=True):
            if scoring == "pot":
                s.payoff[x] = float(d)
                continue
            lost = d
            if d and lives:
                pay = min(d, max(0, s.tokens[x] - ride))  # as far as the player has lives left
                s.paid[x] += pay
                s.kitty += pay
                if tokens:
                    lost = pay
            s.payoff[x] = float(-lost if lives else d)
            s.tokens[x] = max(0, s.tokens[x] - d) if lives else s.tokens[x]
            s.scores[x] += 0 if lives else d
        s._finish()
        return
    if lives:
        out = [x for x, d in zip(seats, delta, strict=True) if d and s.tokens[x] <= d]
        if len(out) == len(seats):  # nobody would be left: the round's losses are void
            s.last_round["void"] = True
        else:
            ride = 1 if o.free_ride else 0
            for x, d in zip(seats, delta, strict=True):  # each life lost is a token into the kitty
                if d:
                    pay = min(d, max(0, s.tokens[x] - ride))  # as far as the player has lives left
                    s.paid[x] += pay
                    s.kitty += pay
                    if tokens:
                        s.payoff[x] -= pay
            for x, d in zip(seats, delta, strict=True):
                s.tokens[x] = max(0, s.tokens[x] - d)
            if out:
                _eliminate(s, out)
        if sum(s.alive) == 1:
            winner = next(x for x in seats if s.alive[x])
            s.kitty_to[winner] = s.kitty
            if tokens:
                s.payoff[winner] += s.kitty
            else:
                s.payoff[winner] = 1.0
            s._finish()
            return
    elif scoring == "points":
        for x, d in zip(seats, delta, strict=True):
            s.scores[x] += d
        top = max(s.scores)
        if top >= o.target_score and s.scores.count(top) == 1:
            s.payoff = final_rewards(s.scores, o.reward_scheme)
            s._finish()
            return
    else:
        if tokens:
            for x in seats:
                s.payoff[x] = float(s.tokens[x] - s.game.start_tokens)
        _eliminate(s, [x for x in seats if s.tokens[x] == 0])
        if sum(s.alive) == 1:
            if not tokens:
                s.payoff[next(x for x in seats if s.alive[x])] = 1.0
            s._finish()
            return
    if o.max_rounds is not None and s.round_no >= o.max_rounds:
        _finish_capped(s)
        return
    s.dealer = s.next_seat[s.dealer]
    while not s.alive[s.dealer]:
        s.dealer = (s.dealer + 1) % s.n
    s._start_round()


def _eliminate(s: ThirtyOneState, out: list[int]) -> None:
    tokens = s.opts.reward_scheme == "tokens"
    for x in out:
        s.alive[x] = False
        if not tokens:
            s.payoff[x] = elimination_reward(s.n, s.n_out, len(out), s.opts.reward_scheme)
    s.n_out += len(out)
    s.last_round["eliminated"] = out


def standing(s: ThirtyOneState, seat: int) -> float:
    """What ranks the players when ``max_rounds`` ends a game: points, else lives / tokens held."""
    return s.scores[seat] if s.opts.scoring == "points" else s.tokens[seat]


def _finish_capped(s: ThirtyOneState) -> None:
    """``max_rounds`` reached: rank the players still in by their standing."""
    n, scheme = s.n, s.opts.reward_scheme
    order = [x for x in s.seats if s.alive[x]]  # from the dealer's left
    value = {x: standing(s, x) for x in order}
    top = max(value.values())
    leaders = [x for x in order if value[x] == top]
    if s.opts.scoring == "lives":
        shares = pot_shares(s.kitty, [order.index(x) for x in leaders], len(order))
        for x, share in zip(order, shares, strict=True):
            s.kitty_to[x] = share
            if scheme == "tokens":
                s.payoff[x] += share
    if scheme == "win":
        w = 1.0 / (n - 1)
        for x in order:
            s.payoff[x] = (1.0 + w) / len(leaders) - w if x in leaders else -w
    elif scheme == "placement":
        for x in order:
            higher = sum(1 for y in order if value[y] > value[x])
            ties = sum(1 for y in order if value[y] == value[x])
            s.payoff[x] = place_reward(1 + higher + (ties - 1) / 2, n)
    s._finish()


def tokens_won(s: ThirtyOneState) -> list[float] | None:
    """Tokens each seat has won (+) or lost (-) so far, whatever the reward scheme: the pot game's
    tokens over the start; the lives game's kitty taken minus the tokens paid into it (one per life
    lost, as far as the player had any). None for the points game (no tokens)."""
    if s.opts.scoring == "points":
        return None
    if s.opts.scoring == "pot":
        return [float(t - s.game.start_tokens) for t in s.tokens]
    return [float(k - p) for k, p in zip(s.kitty_to, s.paid, strict=True)]


def summary_key(last_round: dict[str, Any]) -> str:
    """The key of a round record's result: lives_lost, points or tokens."""
    return next(k for k in DELTA_KEYS.values() if k in last_round)
