"""Named Thirty-One games (``variant=NAME``): presets over the options, with the sentences they come from.

``thirtyone_v0.env(variant="cut_throat")``, ``raw_env(variant=...)``, ``ThirtyOneGame(variant=...)`` and a
config's ``env_options: {variant: cut_throat}`` start from the preset; options given beside it override
it. Every preset below quotes the rule texts it follows (``SOURCES`` names them) and lists the choices we
made where the texts are silent. ``variants_markdown()`` renders this as the README's variants table.

The rule texts are the project's seeds: ``scat`` = ``shared/seeds/scat_thirtyone.txt`` (a machine-
paraphrased copy of pagat's "31 / Scat" page; quoted as it stands), ``wikipedia`` = the Thirty-One part of
``shared/seeds/skat_wikipedia_en.txt`` (Wikipedia "Thirty-one (card game)", with its "Common variations"),
``research`` = ``shared/research/thirtyone.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SOURCES = {
    "scat": "shared/seeds/scat_thirtyone.txt (pagat's 31 / Scat, machine-paraphrased)",
    "wikipedia": "shared/seeds/skat_wikipedia_en.txt, Thirty-one (card game) and its Common variations",
    "research": "shared/research/thirtyone.md",
}


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    options: dict[str, Any]  # over the defaults (ThirtyOneOptions)
    turns_on: str  # the option(s) that make the game, for the README table
    quotes: tuple[tuple[str, str], ...]  # (source key, sentence)
    choices: tuple[str, ...] = field(default=())  # where the texts are silent


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "scat", "31 / Scat / Blitz (the default)", {}, "the defaults",
            (("scat", "Quantity OF Participants: 2-9 players NUMBER OF CARDS: regular 52-card"),
             ("scat", "The participant with the least expensive hand worth loses a existence."),
             ("scat", "If there will be a tie up regarding the knocker, the various other player(s i9000) get rid of "
                      "a lifestyle, but the knocker can be safe. The knocker loses if his or her score is definitely "
                      "lower than thát of every other player, and in that situation the knocker manages to lose two "
                      "existence."),
             ("scat", "A participant who will get 31 can announce it also after another player has knocked; victory "
                      "is definitely immediate and all the other players reduce."),
             ("scat", "If you shed while on the state, you are usually out of thé game.")),
            ("Today's default, unchanged: 3 lives and the free ride ('on the county'); the README's 'rule decisions "
             "where the sources disagree' apply.",),
        ),
        Variant(
            "no_elimination", "No-Elimination Thirty-One (points)", {"scoring": "points"}, "`scoring=\"points\"`",
            (("wikipedia", "This is a good version to use if you do not want to play with money or tokens."),
             ("wikipedia", "Lowest score – 1 point, except Knocker gets 0 points"),
             ("wikipedia", "Middle score(s) – 2 points, except Knocker gets only 1 point"),
             ("wikipedia", "Highest score – 3 points, except Knocker gets 4 points"),
             ("wikipedia", "Blitz (31) – 6 points"),
             ("wikipedia", "Ties – All ties get highest score possible."),
             ("scat", "The game evidently will go on until someone gets to a rating of 31 - a long game.")),
            ("Today's points game, unchanged: the first to reach target_score=31 alone in the lead wins.",),
        ),
        Variant(
            "cut_throat", "West Lansing Cut Throat",
            {"lives": 3, "free_ride": False, "knocker_penalty": 2, "knocker_tie": "double", "three_of_a_kind": 30.5,
             "reward_scheme": "tokens"},
            "`free_ride=False, knocker_tie=\"double\", three_of_a_kind=30.5`",
            (("wikipedia", "Three tokens are purchased for the agreed upon amount of money prior to play beginning, "
                           "and the last player with any tokens wins the pot."),
             ("wikipedia", "There is no 'free ride'. A player who knocks but does not beat at least one other player, "
                           "pays two tokens. In this scenario the knocker tying for the lowest score will lose two "
                           "tokens. All others with the same total as the knocker will not lose a token."),
             ("wikipedia", "Three cards of the same rank count as a score of 30½, however all hands ranking as 30½ "
                           "are equal and considered a tie, E.g. 2,2,2 and A,A,A.")),
            ("The rest is the scat game ('The play is the same as the regular version'): a blitz ends the round at "
             "once, also after a knock; players tied for lowest without the knocker each lose a token.",
             "A knocker with one token who must pay two pays the one and is out.",
             "Rewards are tokens (reward_scheme='tokens'): each token lost is paid into the pot, the last player "
             "in takes it.",),
        ),
        Variant(
            "banking", "Banking (the widow and a pot)",
            {"exchange": "widow", "scoring": "pot", "ante": 1, "lives": 3, "free_ride": False,
             "reward_scheme": "tokens"},
            "`exchange=\"widow\", scoring=\"pot\"`",
            (("wikipedia", "Before each round, each player has to ante one token or coin onto the centre of the "
                           "table."),
             ("wikipedia", "While dealing, after each player has received one card, the dealer puts one card face "
                           "down on the table to form a pile of three cards known as the 'widow'."),
             ("wikipedia", "A player may use a turn to exchange one or more cards in their hand with an equivalent "
                           "number of cards in the widow, leaving the cards they put in the widow face up."),
             ("wikipedia", "At the end of the round, the player with the highest-valued hand takes all the tokens or "
                           "coins on the table."),
             ("wikipedia", "If any player acquires a blitz in their hand, they immediately show it, the round ends, "
                           "all other players place one token or coin on the table, and the player who blitzed takes "
                           "all of the tokens or coins on the table.")),
            ("3 tokens each (lives=3: the text gives no number; the scat text's 'each player getting 3 pennies'). A "
             "player without tokens after a round is out; the last player with tokens wins. max_rounds caps a game "
             "(then the most tokens win).",
             "The stock and the discard pile stay ('The play is the same as the regular version'): a turn is a draw "
             "or take and a discard, a knock, or a widow exchange.",
             "A widow exchange goes one card at a time (pick a widow card, put a hand card in its place face up), "
             "then another widow card or stop; a card taken from the widow this turn is not put back. A face-down "
             "widow card is seen only by the player who takes it.",
             "Knocking works as usual, with no penalty (nobody loses lives). Tied highest hands share the pot; odd "
             "tokens go to the first of them clockwise from the dealer's left. A blitzer's opponents pay one more "
             "token if they have one.",),
        ),
        Variant(
            "switch", "Switch (two hands on the table)", {"exchange": "switch", "switch_restart": True},
            "`exchange=\"switch\"` (+ `switch_restart=True`)",
            (("wikipedia", "The difference for this version called Switch is that instead of picking from the pile "
                           "or the discard up-card, players exchange cards from two hands on the table."),
             ("wikipedia", "At the beginning of the game, the dealer is dealt two hands, and one extra hand is dealt "
                           "and placed in the middle of the table face-down. The dealer looks at both hands and "
                           "chooses the hand they want to play with and places the other hand face-up next to the "
                           "face-down hand."),
             ("wikipedia", "Pick up a certain card in one of the hands on the table and exchange it for one of the "
                           "cards held in their hand (if they pick up a face-down card, their discard will be "
                           "face-up)."),
             ("wikipedia", "Swap one of the hands entirely with their own hand."),
             ("wikipedia", "Renew one of the hands on the table. (If they renew a hand on the table, they have the "
                           "choice to place it face-up or face-down. If they choose face-up, their turn is over; if "
                           "they choose face-down their turn continues.)"),
             ("wikipedia", "'Nock'. Nocking applies the same as it does in the normal game."),
             ("wikipedia", "At the end of the game, the winner is decided in the same way as in the normal game of "
                           "Thirty-One, although if a player has a hand of three cards of the same suit and is "
                           "greater than 21, they may choose to restart the game making their hand the new face-up "
                           "hand for the new game and re-dealing all hands for the other players and the face-down "
                           "hand.")),
            ("Scoring is the scat game's (lives, free ride, knocker penalty).",
             "Deal: three cards each one at a time from the dealer's left, then the dealer's second hand, then the "
             "face-down hand. Table hand 1 is the dealer's rejected hand, table hand 2 the face-down one.",
             "Renewing puts the table hand's cards out of play and deals three new ones from the undealt cards "
             "(not possible with fewer than three left). After a face-down renewal the turn goes on with a pick or "
             "a swap (no knock, no second renewal).",
             "A hand swapped onto the table lies face up, like a single card put there.",
             "The restart is offered at a showdown, before scoring, to each player holding three cards of one suit "
             "worth more than 21, in turn from the dealer's left; the hands are shown then. A restart voids the "
             "round and the same dealer deals again (no second hand). A restarted round cannot be restarted.",),
        ),
        Variant(
            "stop_the_bus", "Stop the Bus (three-card brag)", {"exchange": "pool", "ranking": "brag"},
            "`exchange=\"pool\", ranking=\"brag\"`",
            (("wikipedia", "Stop the Bus is a game common in England that uses the hand rankings from three card "
                           "brag, instead of scoring closest to 31. The hand rankings are: three of a kind (a "
                           "'prial') as the best hand, followed by a running flush, then a run, then a flush, then a "
                           "pair followed by a high card. If a hand is otherwise similar then the card is ranked by "
                           "high card or high pair, then by middle card or kicker, then low card. Suits are "
                           "irrelevant."),
             ("wikipedia", "Instead of drawing from a stock, the game starts with three face-up cards on the tables. "
                           "On their turn, players may swap one or three cards from their hand for the table cards.")),
            ("Scoring is the scat game's (lives, free ride, knocker penalty); there is no blitz (no hand ends the "
             "round at once).",
             "Aces are high: A-A-A is the best prial and A-K-Q the best run. A-2-3 is a run with the ace low: the "
             "lowest run (its high card is the 3). The text ranks every hand by its high card and names no special "
             "case, so one rule (the run's top card) orders all runs; the traditional brag exception (3-3-3 and "
             "A-2-3 at the top) is not in the text.",
             "The three table cards are dealt face up after the hands; a turn is a swap of one card or of all three, "
             "or a knock (no pass).",),
        ),
        Variant(
            "schwimmen", "Schwimmen (German 31, a pool of three cards)",
            {"exchange": "pool", "deck": 32, "three_of_a_kind": 30.5},
            "`exchange=\"pool\", deck=32, three_of_a_kind=30.5`",
            (("scat", "the German born game, also identified as Schwimmen, Schnáuz or Hosen 'runtér, which will be "
                      "like the game on this web page, except that cards are changed with a main pool of three "
                      "credit cards, rather than using a pull and throw away mechanism"),
             ("wikipedia", "If a player has three cards of the same value from different suits, the hand is worth "
                           "30.5 points."),
             ("research", "The Dutch Eenendertigen and German Schwimmen use a 32-card pack, 7–A (Wikipedia [V])."),
             ("research", "Other names for the zero-life state [V, various]: \"swimming\" (Schwimmen)")),
            ("Everything else is the scat game ('like the game on this web page'): 3 lives, the free ride (called "
             "'swimming'), the knocker penalty, a blitz at 31.",
             "The pool is dealt face up after the hands; a turn swaps one card or all three with it, or knocks "
             "(Stop the Bus's 'one or three'). Pagat's dealer's-extra-hand deal and the pass ('schieben') of the "
             "research notes are not in the seed texts and not implemented.",),
        ),
    )
}

VARIANT_NAMES: tuple[str, ...] = tuple(VARIANTS)


def preset(name: Any) -> dict[str, Any]:
    """The options of a named variant; ValueError listing the valid names for anything else."""
    if not isinstance(name, str) or name not in VARIANTS:
        raise ValueError(f"unknown Thirty-One variant {name!r}; valid variants: {', '.join(VARIANT_NAMES)}")
    return dict(VARIANTS[name].options)


def _py(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def variants_markdown() -> str:
    """The README's variants table and per-preset rule notes, from the presets above."""
    lines = ["| variant | game | turned on by | options of the preset |", "| --- | --- | --- | --- |"]
    for v in VARIANTS.values():
        opts = ", ".join(f"`{k}={_py(x)}`" for k, x in v.options.items()) or "(the defaults)"
        lines.append(f"| `{v.name}` | {v.title} | `variant=\"{v.name}\"`, or {v.turns_on} | {opts} |")
    names = {"scat": "scat text", "wikipedia": "Wikipedia text", "research": "research notes"}
    for v in VARIANTS.values():
        lines += ["", f"**`{v.name}`: {v.title}.** From the texts:", ""]
        lines += [f"- \"{q}\" ({names[src]})" for src, q in v.quotes]
        lines += ["", "Where the texts are silent:", ""] + [f"- {c}" for c in v.choices]
    return "\n".join(lines)
