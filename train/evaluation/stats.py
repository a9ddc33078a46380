"""Confidence intervals for duplicate-deal evaluations: paired bootstrap, normal intervals, sample sizes.

Every estimate here is a *ratio of sums over units*: a unit is one duplicate deal (Skat) or one
block of seat-rotated games on the same decks (Thirty-One), and a metric is
``sum(numerator) / sum(denominator)`` over the units (points / games, declarer wins / declarer
games, ...). The bootstrap resamples whole units -- the same resampled units for every metric and
every agent -- so the duplicate structure is respected: the card luck of a deal stays together
with every seating it was played in, and differences between agents are paired.

* :func:`bootstrap_ratios`: estimates and percentile 95% intervals of many ratios at once;
* :func:`paired_difference`: the mean per-unit difference between two agents, with a paired
  bootstrap interval and the normal (paired-t style) one;
* :func:`units_needed`: how many units reach a target half-width, from the per-unit spread.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from train.evaluation.match import MatchResult

Z95 = 1.959963984540054
MIN_UNITS = 10  # fewer units than this: no intervals and no verdicts are reported (the sample is too small)
DEFAULT_RESAMPLES = 2000
_BLOCK_CELLS = 2_000_000  # resample weights held in memory at once (resamples x units)


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a 95% interval; ``nan`` where undefined (e.g. no declarer games)."""

    value: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def scaled(self, factor: float) -> Estimate:
        return Estimate(self.value * factor, self.low * factor, self.high * factor)

    def format(self, digits: int = 2, percent: bool = False) -> str:
        if math.isnan(self.value):
            return "-"
        f = 100.0 if percent else 1.0
        unit = "%" if percent else ""
        return f"{self.value * f:.{digits}f}{unit} [{self.low * f:.{digits}f}, {self.high * f:.{digits}f}]"


def _resample_weights(n_units: int, resamples: int, rng: np.random.Generator):
    """Blocks of bootstrap weights: row r counts how often each unit is drawn in resample r."""
    block = max(1, min(resamples, _BLOCK_CELLS // max(n_units, 1)))
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        yield rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=size).astype(np.float64)
        done += size


def bootstrap_ratios(numerators: np.ndarray, denominators: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                     seed: int = 0, level: float = 0.95) -> list[Estimate]:
    """``sum(num[:, j]) / sum(den[:, j])`` for each column j, with percentile bootstrap intervals.

    ``numerators`` and ``denominators`` are ``(units, metrics)``; row i holds unit i's totals.
    All columns are resampled with the same unit draws (a paired bootstrap).
    """
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    if num.ndim == 1:
        num, den = num[:, None], den[:, None]
    if num.shape != den.shape:
        raise ValueError(f"numerators {num.shape} and denominators {den.shape} differ in shape")
    n_units, m = num.shape
    with np.errstate(invalid="ignore", divide="ignore"):
        point = num.sum(0) / den.sum(0)
    if n_units < 2:
        return [Estimate(float(p), math.nan, math.nan) for p in point]
    rng = np.random.default_rng([seed, 104729])
    draws = []
    for w in _resample_weights(n_units, resamples, rng):
        with np.errstate(invalid="ignore", divide="ignore"):
            draws.append((w @ num) / (w @ den))
    boot = np.concatenate(draws)  # (resamples, metrics)
    alpha = (1.0 - level) / 2
    out = []
    for j in range(m):
        col = boot[:, j][np.isfinite(boot[:, j])]
        if not np.isfinite(point[j]) or col.size == 0:
            out.append(Estimate(float(point[j]), math.nan, math.nan))
            continue
        lo, hi = np.quantile(col, [alpha, 1.0 - alpha])
        out.append(Estimate(float(point[j]), float(lo), float(hi)))
    return out


def bootstrap_mean(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Estimate:
    """The mean of per-unit values with a percentile bootstrap 95% interval."""
    values = np.asarray(values, dtype=np.float64)
    return bootstrap_ratios(values, np.ones_like(values), resamples, seed)[0]


def normal_mean(values: np.ndarray, z: float = Z95) -> Estimate:
    """The mean with the normal-approximation interval ``mean +- z sd / sqrt(n)``."""
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan)
    mean = float(values.mean())
    if n < 2:
        return Estimate(mean, math.nan, math.nan)
    half = z * float(values.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half)


@dataclass(frozen=True)
class Difference:
    """A paired comparison of two agents over the same units."""

    mean: Estimate  # bootstrap interval of the mean per-unit difference
    normal: Estimate  # normal (paired-t style) interval of the same mean
    sd: float  # standard deviation of the per-unit differences
    units: int
    a_better: float  # share of units where the first agent did strictly better
    b_better: float

    @property
    def significant(self) -> bool:
        """The 95% bootstrap interval excludes 0."""
        return self.mean.low > 0 or self.mean.high < 0


def paired_difference(a: np.ndarray, b: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                      higher_is_better: bool = True) -> Difference:
    """``a - b`` unit by unit (``a[i]`` and ``b[i]`` from the same deal), summarised with both intervals."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in shape: {a.shape} vs {b.shape}")
    d = a - b
    sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
    sign = 1.0 if higher_is_better else -1.0
    better = float(np.mean(sign * d > 0)) if d.size else math.nan
    worse = float(np.mean(sign * d < 0)) if d.size else math.nan
    return Difference(bootstrap_mean(d, resamples, seed), normal_mean(d), sd, int(d.size), better, worse)


def units_needed(sd: float, target_half_width: float, z: float = Z95) -> int | None:
    """Units (deals) for a 95% half-width of ``target_half_width``: ``ceil((z sd / target)^2)``."""
    if target_half_width <= 0:
        raise ValueError(f"the target half-width must be positive, got {target_half_width!r}")
    if not math.isfinite(sd):
        return None
    return max(2, math.ceil((z * sd / target_half_width) ** 2))


def per_unit_sd(numerators: np.ndarray, denominators: np.ndarray) -> float:
    """Standard deviation over units of the per-unit ratio (units with a zero denominator skipped)."""
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    keep = den > 0
    if keep.sum() < 2:
        return math.nan
    return float((num[keep] / den[keep]).std(ddof=1))


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (for independent games, not duplicate units)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# ------------------------------------------------------------------------------------ summaries
def headline(result: MatchResult) -> tuple[str, str, float]:
    """The metric sample sizes are planned for: (metric name, its numerator field, the scale of --target-ci)."""
    game = result.game
    metric = next(m for m in game.metrics if m.name == game.headline)
    return metric.name, metric.numerator, 0.01 if game.headline_percent else 1.0


def agent_summary(result: MatchResult, target: float, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = 0) -> list[dict[str, Any]]:
    """One row per agent: every metric of the game with its 95% paired-bootstrap interval, the spread of
    the headline metric over units and the units needed for a half-width of ``target`` (Skat: points
    per game; Thirty-One: percentage points of win rate)."""
    game = result.game
    fields = game.fields
    totals = result.unit_arrays().sum(axis=1)  # (units, agents, fields)
    metrics = game.metrics
    num = np.stack([totals[:, a, fields.index(m.numerator)] * m.scale for a in range(len(result.labels))
                    for m in metrics], 1)
    den = np.stack([totals[:, a, fields.index(m.denominator)] for a in range(len(result.labels)) for m in metrics], 1)
    estimates = bootstrap_ratios(num, den, resamples, seed)
    key, field, scale = headline(result)
    played = [sum(a in r.seating for r in result.records) for a in range(len(result.labels))]
    rows = []
    for a, label in enumerate(result.labels):
        games = totals[:, a, 0]  # seat-games: an agent in two seats of one game counts twice (the metrics' unit)
        row: dict[str, Any] = {"agent": label, "spec": result.config.specs[a], "units": int((games > 0).sum()),
                               "games": played[a], "seat_games": int(games.sum())}
        for j, metric in enumerate(metrics):
            e = estimates[a * len(metrics) + j]
            row.update({metric.name: e.value, f"{metric.name}_lo": e.low, f"{metric.name}_hi": e.high})
        sd = per_unit_sd(totals[:, a, fields.index(field)], games)
        row["sd_per_unit"] = sd
        row["units_needed"] = units_needed(sd, target * scale)
        rows.append(row)
    return rows


def pairwise_summary(result: MatchResult, target: float, resamples: int = DEFAULT_RESAMPLES,
                     seed: int = 0) -> list[dict[str, Any]]:
    """One row per pair that met: the mean per-unit difference of the headline metric (plus the game's
    own extra comparisons, e.g. Thirty-One's average place), from the matchups both played in, with
    paired intervals."""
    game = result.game
    fields = game.fields
    arrays = result.unit_arrays()
    key, field, scale = headline(result)
    rows = []
    for a, b in itertools.combinations(range(len(result.labels)), 2):
        both = [m for m, mu in enumerate(result.matchups) if a in mu and b in mu]
        if not both:
            continue
        t = arrays[:, both].sum(axis=1)  # (units, agents, fields)
        keep = (t[:, a, 0] > 0) & (t[:, b, 0] > 0)
        t = t[keep]
        ga, gb = t[:, a, 0], t[:, b, 0]

        def rates(name: str, higher_is_better: bool = True, t=t, ga=ga, gb=gb, a=a, b=b) -> Difference:
            i = fields.index(name)
            return paired_difference(t[:, a, i] / ga, t[:, b, i] / gb, resamples, seed, higher_is_better)

        d = rates(field)
        row: dict[str, Any] = {"agent_a": result.labels[a], "agent_b": result.labels[b], "units": d.units,
                               f"diff_{key}": d.mean.value, "lo": d.mean.low, "hi": d.mean.high,
                               "normal_lo": d.normal.low, "normal_hi": d.normal.high,
                               "significant": d.significant, "a_better_units": d.a_better,
                               "b_better_units": d.b_better, "sd_per_unit": d.sd,
                               "units_needed": units_needed(d.sd, target * scale)}
        row.update(game.pair_extras(d, rates))
        rows.append(row)
    return rows
