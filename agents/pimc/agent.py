"""The PIMC Skat player (see the package docstring for what it does and where it is weak)."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from agents.base import Agent, Observation
from agents.pimc import bidding as B
from agents.pimc.worlds import Knowledge, bidding_weight, legal_in_world, sample_world
from agents.rule_skat import RuleSkatAgent
from envs.bitset import cards_of
from envs.skat import actions as A
from envs.skat.cards import NULL, POINTS
from envs.skat.observation import OBSERVATION_SIZE, decode
from envs.skat.scoring import seat_scores, settle
from envs.skat.solver import Position, SearchAborted, Solver

# preset=endgame: the shipped PPO network decides, the search takes over card play in the last five tricks
SHIPPED_PPO = Path(__file__).resolve().parents[2] / "checkpoints" / "skat_ppo.pt"
# preset=expert: the strongest shipped network (learned endgame), the search in its last four tricks only
SHIPPED_EXPERT = SHIPPED_PPO.with_name("skat_exit_dagger.pt")
# the option values each ``preset=`` name stands for (options given beside it override them)
PRESETS: dict[str, dict] = {
    "default": {},
    "fast": {"worlds": 6, "budget": 250_000, "world_limit": 100_000, "question": "win", "auction": "rule"},
    "endgame": {"base": str(SHIPPED_PPO), "from_trick": 6, "worlds": 8},
    "expert": {"base": str(SHIPPED_EXPERT), "from_trick": 7, "worlds": 8},
}
_AUCTION, _SKAT, _DISCARD, _DECLARE, _KONTRA, _RE, _PLAY = range(7)
_MAX_MEMORY = 4096
GRADE_POINTS = (30, 45, 75, 95)  # a card-point total in each outcome class of (31, 61, 90)


@dataclass
class PIMCOptions:
    """Options (spec string ``pimc:worlds=16,question=exact``; ``preset=fast`` for a training opponent,
    ``preset=endgame`` for the shipped PPO network with this search in its last five tricks,
    ``preset=expert`` for ``checkpoints/skat_exit_dagger.pt`` with it in its last four)."""

    worlds: int = 16  # worlds sampled per card-play decision (at most)
    budget: int = 1_500_000  # solver nodes per card-play decision: fewer worlds when it is spent (min. 4)
    world_limit: int = 400_000  # solver nodes per world; a world past it is dropped
    question: str = "grade"  # grade: outcome class (31/61/90 thresholds); win: 61 only; exact: card points
    infer: str = "none"  # none: uniform worlds; bidding: weight worlds by the auction (rule bidding model)
    auction: str = "rule"  # rule: bid/discard/declare as the rule agent; search: by solved deals (K&K)
    deals: int = 10  # deals solved per candidate game in the auction and declaration
    deal_limit: int = 300_000  # solver nodes per solved deal there
    margin: float = 5.0  # minimum expected score of a game worth bidding on
    hand_edge: float = 5.0  # how much better a hand game must look than picking up
    kontra_p: float = 0.3  # Kontra when the declarer's estimated winning chance is below this
    re_p: float = 0.8  # Re when its own is above this
    base: str = "rule"  # the agent whose choice PIMC keeps where it does not search, and on ties
    from_trick: int = 1  # search card play from this trick (1-10) on; before it the base agent plays

    @classmethod
    def parse(cls, text: str = "", **overrides) -> PIMCOptions:
        opts: dict = {}
        if text:
            for item in text.split(","):
                key, sep, val = item.partition("=")
                key = key.strip()
                if not sep:
                    raise ValueError(f"pimc option {item!r}: expected KEY=VALUE, e.g. pimc:worlds=16")
                opts[key] = val.strip()
        opts.update(overrides)
        preset = opts.pop("preset", None)
        if preset not in (None, *PRESETS):
            raise ValueError(f"unknown pimc preset {preset!r}; expected one of {', '.join(map(repr, PRESETS))}")
        base = dict(PRESETS.get(preset, {}))
        known = {f.name: f for f in fields(cls)}
        for key, val in opts.items():
            if key not in known:
                raise ValueError(f"unknown pimc option {key!r}; known: preset, {', '.join(known)}")
            typ = type(getattr(cls(), key))
            try:
                base[key] = typ(val)
            except ValueError:
                raise ValueError(f"pimc option {key}={val!r}: expected {typ.__name__}") from None
        out = cls(**base)
        choices = {"question": ("grade", "win", "exact"), "infer": ("none", "bidding"), "auction": ("search", "rule")}
        for key, allowed in choices.items():
            if getattr(out, key) not in allowed:
                raise ValueError(f"pimc option {key}={getattr(out, key)!r}: expected one of {allowed}")
        if out.worlds < 1 or out.deals < 1:
            raise ValueError("pimc options worlds and deals must be at least 1")
        if not 1 <= out.from_trick <= 10:
            raise ValueError(f"pimc option from_trick={out.from_trick}: expected a trick from 1 to 10")
        if out.base == "pimc" or out.base.startswith("pimc:"):
            raise ValueError("pimc option base: expected 'rule' or a checkpoint, not another pimc agent")
        return out


class PIMCAgent(Agent):
    game = "skat"
    name = "pimc"
    shareable = True  # no per-deal state: every decision is made from the observation alone

    def __init__(self, seed: int | None = None, options: PIMCOptions | None = None, **kwargs) -> None:
        self.seed = 0 if seed is None else int(seed)
        self.options = options or PIMCOptions.parse(**kwargs)
        self.rule = RuleSkatAgent(seed)
        self.base = self.rule if self.options.base == "rule" else _load_base(self.options.base, seed)
        self.solver = Solver()
        self._estimates: dict[tuple[int, int], list[B.GameEstimate]] = {}
        self._plans: dict[tuple[int, int], tuple[int, str]] = {}
        self.stats = {"decisions": 0, "worlds": 0, "nodes": 0}
        self._values: dict[int, float] | None = None  # the last searched card's move values

    def action_values(self) -> dict[int, float] | None:
        """The last card decision's searched values: this seat's mean score over the worlds, per legal card."""
        return self._values

    def __repr__(self) -> str:
        return f"PIMCAgent(seed={self.seed}, {self.options})"

    def _rng(self, observation: Observation) -> np.random.Generator:
        """Randomness of one decision: from the seed and the observation, so a decision does not
        depend on which decisions this (shared) agent made before."""
        vec = np.ascontiguousarray(observation["observation"], dtype=np.float32)
        return np.random.default_rng([self.seed, zlib.crc32(vec.tobytes())])

    # --- the decision ------------------------------------------------------------------------
    def act(self, observation: Observation) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("PIMCAgent.act called with an empty action mask (no legal action)")
        if len(observation["observation"]) != OBSERVATION_SIZE or mask.size != A.NUM_ACTIONS:
            raise ValueError(f"the pimc agent plays the three-player table of the Skat Order (variant isko) only: "
                             f"this observation has {len(observation['observation'])} entries and "
                             f"{mask.size} actions, not {OBSERVATION_SIZE} and {A.NUM_ACTIONS}")
        view = decode(observation["observation"])
        phase = view.phase
        self._values = None
        if legal.size == 1 and phase != _PLAY:
            return int(legal[0])
        base_action = int(self.base.act(observation))
        if self.options.auction == "rule" and phase != _PLAY:
            return base_action
        if phase == _PLAY:
            action = self._play(view, observation, base_action)
        elif phase == _AUCTION:
            action = self._auction(view, observation, legal)
        elif phase == _SKAT:
            action = self._skat(view, observation)
        elif phase == _DISCARD:
            action = A.DISCARD + self._discard(view, observation)
        elif phase == _DECLARE:
            action = self._declare(view, observation, legal, base_action)
        elif phase in (_KONTRA, _RE):
            action = self._double(view, observation, phase)
        else:
            action = base_action
        if not mask[action]:  # a safety net: fall back on the base agent
            action = base_action
        return int(action)

    # --- auction and declaration -------------------------------------------------------------
    def _estimates_for(self, view, observation) -> list[B.GameEstimate]:
        key = (view.hand, view.position)
        got = self._estimates.get(key)
        if got is None:
            o = self.options
            got = B.estimate_games(view.hand, view.position, self.rule, self.solver, self._rng(observation), o.deals,
                                   o.deal_limit)
            if len(self._estimates) > _MAX_MEMORY:
                self._estimates.clear()
            self._estimates[key] = got
        return got

    def bid_limit(self, view, observation) -> int:
        return max((e.reach(self.options.margin) for e in self._estimates_for(view, observation)), default=0)

    def _auction(self, view, observation, legal) -> int:
        limit = self.bid_limit(view, observation)
        legal_set = set(int(a) for a in legal)
        if A.HOLD in legal_set:
            return A.HOLD if view.bid <= limit else A.PASS
        bids = [a for a in legal_set if A.BID <= a < A.BID + A.NUM_BIDS]
        if bids:
            a = min(bids)
            if A.BID_VALUES[a - A.BID] <= limit:
                return a
        return A.PASS

    def _skat(self, view, observation) -> int:
        best = {False: -1e9, True: -1e9}
        for e in self._estimates_for(view, observation):
            best[e.hand] = max(best[e.hand], e.score(view.bid))
        return A.HAND if best[True] > best[False] + self.options.hand_edge else A.PICKUP

    def _plan(self, view, observation, hand12: int, fixed_drop: int = 0) -> tuple[int, str]:
        key = (hand12, fixed_drop)
        got = self._plans.get(key)
        if got is None:
            o = self.options
            got = B.plan_declaration(hand12, view.position, view.bid, self.rule, self.solver, self._rng(observation),
                                     o.deals, o.deal_limit, fixed_drop)
            if len(self._plans) > _MAX_MEMORY:
                self._plans.clear()
            self._plans[key] = got
        return got

    def _discard(self, view, observation) -> int:
        hand12 = view.hand | view.skat_put
        drop, _ = self._plan(view, observation, hand12)
        left = drop & ~view.skat_put & view.hand
        return cards_of(left)[0] if left else cards_of(view.hand)[0]

    def _declare(self, view, observation, legal, base_action: int) -> int:
        if view.skat_put:  # after a pickup: the planned game (or the best one for the discard made)
            hand12 = view.hand | view.skat_put
            drop, label = self._plans.get((hand12, 0), (None, None))
            if drop != view.skat_put:
                _, label = self._plan(view, observation, hand12, view.skat_put)
        else:
            ests = [e for e in self._estimates_for(view, observation) if e.hand]
            if not ests:
                return base_action
            label = max(ests, key=lambda e: e.score(view.bid)).label
        action = A.DECLARE + A.CONTRACT_BY_LABEL[label]
        return action if action in set(int(a) for a in legal) else base_action

    def _double(self, view, observation, phase) -> int:
        o = self.options
        me = view.position
        declarer = (me + view.declarer) % 3
        p = B.declarer_win_chance(view.hand, me, declarer, view.game_type, view.skat_put if declarer == me else 0,
                                  self.solver, self._rng(observation), o.deals, o.deal_limit)
        if phase == _KONTRA:
            return A.KONTRA if p < o.kontra_p else A.PASS
        return A.RE if p > o.re_p else A.PASS

    # --- card play ---------------------------------------------------------------------------
    def _worlds(self, k: Knowledge, view, rng: np.random.Generator):
        """Worlds one at a time, with their weights (bidding inference: accepted with that chance)."""
        infer = self.options.infer == "bidding" and not k.ramsch
        for _ in range(self.options.worlds * (6 if infer else 1)):
            world = sample_world(k, rng)
            if world is None:
                continue
            if infer and rng.random() >= bidding_weight(self.rule, k, world, view):
                continue
            yield world

    def _play(self, view, observation, base_action: int) -> int:
        k = Knowledge.from_view(view)
        legal = legal_in_world(k)
        if legal & (legal - 1) == 0:
            return A.PLAY + cards_of(legal)[0]
        o = self.options
        if sum(k.tricks) + 1 < o.from_trick:
            return base_action
        rng = self._rng(observation)
        totals = {c: 0.0 for c in cards_of(legal)}
        solver = self.solver
        start = solver.nodes
        n_worlds = 0
        for world in self._worlds(k, view, rng):
            if n_worlds >= o.worlds or (n_worlds >= 4 and solver.nodes - start > o.budget):
                break
            scores = self._world_scores(k, view, world)
            if scores is None:
                continue
            n_worlds += 1
            for c in totals:
                totals[c] += scores[c]
        self.stats["decisions"] += 1
        self.stats["worlds"] += n_worlds
        self.stats["nodes"] += solver.nodes - start
        base_card = base_action - A.PLAY
        if not n_worlds:
            return base_action
        self._values = {A.PLAY + c: v / n_worlds for c, v in totals.items()}
        best = max(totals.values())
        ties = [c for c, v in totals.items() if v >= best - 1e-6 * max(1, n_worlds)]
        if base_card in ties:
            return base_action
        return A.PLAY + min(ties, key=lambda c: (POINTS[c], c))

    def _world_scores(self, k: Knowledge, view, world: list[int]) -> dict[int, float] | None:
        """This seat's score for each legal card in one world (None: the world was too costly)."""
        solver = self.solver
        pos = Position(k.game, tuple(world[:3]), solo=k.me if k.ramsch else k.declarer, leader=k.leader,
                       trick=k.trick, points=k.points, tricks=k.tricks, skat=world[3], ramsch=k.ramsch)
        solver.limit = solver.nodes + self.options.world_limit
        try:
            if k.ramsch:  # fewest card points: the solver's paranoid Ramsch value, negated
                return {c: -float(v) for c, v in solver.move_values(pos, "exact").items()}
            contract = A.CONTRACTS[_contract_index(view)]
            if contract.schwarz and k.game != NULL:
                points = {c: (120 if v else 45) for c, v in solver.move_values(pos, "schwarz").items()}
            elif k.game == NULL or self.options.question == "win":
                points = {c: (75 if v else 45) for c, v in solver.move_values(pos, "win").items()}
            elif self.options.question == "exact":
                values = solver.move_values(pos, "exact")
                sign = 1.0 if k.me == k.declarer else -1.0
                return {c: self._score(k, view, contract, world, int(v), sign * v / 120.0) for c, v in values.items()}
            else:
                points = {c: GRADE_POINTS[g] for c, g in solver.move_grades(pos).items()}
        except SearchAborted:
            return None
        finally:
            solver.limit = 1 << 62
        cache: dict[int, float] = {}
        out = {}
        for c, v in points.items():
            if v not in cache:
                cache[v] = self._score(k, view, contract, world, v, 0.0)
            out[c] = cache[v]
        return out

    def _score(self, k: Knowledge, view, contract: A.Contract, world: list[int], points: int, extra: float) -> float:
        """This seat's tournament score if the declarer ends with ``points`` card points (defenders also
        count half the declarer's loss: in a duplicate match that is the other side's score)."""
        d = k.declarer
        cards = world[d] | k.played[d] | world[3]
        if contract.game == NULL:  # 75 stands for "took no trick", 45 for "took one"
            tricks = 0 if points >= 61 else 1
        else:
            tricks = 10 if points >= 120 else (0 if points <= 0 else 5)
        outcome = settle(contract, view.bid, cards, points, tricks, 4 if view.re else 2 if view.kontra else 1)
        system = "tournament" if view.options["tournament"] else "classic"
        scores = seat_scores(outcome, d, system)
        mine = scores[k.me]
        if k.me != d:
            mine -= 0.5 * scores[d]
        return mine + extra


def _load_base(spec: str, seed: int | None) -> Agent:
    """The base agent of ``pimc:base=SPEC``: a Skat checkpoint (played greedily) or a user class."""
    import agents

    base = agents.make(spec, game="skat", seed=seed, greedy=True)
    if not getattr(base, "shareable", False):
        raise ValueError(f"pimc option base={spec!r}: the base agent must decide from the observation alone")
    return base


def _contract_index(view) -> int:
    label = "CSHDGN"[view.game_type]
    if view.game_type == NULL:
        label += ("O" if view.ouvert else "") + ("H" if view.hand_game else "")
    else:
        label += ("H" if view.hand_game else "") + ("S" if view.schneider and not view.schwarz else "")
        label += ("Z" if view.schwarz and not view.ouvert else "") + ("O" if view.ouvert else "")
    return A.CONTRACT_BY_LABEL[label]
