"""Evaluation during training: one agent against a baseline in every other seat, seats rotated.

Deal ``k`` puts the agent in seat ``k mod n``, so it plays every position equally often (in
Skat: forehand, middlehand and rearhand, and thereby declarer and both defender roles). The
deals come from a fixed seed, so successive evaluations of a run see the same deals.

* score: the agent's raw return per deal (Skat: tournament points; Thirty-One: the env's reward),
  mean with a normal 95% confidence interval;
* win: the agent's return is the highest at the table and not everyone's is equal (Skat: a won
  game as declarer, or a defeated declarer as defender; a passed-in deal is no win), with a
  Wilson 95% interval;
* advantage (``duplicate=True``): every deal is played a second time with the opponent in the
  agent's seat, and the agent's score minus that score is averaged over deals. The cards cancel
  out of the difference, so its interval is narrower than the score's; against a deterministic
  baseline (Skat's ``rule``) the baseline's advantage over itself is exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import agents
from agents.base import Agent
from arena import AgentCache, Deal, Episode, check_shape, env_shape, episode_of, play
from envs.games import describe
from train.evaluation.stats import normal_mean, wilson_interval


@dataclass
class EvalResult:
    opponent: str
    episodes: int
    mean_score: float
    score_ci: float  # half-width of the 95% interval
    win_rate: float
    win_ci: tuple[float, float]  # Wilson 95% interval
    advantage: float | None = None  # duplicate only: score minus the opponent's score in the same seat and deal
    advantage_ci: float | None = None

    def __str__(self) -> str:
        text = (f"vs {self.opponent}: score {self.mean_score:+.2f} ± {self.score_ci:.2f}, "
                f"win {self.win_rate:.1%} [{self.win_ci[0]:.1%}, {self.win_ci[1]:.1%}] ({self.episodes} deals)")
        if self.advantage is not None:
            text += f", advantage over {self.opponent} {self.advantage:+.2f} ± {self.advantage_ci:.2f}"
        return text


def is_win(returns: list[float], seat: int) -> bool:
    best = max(returns)
    return returns[seat] == best and best > min(returns)


def evaluate(agent: Agent, opponent: str, game: str, env_options: dict[str, Any] | None = None,
             episodes: int = 200, seed: int = 0, num_envs: int = 16, duplicate: bool = False) -> EvalResult:
    """Play ``episodes`` deals of ``agent`` against ``opponent`` (a spec string) in every other seat;
    ``duplicate``: replay them with ``opponent`` in the agent's seat too (see ``advantage``)."""
    if not getattr(agent, "shareable", False):
        num_envs = 1  # an agent with per-deal state plays one deal at a time
    envs = [describe(game).raw_env(**(env_options or {})) for _ in range(min(num_envs, episodes))]
    n = len(envs[0].possible_agents)
    shape = env_shape(envs[0])
    rng = np.random.default_rng([seed, 7919])  # the deals; agents are seeded by where they sit

    def build(spec: str, table: int, seat: int) -> Agent:
        made = agents.make(spec, game=game, seed=_agent_seed(seed, table, seat))
        check_shape(made, shape, spec)
        return made

    opponents = AgentCache(build)
    deals: list[tuple[int, int]] = []  # (env seed, the agent's seat) of every deal, in start order

    def start(i: int) -> Deal | None:
        if len(deals) >= episodes:
            return None
        seat = len(deals) % n
        deals.append((int(rng.integers(2**31)), seat))
        actors = [agent if s == seat else opponents.get(opponent, i, s) for s in range(n)]
        return Deal(actors, ["agent" if s == seat else opponent for s in range(n)], seed=deals[-1][0])

    check_shape(agent, shape, "the evaluated agent")
    results: list[Episode] = []
    play(envs, start, lambda done: results.append(episode_of(done)))
    result = summarize(opponent, results)
    if not duplicate:
        return result

    replayed = iter(deals)
    baselines = AgentCache(lambda spec, table, seat: agents.make(spec, game=game, seed=_agent_seed(seed, table, -1)))

    def start_replay(i: int) -> Deal | None:
        deal_seed, seat = next(replayed, (None, 0))
        if deal_seed is None:
            return None
        # The baseline sits in the agent's seat; every other seat is played exactly as before.
        actors = [opponents.get(opponent, i, s) if s != seat else baseline_for(i) for s in range(n)]
        return Deal(actors, ["agent" if s == seat else opponent for s in range(n)], seed=deal_seed)

    def baseline_for(i: int) -> Agent:
        if opponents.is_shared(opponent):
            return opponents.get(opponent, i, 0)
        return baselines.get(opponent, i, -1)

    again: list[Episode] = []
    play(envs, start_replay, lambda done: again.append(episode_of(done)))
    own = {(e.seed, e.players.index("agent")): e.returns[e.players.index("agent")] for e in results}
    diffs = np.asarray([own[e.seed, e.players.index("agent")] - e.returns[e.players.index("agent")] for e in again])
    advantage = normal_mean(diffs)
    result.advantage, result.advantage_ci = advantage.value, advantage.half_width
    return result


def _agent_seed(seed: int, table: int, seat: int) -> int:
    return int(np.random.SeedSequence([seed, 7919, table, seat + 1]).generate_state(1)[0])


def summarize(opponent: str, results: list[Episode]) -> EvalResult:
    """Scores and wins of the seat marked "agent" in each episode."""
    scores, wins = [], 0
    for episode in results:
        seat = episode.players.index("agent")
        scores.append(episode.returns[seat])
        wins += is_win(episode.returns, seat)
    n = len(scores)
    score = normal_mean(np.asarray(scores))
    return EvalResult(opponent, n, score.value, score.half_width, wins / n if n else float("nan"),
                      wilson_interval(wins, n))
