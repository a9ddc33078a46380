"""PIMC: a Kermit-style Skat player by perfect-information Monte Carlo over the double-dummy solver.

    agents.make("pimc", game="skat", seed=1)                       # defaults
    agents.make("pimc:worlds=24,question=exact", game="skat")       # options in the spec string
    agents.make("pimc", game="skat", seed=1, preset="fast")         # a quick training opponent
    agents.make("pimc:preset=endgame", game="skat")                 # the PPO network, searching its last five tricks
    agents.make("pimc:preset=expert", game="skat")                  # skat_exit_dagger.pt, searching its last four
    python -m train.evaluate pimc --vs rule --game skat --deals 100

It decides from the observation alone (``envs.skat.observation.decode``): its hand, the cards each
seat has played, the current trick, the skat when it put it away, the declarer and contract,
card points and tricks taken, the voids each seat has shown and an ouvert declarer's open hand.
Every random choice comes from the seed and the observation, so it is deterministic with a seed
and one instance may play several seats (``shareable``).

Card play
    Sample worlds consistent with the observation (``agents.pimc.worlds``: voids honoured, the
    skat placed when unknown), solve each one double dummy for every legal card
    (``envs.skat.solver``) and play the card with the best average *tournament score* for this
    seat. Questions: ``grade`` (default) finds per card which outcome class the declarer reaches
    (under 31, under 61, 61 or more, 90 or more: lost schneider, lost, won, won schneider) with a
    few null-window searches; ``win`` only asks for 61; ``exact`` solves the card points (slowest,
    ties broken by points). Null asks "does the declarer take no trick", announced schwarz "every
    trick", Ramsch minimises the seat's own card points (the two others assumed against it).
    Defenders count half of the declarer's score against themselves (in a duplicate match that is
    the other side's result). Ties go to the rule agent's card, else the cheapest card. Work is
    bounded by solver nodes, not time (``budget`` per decision, ``world_limit`` per world; a world
    past it is dropped), so results do not depend on the machine's speed.

A base agent and search from a trick on (``base=SPEC``, ``from_trick=K``)
    Where PIMC does not search (the auction, skat, discard and declaration with ``auction=rule``,
    card play before trick ``from_trick``) it plays the base agent's choice, and its ties go to the
    base agent's card: ``rule`` by default, or a Skat checkpoint played greedily. Search is cheap
    late in a deal (on this machine: 480 ms per card decision at trick 1, 16 ms at trick 5, 6 ms at
    trick 6, 1.3 ms at trick 9, 16 worlds), so ``pimc:base=checkpoints/skat_ppo.pt,from_trick=6,worlds=8``
    (``preset=endgame``) costs about a hundredth of full PIMC's time per decision and fixes the
    network's endgame: +4.1 points per game over the network alone, head to head (README, "Search
    agents").

Inference (``infer=bidding``)
    Worlds are kept with a chance given by how well the other seats' cards fit their calls in the
    auction under the rule agent's bidding model (``worlds.bidding_weight``). Measured in one
    table with plain PIMC and the rule agent (20 duplicate deals, seed 4): +4.5 SF points per
    game over plain PIMC, 95% interval [-3.4, +13.6], not yet significant, so it is off by
    default. Earlier card plays are only used through voids.

Auction, skat, discard, declaration, Kontra/Re (``auction=search``; the default ``auction=rule`` leaves them
to the rule agent: measured better, see below)
    Keller & Kupferschmid style (``agents.pimc.bidding``): each candidate game (from the rule
    agent's hand model) is solved on ``deals`` random deals of the hidden cards, with the discard
    the declarer would make; its winning rate and game values give the expected Seeger-Fabian
    score at each bid. It bids while the best game's expectation clears ``margin``, plays hand
    when that looks ``hand_edge`` better, discards and declares by the same estimate over the
    best few discards, says Kontra when the declarer's estimated chance is below ``kontra_p`` and
    Re above ``re_p``. Measured against the rule agent it declares far too rarely (about 21% of
    the seats against the rule agent's 37%, winning 88-90% of its games, also with ``margin=-20``):
    double-dummy defenders see the declarer's cards, which makes solved deals a pessimistic
    estimate of a game's chances against real defenders (grand suffers most). Hence the default
    ``auction=rule``; calibrating the estimate (a learned correction from played deals) is open.

Known weaknesses of PIMC (Long et al., AAAI 2010; Frank & Basin 1998)
    * Strategy fusion: each world is solved as if the player knew the cards, so a card that wins
      in every world by a *different* later play looks sure even when the player cannot tell
      which play is right; PIMC overrates guesses it will have to make later.
    * Non-locality and no information gathering: it never plays a card to learn (or to hide)
      where cards are, and it assumes the opponents play perfectly against the actual cards
      (double dummy), which makes it too pessimistic about defenders' mistakes and blind to
      deceptive plays.
    * Its beliefs are only the hard constraints (and optionally the auction): no model of how
      the other players choose cards (Kermit's and policy-based inference do that).
    What it does about them: nothing beyond averaging tournament scores rather than win counts,
    bounded work per decision, and the rule agent's card as the tie-break.

Speed (CPU time, one core): about 0.7 s per seat and deal with the defaults, 0.12 s with
``preset=fast`` (6 worlds, 250k nodes per decision, the ``win`` question) for use as a training
opponent.
"""

from __future__ import annotations

from agents.pimc.agent import PIMCAgent, PIMCOptions


def make_pimc(spec: str = "pimc", seed: int | None = None, **options) -> PIMCAgent:
    """A PIMC agent from ``pimc`` or ``pimc:key=value,...`` plus keyword options."""
    name, _, text = spec.partition(":")
    if name != "pimc":
        raise ValueError(f"not a pimc spec: {spec!r}")
    return PIMCAgent(seed=seed, options=PIMCOptions.parse(text, **options))


__all__ = ["PIMCAgent", "PIMCOptions", "make_pimc"]
