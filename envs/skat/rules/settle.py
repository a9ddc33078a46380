"""The end of a deal on an extended table: the game's outcome and every position's score.

A game played out (or whose remaining tricks were claimed or conceded, see ``phases``) is settled
with the table's values: the Skat Order's (``envs.skat.scoring``, with the pack's matadors and
trick count) or North American skat's (``envs.skat.scoring_tournee``). A declarer who concedes
before the second trick, or a revoke in Idiotenskat, ends the game *simply*: lost (or, for a
defender's revoke, won) at the value the declaration reached, schneider and schwarz counting only
as announced. Ramsch is scored by the table's house rules (``scoring.ramsch_result``).
"""

from __future__ import annotations

import dataclasses

from envs.skat.cards import NULL, cards_of
from envs.skat.rules.extras import CONCEDED, REVOKED
from envs.skat.rules.phase_ids import DONE
from envs.skat.rules.phase_ids import State as SkatState
from envs.skat.scoring import WIN_BONUS, Outcome, ramsch_result, seat_scores, settle
from envs.skat.scoring_tournee import settle_tournee, tournee_ramsch


def finish(s: SkatState) -> None:
    s.phase, s.current_player = DONE, -1
    t = s.table
    if s.contract is None:
        scores = _ramsch(s)
    else:
        s.outcome = outcome(s)
        if t.tournee:  # the classic ledger: only the declarer scores
            scores = [0, 0, 0]
            scores[s.declarer] = s.outcome.declarer_score
        else:
            scores = seat_scores(s.outcome, s.declarer, s.options.scoring, t.scoring_players)
    if t.dummy >= 0 or t.officers:
        scores[2] = 0  # no seat behind the dummy (or the empty chair of Officers' Skat)
    if len(scores) < t.score_len:
        scores += [0] * (t.score_len - len(scores))  # the dealer sitting out a Ramsch
    s.scores = scores


def outcome(s: SkatState) -> Outcome:
    """The declarer's game as it ended (played out, claimed, conceded or revoked)."""
    t, x, d, c = s.table, s.x, s.declarer, s.contract
    pts = s.points_of
    cards = s.dealt[d] | s.original_skat
    points = s.points[d] + sum(pts[k] for k in cards_of(s.skat))
    tricks = s.tricks_won[d]
    # A declarer's concession before the second trick leaves the tricks unplayed (an approved one,
    # later, gave them to the defenders: trick_count is then complete).
    simple = (x.ending == CONCEDED and x.ended_by == d and s.trick_count < t.tricks) or x.ending == REVOKED
    if simple:
        won = x.ending == REVOKED and x.ended_by != d
        # neutral numbers: no schneider or schwarz unless announced; null decided by `won`
        points, tricks = 61, (0 if won and c.game == NULL else 1)
    if t.tournee:
        out = settle_tournee(c, x.mode, s.bid, cards, points, tricks, s.doubling)
    else:
        mat = t.pack.matadors(c.game, cards) if c.game != NULL else 0
        out = settle(c, s.bid, cards, points, tricks, s.doubling, tricks=t.tricks, mat=mat)
    if simple:
        out = dataclasses.replace(out, won=won and not out.overbid, declarer_points=s.points[d],
                                  declarer_tricks=s.tricks_won[d])
    return out


def _ramsch(s: SkatState) -> list[int]:
    t, x, o = s.table, s.x, s.options
    pts = s.points_of
    points = list(s.points)
    skat = sum(pts[k] for k in cards_of(s.skat))
    if x.ending == REVOKED:  # Idiotenskat: the revoking player loses as if it held every card point
        x.ramsch_points = points
        return [-sum(pts) if p == x.ended_by else 0 for p in range(3)]
    if t.tournee:  # North American Ramsch: the skat counts for nobody
        x.ramsch_points = points
        return tournee_ramsch(points, s.tricks_won)
    if o.ramsch_scoring == "gewinner":
        top = max(points)
        points[points.index(top)] += skat  # the skat goes to the highest score (first from forehand)
    else:
        points[s.leader] += skat  # to the winner of the last trick
    s.points = points
    x.ramsch_points = list(points)
    gewinner = o.ramsch_scoring == "gewinner"
    return ramsch_result(points, s.tricks_won, o.ramsch_scoring, jungfrau=o.jungfrau and not gewinner,
                         durchmarsch=o.durchmarsch and not gewinner, factor=2 ** x.pushes,
                         win_bonus=WIN_BONUS if gewinner and o.scoring == "tournament" else 0)
