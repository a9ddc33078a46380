"""The Skat table options: defaults (a three-player Seeger-Fabian table), presets and validation.

The same shape as ``envs.thirtyone.options``: a frozen :class:`SkatOptions` and
:func:`validate_options`, which raises ``ValueError`` naming a bad option and its valid values, or
an unknown option name and the valid names. ``SkatGame(**options)`` and the env's
``raw_env(**options)`` take these keywords. ``variant=NAME`` starts from the preset of that name
(``envs.skat.variants``); the other keywords are applied on top of it.

A table whose options are all today's (``scoring``, ``kontra``, ``ramsch``, ``dealer``) is the
*ISkO table*: its observation is the frozen 391-vector (version 2) and its action space the 162
actions the shipped checkpoints were trained on. Every other table is an *extended* table (see
``envs.skat.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from envs.skat.scoring import SCORING_SYSTEMS

RAMSCH_SCORINGS = ("highest", "all", "fixed", "gewinner")
RAMSCH_TENS = ("high", "low", "one")
DUMMY_MODES = ("unused", "open", "stack")
EPISODES = ("deal", "list")
LIST_REWARDS = ("deal", "end")
SEQUENCE_LETTERS = "CSHDGN"  # Raeuberskat contracts: a suit, grand or null
LIST_DEALS_PER_SEAT = 12  # a list is 36 deals at three, 48 at four, 24 at two


@dataclass(frozen=True)
class SkatOptions:
    """All knobs with their defaults; see the README's Skat sections for the rules they change."""

    scoring: str = "tournament"  # "tournament" (Seeger-Fabian) or "classic"
    kontra: bool = False  # defenders may double (Kontra), the declarer redouble (Re)
    ramsch: bool = False  # a deal everybody passes is played as Ramsch instead of passed in
    # The table seat that deals every deal; None rotates the dealer one seat per deal. Only
    # the env uses it: the rules core works in positions (forehand, middlehand, rearhand).
    dealer: int | None = None
    # --- the extended tables (every default keeps the ISkO table) ---
    variant: str = "isko"  # the preset these options started from (a label: the options are the rules)
    players: int = 3  # 3; 4 (the dealer sits each deal out); 2 (with a dummy hand, or Officers' Skat)
    pack: int = 32  # 36: Sechserskat (the sixes added)
    tournee: bool = False  # North American (Tournee) skat: its games, values and Ramsch
    supra: bool = False  # after Kontra and Re: Supra (defender) and Resupra (declarer) double twice more
    concede: bool = False  # conceding and claiming the remaining tricks
    revolution: bool = False  # the Revolution may be declared (a null ouvert hand at 92, defenders exchange)
    revolution_exchange: int = 10  # the most cards the defenders exchange in a Revolution (10: no limit)
    ramsch_only: bool = False  # every deal is a Ramsch (no auction)
    schieberamsch: bool = False  # before a Ramsch each player may take the skat, exchange and push it on
    ramsch_scoring: str = "highest"  # "highest", "all", "fixed" (15 / 20) or "gewinner" (Gewinner-Ramsch)
    jungfrau: bool = True  # a player without a trick doubles the loser's points (per such player)
    durchmarsch: bool = True  # taking every trick of a Ramsch wins +120
    ramsch_tens: str = "high"  # "high"; "low" (below queen and king, still 10 points); "one" (low, 1 point)
    dummy: str | None = None  # two players: "unused" (dummy hand), "open" (Strohmann), "stack" (Oma)
    officers: bool = False  # two players: Officers' Skat (16 cards each in two rows, no bidding)
    idiot: bool = False  # Idiotenskat: each player sees the others' cards and not its own
    sequence: tuple[str, ...] | None = None  # Raeuberskat: the contracts played in turn, no bidding
    episode: str = "deal"  # "deal": one deal per episode; "list": a list of deals
    list_deals: int | None = None  # deals in a list (None: 12 per player, 36 at three)
    target_score: int | None = None  # a list ends when a player's total reaches this (Bierskat: 501)
    bierskat: bool = False  # only negative scores are recorded; the first to the target loses
    list_rewards: str = "deal"  # in a list: rewards after every deal, or the totals at the end
    count_passed_in: bool = True  # a passed-in deal counts as one of the list's deals

    @property
    def classic(self) -> bool:
        """True for the ISkO table: only today's options (the 391-vector, 162 actions)."""
        return all(getattr(self, f.name) == f.default for f in fields(self) if f.name not in _CLASSIC_OPTIONS)

    @property
    def num_seats(self) -> int:
        return self.players

    @property
    def deals_per_list(self) -> int:
        """The deals of a list: ``list_deals``, else 12 per player, or (Raeuberskat) every contract of the
        sequence once per player."""
        if self.list_deals is not None:
            return self.list_deals
        if self.sequence is not None:
            return len(self.sequence) * self.players
        return LIST_DEALS_PER_SEAT * self.players


_CLASSIC_OPTIONS = ("scoring", "kontra", "ramsch", "dealer", "variant")
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SkatOptions))
_DEFAULTS = {f.name: f.default for f in fields(SkatOptions)}
_BOOLS = ("kontra", "ramsch", "tournee", "supra", "concede", "revolution", "ramsch_only", "schieberamsch", "jungfrau",
          "durchmarsch", "officers", "idiot", "bierskat", "count_passed_in")
_CHOICES = {"scoring": SCORING_SYSTEMS, "ramsch_scoring": RAMSCH_SCORINGS,
            "ramsch_tens": RAMSCH_TENS, "episode": EPISODES, "list_rewards": LIST_REWARDS}
_RAMSCH_OPTIONS = ("schieberamsch", "ramsch_scoring", "jungfrau", "durchmarsch", "ramsch_tens")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_options(**options: Any) -> SkatOptions:
    """Keyword options -> a validated :class:`SkatOptions` (a preset named by ``variant`` first,
    the other keywords on top of it). Raises ValueError naming what is wrong."""
    from envs.skat.variants import preset

    for key in options:
        if key not in OPTION_NAMES:
            raise ValueError(f"unknown Skat option {key!r}; valid options: {', '.join(OPTION_NAMES)}")
    name = options.get("variant", "isko")
    merged = {**preset(name), **options, "variant": name}
    if isinstance(merged.get("sequence"), list):
        merged["sequence"] = tuple(merged["sequence"])
    o = SkatOptions(**merged)
    _check_values(o)
    _check_combinations(o)
    return o


def _check_values(o: SkatOptions) -> None:
    for key, valid in _CHOICES.items():
        value = getattr(o, key)
        if not isinstance(value, str) or value not in valid:
            what = "scoring system" if key == "scoring" else f"value for option {key!r}"
            raise ValueError(f"unknown {what} {value!r}; expected one of {valid}")
    for key in _BOOLS:
        if not isinstance(getattr(o, key), bool):
            raise ValueError(f"option {key!r} must be True or False, got {getattr(o, key)!r}")
    if not _int(o.players) or o.players not in (2, 3, 4):
        raise ValueError(f"option 'players' must be 2, 3 or 4, got {o.players!r}")
    if not _int(o.pack) or o.pack not in (32, 36):
        raise ValueError(f"option 'pack' must be 32 or 36 (Sechserskat), got {o.pack!r}")
    d = o.dealer
    if d is not None and (not _int(d) or not 0 <= d < o.players):
        seats = ", ".join(str(i) for i in range(o.players - 1)) + f" or {o.players - 1}"
        raise ValueError(f"dealer must be a seat {seats} (or None to rotate), got {d!r}")
    if o.dummy is not None and o.dummy not in DUMMY_MODES:
        raise ValueError(f"unknown value for option 'dummy' {o.dummy!r}; expected one of {DUMMY_MODES} (or None)")
    if not _int(o.revolution_exchange) or not 0 <= o.revolution_exchange <= 10:
        raise ValueError(f"option 'revolution_exchange' must be 0..10 cards, got {o.revolution_exchange!r}")
    for key in ("list_deals", "target_score"):
        value = getattr(o, key)
        if value is not None and (not _int(value) or value < 1):
            raise ValueError(f"option {key!r} must be a positive integer (or None), got {value!r}")
    if o.sequence is not None:
        seq = o.sequence
        if not isinstance(seq, tuple) or not seq or any(not isinstance(x, str) or x not in SEQUENCE_LETTERS
                                                         or len(x) != 1 for x in seq):
            raise ValueError(f"option 'sequence' must be a non-empty list of contracts, each one of "
                             f"{list(SEQUENCE_LETTERS)} (C S H D a suit, G grand, N null), got {seq!r}")


def _check_combinations(o: SkatOptions) -> None:
    def no(what: str) -> None:
        raise ValueError(what)

    if o.supra and not o.kontra:
        no("option 'supra' (Supra/Resupra after Kontra and Re) needs kontra=True")
    ramsch_played = o.ramsch or o.ramsch_only
    for key in _RAMSCH_OPTIONS:
        if getattr(o, key) != _DEFAULTS[key] and not ramsch_played:
            no(f"option {key!r} changes the Ramsch, which this table never plays (set ramsch=True or ramsch_only=True)")
    if o.players == 2:
        if not o.officers and o.dummy is None:
            no("a two-player table needs dummy='unused', 'open' (Strohmann) or 'stack' (Oma), or officers=True")
        if o.officers and o.dummy is not None:
            no("Officers' Skat deals every card to the two players: it has no dummy hand (dummy=None)")
        for key in ("ramsch", "ramsch_only", "revolution", "idiot"):
            if getattr(o, key):
                no(f"option {key!r} needs three players at the table (players=3 or 4)")
        if o.pack != 32:
            no("a two-player table plays with the 32-card pack")
    else:
        if o.dummy is not None:
            no("option 'dummy' is for two players (players=2)")
        if o.officers:
            no("Officers' Skat is a game for two players (players=2)")
    if o.tournee:
        if o.scoring != "classic":
            no("North American (Tournee) skat scores its own way (won +value, lost -value); set scoring='classic'")
        for key in ("revolution", "ramsch_only", "officers", "idiot") + _RAMSCH_OPTIONS:
            if getattr(o, key) != _DEFAULTS[key]:
                no(f"option {key!r} is not part of North American skat (tournee=True)")
        if o.players == 2 or o.pack != 32 or o.sequence is not None:
            no("North American skat is played by three (or four) with the 32-card pack and bidding")
    if o.pack == 36 and (o.officers or o.idiot):
        no("the 36-card pack (Sechserskat) is not combined with Officers' Skat or Idiotenskat")
    if o.sequence is not None and (o.officers or o.ramsch_only):
        no("Raeuberskat's sequence of contracts replaces the bidding; it has no Officers' Skat or Ramsch-only deals")
    if o.ramsch_only and (o.officers or o.revolution):
        no("a Ramsch-only table has no declarer: no Revolution, no Officers' Skat")
    if o.bierskat:
        if o.episode != "list":
            no("Bierskat is a list of deals: set episode='list'")
        if o.scoring != "classic":
            no("Bierskat records the classic game values (no Seeger-Fabian bonus); set scoring='classic'")
    if o.episode == "deal":
        for key in ("list_deals", "target_score"):
            if getattr(o, key) is not None:
                no(f"option {key!r} is for lists of deals: set episode='list'")
        if o.list_rewards != "deal":
            no("option 'list_rewards' is for lists of deals: set episode='list'")
