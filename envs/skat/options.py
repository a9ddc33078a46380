"""The Skat table options: defaults (a three-player Seeger-Fabian table) and validation.

The same shape as ``envs.thirtyone.options``: a frozen :class:`SkatOptions` and
:func:`validate_options`, which raises ``ValueError`` naming a bad option and its valid values, or
an unknown option name and the valid names. ``SkatGame(**options)`` and the env's
``raw_env(**options)`` take these keywords.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from envs.skat.scoring import SCORING_SYSTEMS


@dataclass(frozen=True)
class SkatOptions:
    """All knobs with their defaults; see the README's Skat section for the rules they change."""

    scoring: str = "tournament"  # "tournament" (Seeger-Fabian) or "classic"
    kontra: bool = False  # defenders may double (Kontra), the declarer redouble (Re)
    ramsch: bool = False  # a deal everybody passes is played as Ramsch instead of passed in
    # The table seat (0..2) that deals every deal; None rotates the dealer one seat per deal. Only
    # the env uses it: the rules core works in positions (forehand, middlehand, rearhand).
    dealer: int | None = None


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SkatOptions))


def validate_options(**options: Any) -> SkatOptions:
    """Keyword options -> a validated :class:`SkatOptions`. Raises ValueError on a bad one."""
    for key in options:
        if key not in OPTION_NAMES:
            raise ValueError(f"unknown Skat option {key!r}; valid options: {', '.join(OPTION_NAMES)}")
    o = SkatOptions(**options)
    if not isinstance(o.scoring, str) or o.scoring not in SCORING_SYSTEMS:
        raise ValueError(f"unknown scoring system {o.scoring!r}; expected one of {SCORING_SYSTEMS}")
    for key in ("kontra", "ramsch"):
        if not isinstance(getattr(o, key), bool):
            raise ValueError(f"option {key!r} must be True or False, got {getattr(o, key)!r}")
    d = o.dealer
    if d is not None and (not isinstance(d, int) or isinstance(d, bool) or not 0 <= d <= 2):
        raise ValueError(f"dealer must be a seat 0, 1 or 2 (or None to rotate), got {d!r}")
    return o
