"""The Skat tables people play, one preset each: ``skat_v0.env(variant=NAME)`` (and ``raw_env``,
``SkatGame``, configs' ``env_options``). A preset is a set of options (``envs.skat.options``); any
option given beside ``variant`` is applied on top of it.

Each :class:`Variant` quotes the sentence of the rule texts it comes from (``shared/seeds``: the
English Wikipedia article "Skat" and the Skat encyclopedia text) and states every rule decision
taken where the texts are silent or disagree. The README's variants table is this module's
:func:`variants_table`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Variant:
    name: str
    options: dict[str, Any]
    summary: str
    source: str  # the sentence(s) of the rule texts the preset follows
    decisions: tuple[str, ...] = ()  # where the texts are silent or disagree


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant(
        "isko", {},
        "One deal under the International Skat Order (today's default table); Kontra/Re and Ramsch are options.",
        "Skat is a game for three players, who are known as forehand, middlehand and rearhand, rearhand also "
        "being the dealer.",
    ),
    Variant(
        "four_player", {"players": 4},
        "Four at the table: the dealer sits the deal out; Seeger-Fabian pays 30 (not 40) to each other player "
        "when the declarer loses.",
        "The game can also be played by four players, in which case, the dealer sits out the round that was dealt, "
        "while the player to the right of the dealer will play the role taken by the dealer in the three player "
        "variant. / In four player rounds, the dealer does not receive any cards and skips actual play of the "
        "round. He or she may peek into the hand of one other player (if allowed to do so) but never into the Skat.",
        ("The dealer does not peek: the sitting-out seat observes only what is public (the auction, the cards "
         "played, the tricks, open hands).",
         "The dealer is paid like a defender who did not play: +30 when the declarer loses (Seeger-Fabian), 0 "
         "otherwise and in Ramsch (the DSkV four-player rule; the texts give only 'each other player').",
         "The dealer rotates over the four seats, one seat per deal."),
    ),
    Variant(
        "list", {"episode": "list"},
        "A list as one episode: 36 deals at three (48 at four), the dealer rotating; cumulative scores in infos.",
        "Players may agree at the outset how many rounds/deals they will play for. / Dealing rotates clockwise "
        "around the table, so that the player sitting to the left of the dealer will be dealer for the next round.",
        ("Length: 12 deals per player (36 at three, 48 at four, the tournament list); `list_deals` sets another.",
         "A passed-in deal counts as one of the list's deals (`count_passed_in=False`: it is dealt again by the "
         "next dealer and does not count); a Ramsch deal always counts.",
         "Rewards after every deal (`list_rewards='deal'`) or the totals once at the end ('end'); both sum to the "
         "same return."),
    ),
    Variant(
        "bierskat", {"episode": "list", "bierskat": True, "target_score": 501, "scoring": "classic"},
        "Bierskat / Bierlachs: only negative scores are recorded; the first to 501 loses.",
        "A target score is set, typically 501, and only negative scores are recorded i. e. if the declarer wins "
        "with 33 points, the score is recorded as 33 to the two defenders. The first to 501 loses and buys the "
        "next round.",
        ("A lost game is recorded to the declarer at its classic loss (twice the value); a won game's value to "
         "each defender (at four also to the dealer, who sits at the table). In Ramsch a negative score is "
         "recorded to its player and a positive one (Durchmarsch) to every other player.",
         "The reward of a deal is minus what it recorded against the seat; the list ends after the deal in which "
         "a total reaches the target (the loser, in infos, has the highest total; ties all lose)."),
    ),
    Variant(
        "schieberamsch", {"ramsch": True, "schieberamsch": True},
        "Ramsch when all pass, with Schieberamsch: each player in turn may take the skat and exchange, or push it on "
        "untouched (doubling); jacks may not be pushed on.",
        "Often, the players are allowed to check and exchange cards with the skat, or decline to do so and pass "
        "the skat on to the next player, doubling the score (known as Schieberamsch). Jacks are not allowed to be "
        "passed on in this variation.",
        ("Pushing the skat on untouched doubles the Ramsch (the source ties the doubling to declining); taking "
         "and exchanging does not.",
         "Forehand decides first, then middlehand, then rearhand; after rearhand the skat stays and goes to the "
         "winner of the last trick."),
    ),
    Variant(
        "gewinner_ramsch", {"ramsch": True, "ramsch_scoring": "gewinner"},
        "Gewinner-Ramsch: the lowest card points win 23 and a won game; the skat goes to the highest.",
        "Unlike the original negative game the winner is who achieves the lowest score and is awarded 23 points, "
        "the score of a won Null. Additionally they are awarded the won game. The skat is given to the player with "
        "the highest score. If two players achieve the same lowest score they will both be awarded the 23 points "
        "and the won game.",
        ("'The won game' is the Seeger-Fabian +50 of a won game (tournament scoring), and counts as a won game in "
         "a list's infos.",
         "The skat goes to the highest card points before the skat is added (ties: the first of them from "
         "forehand); the Durchmarsch and Jungfrau rules do not apply."),
    ),
    Variant(
        "ramsch_only", {"ramsch_only": True},
        "Ramsch played directly as the game: no auction, every deal a Ramsch.",
        "Ramsch ... There is no declarer in Ramsch; every player plays for himself, and the goal is to achieve as "
        "low a score as possible.",
        ("The Ramsch options (schieberamsch, ramsch_scoring, jungfrau, durchmarsch, ramsch_tens) apply.",),
    ),
    Variant(
        "revolution", {"revolution": True},
        "The Revolution may be declared: a null ouvert hand at 92, the defenders confer and exchange cards.",
        "Revolution is a Null Hand game during which the defenders are allowed to confer and exchange cards, "
        "sometimes with a limit of two cards. It is valued at 92 points.",
        ("Declared after 'hand' as `declare R` when the bid is at most 92 (92 is a bid); the declarer's hand is "
         "open (the issue's 'null ouvert hand'), the defenders see each other's hands from the declaration on.",
         "The exchange: the first defender (from forehand) gives up to `revolution_exchange` cards (default 10, "
         "no limit; 2 is the text's limit) one at a time (`give XX`, `pass` to stop), the partner gives back as "
         "many. Then Kontra (if on) and play.",
         "Won: +92, lost: -184 (counted like a null game: lost games count double; tournament +-50, +40 each)."),
    ),
    Variant(
        "strohmann", {"players": 2, "dummy": "open"},
        "Two players with a straw man: the dummy hand is played by the player who lost the bidding, face up after "
        "the declaration.",
        "A popular two-player variant is called Strohmann (strawman), in which the dummy hand is played by the "
        "player who loses bidding. After the game has been declared, the third hand is flipped and can be seen by "
        "the other players.",
        ("The English article is followed: ten cards each and the dummy dealt as a third hand. The encyclopedia "
         "describes another Strohmann (nine cards each, a second skat of three, the straw man exposed after the "
         "first trick); it is not implemented.",
         "Seats: the non-dealer is forehand, the dealer middlehand, the dummy sits at rearhand and passes in the "
         "auction. All pass: the deal is passed in (no Ramsch at two).",
         "Seeger-Fabian: a lost game pays 40 to the one opponent."),
    ),
    Variant(
        "oma", {"players": 2, "dummy": "stack"},
        "Oma Skat: the third hand (Oma) lies face down as a stack; its top card is played to each trick.",
        "Another variant is Oma Skat where the dummy hand is known as Oma or 'Grandma'. / Oma Skat is also played "
        "with a third, or dummy, hand called Oma (\"Grandma\"). However, in this case, the hand is not exposed. "
        "Instead it is placed in a stack, face down, and the top card of the stack is played to the trick each "
        "time. Thus Oma need not follow suit.",
        ("The sources disagree: Wikipedia names Oma Skat as another two-player variant, the encyclopedia says what "
         "differs. The encyclopedia's rules are followed: Oma's stack is played automatically (no decision), "
         "in dealing order, and Oma's tricks count for the defender (the player who lost the bidding).",
         "Otherwise as Strohmann (seats, auction, scoring)."),
    ),
    Variant(
        "dummy", {"players": 2, "dummy": "unused"},
        "Two players; the third hand is dealt as a dummy and not used (tricks of two cards).",
        "It is possible to play a modified version of the game with only two players. The cards that would be dealt "
        "to a third player are simply laid down as a 'dummy' hand instead and not used.",
        ("The dummy's card points count for the defender, so the declarer still needs 61 of 120 (the dummy sits "
         "on the defending side as in Strohmann, unplayed). Schwarz: all ten tricks.",
         "Seats and auction as Strohmann."),
    ),
    Variant(
        "officers", {"players": 2, "officers": True},
        "Officers' Skat: two players, 16 cards each in two rows (8 face down under 8 face up), no bidding.",
        "Each player receives 16 cards on the table in front of him in two rows, 8 face down and 8 face up on top "
        "of them. Bidding is replaced by the non-dealer declaring a game type and trump. When a face-up card is "
        "played, the hidden card is turned over. Each deal results in a total of 16 tricks and players must agree "
        "whether a game lasts for a certain number of deals or until one player scores a certain number of game "
        "points. Scoring is similar to normal Skat.",
        ("Only the face-up cards can be played; following suit is owed with the face-up cards. The non-dealer "
         "leads the first trick.",
         "Contracts: a suit, grand or null (23); value as in Skat with matadors on the declarer's 16 cards, no "
         "hand level and no overbid (there is no bid); Seeger-Fabian pays 40 to the opponent of a lost game.",
         "One deal per episode; `episode='list'` with `list_deals` or `target_score` plays a game of several."),
    ),
    Variant(
        "tournee", {"tournee": True, "ramsch": True, "scoring": "classic"},
        "North American (Tournee) skat: Tournee, Solo, Grand Guckser, Null, the North American Ramsch and values.",
        "To determine trump, declarer picks up one card of the skat and looks at it. If declarer wants this card's "
        "suit as trump, the card is shown to the other players. Otherwise the hand is played as Passt mir nicht ... "
        "A jack gives declarer the choice of either playing grand (jacks only) or the jack's suit as trump. / "
        "Tourn\u00e9e: \u2666 5, \u2665 6, \u2660 7, \u2663 8, Grand 12. / Solo: \u2666 9, \u2665 10, "
        "\u2660 11, \u2663 12, Grand 20, Grand Ouvert 24. / Grand Guckser: 16, 32 if lost. / Null: 20, 40 if played "
        "ouvert. / Ramsch: player taking the fewest number of card "
        "points wins 10 game points, or 20 for taking zero tricks. A player taking every trick loses 30.",
        ("Bids are game values of these tables (10 is the lowest). 'Forehand may not pass' after two passes: its "
         "`pass` there declares the Ramsch.",
         "The first turned card is seen by the declarer alone unless taken; after 'passt' the second card is shown "
         "to all and decides (a jack: grand or its suit). Then both skat cards join the hand and two are put away, "
         "then schneider or schwarz may be announced (`declare XS`/`XZ`).",
         "Multipliers: matadors + 1 game, +1 schneider (91 card points), +1 schwarz, +1 schneider or +2 schwarz "
         "announced (the text's '1 for game, 2 for Schneider, 3 for Schwarz' read as levels, as in German skat, "
         "not added up); won +value, lost -value (passt mir nicht lost: -2 x value; Guckser lost: base 32). Grand "
         "ouvert must take every trick (its schneider and schwarz levels always count). An overbid game is lost "
         "at the lowest multiple of its base reaching the bid.",
         "Ramsch: the skat counts for nobody; tied lowest players all win; the Durchmarsch loses 30 and nobody "
         "wins."),
    ),
    Variant(
        "sechserskat", {"pack": 36},
        "Sechserskat: the 36-card pack with the sixes.",
        "Sechserskat is played with a 36 card pack i. e. with the addition of the Sixes. It is mentioned as early "
        "as 1920.",
        ("The text gives only the pack. Chosen: three players get 11 cards each and the skat holds 3 (dealt 3, "
         "skat, 4, 4); the declarer puts 3 away; 11 tricks.",
         "A six ranks below the seven, counts 0 points, and is the lowest trump of a suit game (up to 12 matadors, "
         "so bids go up to 12 x 19)."),
    ),
    Variant(
        "idiotenskat", {"idiot": True},
        "Idiotenskat: each player sees the opponents' cards and not its own.",
        "Idiotenskat (\"Idiot Skat\") is an amusing variant in which players play with their hands facing their "
        "opponents, so they are only able to see their opponents' cards.",
        ("Cards are played and put away by hand slot (`play slot K`, `discard slot K`): the slot's card is unseen "
         "by its holder. Every occupied slot may be played; a card that fails to follow suit when the hand could "
         "have followed loses the deal for the offender's side (the Skat Order's revoke rule). In Ramsch the "
         "revoking player loses as if it held every card point.",
         "A picked-up skat is held facing the opponents too (slots 10 and 11)."),
    ),
    Variant(
        "raeuberskat", {"sequence": ("D", "H", "S", "C", "G", "N"), "episode": "list"},
        "Raeuberskat: no bidding; a fixed sequence of contracts over a list.",
        "R\u00e4uberskat (\"Robber Skat\") is a variant in which there is no bidding; instead there is a sequence of "
        "specified contracts.",
        ("The text names no sequence. Default: diamonds, hearts, spades, clubs, grand, null; each contract is "
         "played once by each player as forehand (a list of 18 deals at three), forehand is the declarer.",
         "The declarer may pick up the skat or play hand; the contract's game type is fixed, its announcements "
         "(hand, schneider, schwarz, ouvert) are the declarer's choice. No bid, so no overbid."),
    ),
)}
NAMES: tuple[str, ...] = tuple(VARIANTS)

# The options that are no table of their own but go on any table with Kontra or card play.
OPTION_NOTES: dict[str, Variant] = {v.name: v for v in (
    Variant(
        "supra", {"supra": True, "kontra": True},
        "Supra and Resupra: after Kontra and Re, two more doublings (x8, x16).",
        "In a less common further variation this process can be repeated twice more by announcing 'Supra' and "
        "'Resupra' (or more colloquially, 'Bock' [(roe) buck] and 'Hirsch' [red deer], or the like, which are "
        "colloquial augments of 'Reh' roe deer).",
        ("Supra is said by the defender who said Kontra, Resupra by the declarer, each only after the other "
         "side's doubling; it needs kontra=True.",
         "On tables without an auction (Officers' Skat, Raeuberskat) every defender may say Kontra; with one, a "
         "defender who made or held a call (the Skat Order's rule, as before)."),
    ),
    Variant(
        "concede", {"concede": True},
        "Conceding and claiming: a player on turn may concede or claim the remaining tricks; the other side "
        "accepts or rejects.",
        "Declarer may, unilaterally, concede a loss while holding at least nine cards (i. e. before playing to the "
        "second trick). Afterwards approval of at least one defender is required. Defenders may concede at any "
        "time, but may be requested by declarer to complete the play ... Claiming of remaining tricks is possible "
        "as well, but for a defender only if she would be able to take the remaining tricks herself. A game in "
        "which the necessary trick points have been won can not be lost, regardless of claims.",
        ("Offers are actions of the card play: on the player's own turn, once per player and trick (so play "
         "always goes on); the other side answers with `accept` or `reject` (phase `answer`). Not in Ramsch.",
         "A declarer's concession before the second trick ends the game lost at the value its declaration "
         "reached (schneider and schwarz only as announced). Later one defender's approval is needed (asked in "
         "turn); then the remaining tricks go to the defenders and the game is scored as usual, so a game whose "
         "61 points are reached stays won.",
         "A defender's concession: the declarer accepts (the rest is the declarer's) or asks to play on. A claim: "
         "accepted by every answer (both defenders for the declarer's), the remaining tricks go to the claimer's "
         "side; rejected, play goes on. Whether a defender could take the rest 'herself' is not checked: the "
         "declarer's rejection covers it.",
         "Null (and the Revolution): a claim means the claimer's side wins: the declarer's that it takes no "
         "further trick, the defenders' that it takes one."),
    ),
)}
NOT_IMPLEMENTED: frozenset[str] = frozenset()  # presets whose rules are not written yet


def preset(name: str) -> dict[str, Any]:
    """The options of preset ``name``; ValueError listing the valid names."""
    if not isinstance(name, str) or name not in VARIANTS:
        raise ValueError(f"unknown Skat variant {name!r}; valid variants: {', '.join(NAMES)}")
    if name in NOT_IMPLEMENTED:
        raise ValueError(f"Skat variant {name!r} is not implemented yet; implemented: "
                         f"{', '.join(n for n in NAMES if n not in NOT_IMPLEMENTED)}")
    return dict(VARIANTS[name].options)


def decisions_text() -> str:
    """The README's list of every preset and option with its source sentence and decisions (markdown)."""
    out = []
    for v in (*VARIANTS.values(), *OPTION_NOTES.values()):
        out.append(f"* **`{v.name}`**: {v.summary} Source: \"{v.source}\"")
        out += [f"  - {d}" for d in v.decisions]
    return "\n".join(out)


def variants_table() -> str:
    """The README's table of variants (markdown)."""
    rows = ["| preset | options | what it does |", "| --- | --- | --- |"]
    for v in VARIANTS.values():
        opts = ", ".join(f"`{k}={v!r}`" for k, v in v.options.items()) or "(defaults)"
        rows.append(f"| `{v.name}` | {opts} | {v.summary} |")
    return "\n".join(rows)
