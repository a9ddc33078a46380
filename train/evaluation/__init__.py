"""Evaluation: how strong is an agent? Duplicate matches, confidence intervals, the league, the ablation.

* :mod:`train.evaluation.match`: the match engine (duplicate units in every seating, worker processes);
* :mod:`train.evaluation.stats`: paired-bootstrap intervals, sample sizes, per-agent and pairwise summaries;
* :mod:`train.evaluation.cli`: ``python -m train.evaluation`` (also ``python -m train.evaluate``);
* :mod:`train.evaluation.baseline`: one agent against a baseline in every other seat (the trainer's
  evaluations, ``evaluate``);
* :mod:`train.evaluation.league`: openskill ratings kept in a JSON file;
* :mod:`train.evaluation.ablate`: decision kinds handed to a teacher one group at a time
  (``python -m train.ablate``).

Everything game-specific (what a unit is, what a game's result adds to the tallies, the metrics and
table columns) comes from the game's description, ``envs.games.describe(game)``.
"""

from train.evaluation.baseline import EvalResult, evaluate, is_win, summarize
from train.evaluation.match import GameRecord, MatchConfig, MatchResult, run_match

__all__ = ["EvalResult", "GameRecord", "MatchConfig", "MatchResult", "evaluate", "is_win", "run_match", "summarize"]
