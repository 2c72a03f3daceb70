"""Quick Lemmings: cards, terrain piles, tiles, movement points and finishes.

The hex map and the lemmings stay on the table; the engine keeps the card flow
(RULES.md section 5, records.md ``quick-lemmings``). Hands are hidden, so the engine
tracks only their sizes, plus which cards are in sight (the piles, and the pile cards
discarded since the last reshuffle), so that it can refuse a card nobody can hold.

>>> game = QuickLemmings()
>>> s = game.start(("Ann", "Bob", "Cat"), game.option_values({}))
>>> s = game.apply(s, Line("Ann", "play", ("forest", "1")))
>>> game.details(s)["points"], game.details(s)["hands"]
(3, {'Ann': 3, 'Bob': 5, 'Cat': 6})
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar, Final, Literal, TypedDict, get_args

from companion.games.base import (
    FIRST_SEAT,
    BadArguments,
    Choice,
    Game,
    Grid,
    IllegalLine,
    Line,
    Multiset,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Prompt,
    Summary,
    Verb,
    counted,
    number,
    valueclass,
)
from companion.games.frozen import replace

#: The terrains of the cards, the piles and the tiles, in the order of the per-terrain tuples.
Terrain = Literal["forest", "water", "mountain", "swamp", "desert"]
TERRAINS: tuple[Terrain, ...] = get_args(Terrain)
MEADOW: Final = "meadow"
#: What a tile may be: a terrain's own, or a meadow when that terrain's are gone.
TileKind = Literal[Terrain, "meadow"]
TILE_KINDS: tuple[TileKind, ...] = (*TERRAINS, MEADOW)  # as ``State.tiles`` counts them
DEFAULT_DECK = "0,0,1,1,2,2,2,3,3,4,4"
FULL_HAND = 6  # a refill draws up to this, and the last seat is dealt this many
STARTER = 2  # the value of the card that starts each terrain pile
TILES_PER_TERRAIN = 3
MEADOW_TILES = 6
MOST_PLAYERS = 5
EMPTY_SEEN: tuple[tuple[int, ...], ...] = tuple(() for _ in TERRAINS)


class Termination(StrEnum):
    """How a game of Quick Lemmings ends."""

    ALL_ACROSS = "all lemmings across"


class Played(TypedDict):
    """The most recent turn's play, as the screens name it."""

    player: str
    terrain: Terrain
    value: int


class Gain(TypedDict):
    """What a play of one card value on a pile would do now."""

    value: int
    points: int
    new_pile: bool
    tile: TileKind | None


class Details(TypedDict):
    """The summary keys of records.md, then extra ones for the screens."""

    piles: dict[str, list[int]]
    tiles: dict[str, int]
    tile: str | None
    hands: dict[str, int]
    draw: int
    discards: int
    points: int
    finished: dict[str, int]
    #: The lemmings each player has.
    lemmings: int
    #: The most recent turn's play; ``None`` after a refill.
    played: Played | None
    #: Per terrain, per card value that may still be in a hand, what a play of it gives now.
    gains: dict[str, list[Gain]]


class LemmingsSummary(Summary, Details):
    """A Quick Lemmings summary, as the screens read it."""


class EmptyHand(IllegalLine):
    """A play by a player who holds no card."""


class NotInDeck(IllegalLine):
    """A play of a value that no card of the deck has."""


class AllInSight(IllegalLine):
    """A play of a card whose every copy is already in a pile or known discarded."""


class TooManyDiscards(IllegalLine):
    """A refill that discards more cards than the hand holds."""


class DeckTooSmall(IllegalLine):
    """A ``deck`` option that leaves too few cards to deal to the players."""


def deal_sizes(count: int) -> tuple[int, ...]:
    """Cards dealt per seat: 7 - players for the first, one more per seat, 6 for the last.

    >>> deal_sizes(2), deal_sizes(5)
    ((5, 6), (2, 3, 4, 5, 6))
    """
    return tuple(FULL_HAND + 1 - count + seat for seat in range(count))


def parse_lemmings(value: str) -> int:
    """The ``lemmings`` option: 1-3 per player."""
    return number(value, 1, 3, "lemmings per player")


def parse_deck(value: str) -> tuple[int, ...]:
    """The ``deck`` option: the card values of each terrain, sorted.

    Whether it leaves enough cards for the deal depends on the players, so
    :meth:`QuickLemmings.start` checks that (the record reports it at the option line).
    """
    values = tuple(sorted(number(part, 0, 9, "a card value") for part in value.split(",")))
    if STARTER not in values:
        raise ValueError(f"the deck needs a {STARTER} to start each terrain pile")
    return values


def cards_to_deal(deck: tuple[int, ...]) -> int:
    """The cards shuffled for the deal: all but the one starter of each terrain."""
    return len(TERRAINS) * (len(deck) - 1)


def joins(pile: tuple[int, ...], value: int) -> bool:
    """Whether a card joins its pile: not above the pile's lowest card."""
    return value <= min(pile)


def landing(pile: tuple[int, ...], tiles: tuple[int, ...], terrain: int,
            value: int) -> tuple[int, int | None]:
    """Where a card played on its terrain's pile lands, as (movement points, index in
    ``tiles`` of the tile laid or ``None``): joining the pile scores the pile's new sum;
    starting a new pile scores the card's value and lays the terrain's own tile if one is
    left, else a meadow, else nothing.

    >>> landing((2, 1), (3, 3, 3, 3, 3, 6), 0, 1)
    (4, None)
    >>> landing((2, 1), (0, 3, 3, 3, 3, 6), 0, 3)
    (3, 5)
    """
    if joins(pile, value):
        return sum(pile) + value, None
    return value, next((index for index in (terrain, len(TERRAINS)) if tiles[index]), None)


def possible(pile: tuple[int, ...], seen: tuple[int, ...], deck: tuple[int, ...], value: int) -> bool:
    """Whether some card of this value is out of sight (could be in a hand): the deck has
    more of it than its terrain's pile and the cards seen hold."""
    return deck.count(value) > pile.count(value) + seen.count(value)


#: A card's gain: its value, the movement points, whether it starts a new pile, the tile laid.
CardGain = tuple[int, int, bool, TileKind | None]


# The prompt (the richest card of each terrain) and the summary (every card's gain) ask
# this for the same position after each change: worked out once, and immutable.
@functools.lru_cache(maxsize=64)
def card_gains(pile: tuple[int, ...], seen: tuple[int, ...], deck: tuple[int, ...],
               tiles: tuple[int, ...], terrain: int) -> tuple[CardGain, ...]:
    """Per card value that may still be in a hand, what playing it on ``pile`` does now,
    read from where it lands (no state is built per card).

    >>> card_gains((2,), (), (0, 0, 1, 2, 3), (3, 3, 3, 3, 3, 6), 0)  # the only 2 is in sight
    ((0, 2, False, None), (1, 3, False, None), (3, 3, True, 'forest'))
    """
    out = []
    for value in sorted(set(deck)):
        if possible(pile, seen, deck, value):
            points, laid = landing(pile, tiles, terrain, value)
            out.append((value, points, not joins(pile, value), None if laid is None else TILE_KINDS[laid]))
    return tuple(out)


def put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """The tuple with one item replaced."""
    return items[:index] + (value,) + items[index + 1:]


def cut_full_zero_piles(piles: tuple[tuple[int, ...], ...],
                        deck: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], int]:
    """Cut each pile holding every 0 card of its terrain to a single 0.

    Returns the new piles and how many cards were cut away (they go to the discards).
    A deck without 0 cards has no such pile.
    """
    zeros = deck.count(0)
    if not zeros:
        return piles, 0
    cut = sum(len(p) - 1 for p in piles if p.count(0) == zeros)
    return tuple((0,) if p.count(0) == zeros else p for p in piles), cut


@valueclass
class State:
    """A game in progress. Per-terrain tuples follow ``TERRAINS``; per-player ones the seats."""

    players: tuple[str, ...]
    lemmings: int
    deck: tuple[int, ...]  # the values of one terrain's cards, sorted
    piles: tuple[tuple[int, ...], ...]  # oldest card first; never empty
    hands: tuple[int, ...]  # hand sizes: the cards themselves are hidden
    draw: int
    finished: tuple[int, ...]
    #: Tiles left per terrain, then the meadow tiles.
    tiles: tuple[int, ...] = (TILES_PER_TERRAIN,) * len(TERRAINS) + (MEADOW_TILES,)
    discards: int = 0
    #: Pile cards discarded since the last reshuffle, per terrain, sorted: in sight.
    seen: tuple[tuple[int, ...], ...] = EMPTY_SEEN
    turn: int = 0  # seat whose turn it is
    tile: TileKind | None = None  # what the most recent play must lay
    points: int = 0  # movement points of the most recent play
    #: The most recent turn's play (seat, terrain, value); None after a refill.
    played: tuple[int, int, int] | None = None
    winner: int | None = None

    @property
    def over(self) -> bool:
        """Whether someone has all their lemmings across."""
        return self.winner is not None


class QuickLemmings(Game[State, LemmingsSummary]):
    """Two to five players race lemmings; the companion keeps cards, piles and tiles."""

    id: ClassVar[str] = "quick-lemmings"
    title: ClassVar[str] = "Quick Lemmings"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = MOST_PLAYERS
    starter: ClassVar[str] = FIRST_SEAT
    verbs: ClassVar[Mapping[str, Verb]] = {
        "refill": Verb(("K",)),
        "play": Verb(("TERRAIN V",)),
        "finish": Verb(),
    }
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "lemmings": OptionSpec("2", parse_lemmings, "lemmings per player", ("1", "2", "3")),
        "deck": OptionSpec(DEFAULT_DECK, parse_deck, "card values of each terrain (house default)",
                           ask=Multiset(0, 9, "cards", "a terrain")),
    }
    pages: ClassVar[Mapping[str, str]] = {
        "": "Get all your lemmings over the finish line on the table map. The first to do "
            "it wins at once, even if an opponent's push carried the last one over "
            "(house default). The companion tracks cards, piles, tiles and points; it "
            "cannot see hands, so it only refuses cards it knows are in sight.",
        "setup": "Terrains: forest, water, mountain, swamp, desert. Each has cards valued "
                 "0 0 1 1 2 2 2 3 3 4 4 (house default; a record option), 3 tiles, plus 6 "
                 "meadow tiles. A 2 of each terrain starts its pile. Deal: the first "
                 "player gets 7 minus the players, each next seat one more, the last 6.",
        "turn": "On your turn either refill your hand or play one card; its points move "
                "one of your own lemmings. Then the next seat is on. The game menu's "
                "\"piles\" page shows, for each card value down the side, the points it "
                "gives on each pile now; a white cell starts a new pile and lays a tile "
                "(m: a meadow; outlined: none left; a dot: no such card can be in a "
                "hand).",
        "refill": "Drop as many cards as you like, then draw back up to 6. If the draw "
                  "pile is empty: a terrain pile holding all of its 0 cards is cut down "
                  "to one 0, the discards become the new draw pile, and you keep drawing. "
                  "Nothing left anywhere: your hand stays short.",
        "play": "Play a card on its terrain's pile. Not above the pile's lowest card: it "
                "joins, and you get the pile's total in points. Above it: the pile is "
                "discarded, your card starts a new one, you get its value, and you lay a "
                "tile of that terrain (none left: a meadow; none of those: nothing). A "
                "tile may go on bare ground, on an older tile (that one leaves play), or "
                "under a lemming.",
        "move": "Spend the points on one of your own lemmings, not another player's: 1 "
                "per meadow hex or hex of the played terrain, +1 per lemming pushed in a "
                "line. A push needs a free hex at the end; over the finish line is fine, "
                "off the board is not.",
        "finish": "Log a finish whenever a lemming crosses the line, in any turn, "
                  "pushed or not, for its owner. It does not pass the turn. Lemmings that "
                  "cross in one move are logged in the order they cross: a pushed lemming "
                  "is ahead of the one pushing it, so it crosses first (house default). "
                  "The first player with all their lemmings across wins.",
    }

    # --- the contract ---

    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> State:
        deck: tuple[int, ...] = options["deck"]
        hands = deal_sizes(len(players))
        if cards_to_deal(deck) < sum(hands):
            raise DeckTooSmall(f"{len(players)} players need {sum(hands)} cards dealt; "
                               f"this deck leaves {cards_to_deal(deck)}")
        # One starter per terrain sits in the piles; everything else not dealt is drawn.
        draw = cards_to_deal(deck) - sum(hands)
        return State(players=tuple(players), lemmings=options["lemmings"], deck=deck,
                     piles=tuple((STARTER,) for _ in TERRAINS), hands=hands, draw=draw,
                     finished=(0,) * len(players))

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(Termination.ALL_ACROSS, (state.players[state.winner],))

    def details(self, state: State) -> Details:
        names = state.players
        tiles = dict(zip((*TERRAINS, MEADOW), state.tiles))
        return {
            "piles": {t: list(p) for t, p in zip(TERRAINS, state.piles)},
            "tiles": tiles,
            "tile": state.tile,
            "hands": dict(zip(names, state.hands)),
            "draw": state.draw,
            "discards": state.discards,
            "points": state.points,
            "finished": dict(zip(names, state.finished)),
            # Extra keys, for the screens: the lemmings each player has, the most recent
            # turn's play, and what each card that may be in a hand would give now.
            "lemmings": state.lemmings,
            "played": self._played(state),
            "gains": {kind: self._gains(state, t) for t, kind in enumerate(TERRAINS)},
        }

    def seats(self, state: State) -> tuple[str, ...]:
        return state.players

    def play(self, state: State, line: Line) -> State:
        seat = state.players.index(line.actor)
        if line.verb == "finish":
            return self._finish(state, seat)
        if seat != state.turn:
            raise NotYourTurn(f"it is {state.players[state.turn]}'s turn")
        if line.verb == "refill":
            return self._pass_turn(self._refill(state, seat, number(line.args[0], 0, FULL_HAND, "K")))
        terrain, value = line.args[0], number(line.args[1], 0, 9, "a card value")
        if terrain not in TERRAINS:
            raise BadArguments(f"{terrain!r} is not a terrain: {', '.join(TERRAINS)}")
        return self._pass_turn(self._play(state, seat, TERRAINS.index(terrain), value))

    def prompt(self, state: State) -> Prompt | None:
        if state.over:
            return None
        seat = state.turn
        name, hand = state.players[seat], state.hands[seat]
        plays = (self._cards(state, name),) if hand else ()
        refills = tuple(
            Choice(f"Refill, drop {k}", Line(name, "refill", (str(k),)),
                   f"draw {self._refill(state, seat, k).hands[seat] - (hand - k)}")
            for k in range(hand + 1)
        )
        # Nobody has all lemmings across while the game goes on, so everyone may finish: the
        # likeliest first, the player who moved last, then round the table from the one
        # whose turn it is (a push may carry anyone's lemming over).
        count = len(state.players)
        last = (seat - 1) % count if state.played is None else state.played[0]
        order = [last, *(s % count for s in range(seat, seat + count) if s % count != last)]
        finishes = tuple(
            Choice(f"{state.players[s]} finish", Line(state.players[s], "finish"),
                   "wins" if state.finished[s] + 1 == state.lemmings
                   else f"home {state.finished[s] + 1}/{state.lemmings}")
            for s in order
        )
        return Prompt(name, f"{name}: play or refill", plays + refills, finishes, "turn")

    def _cards(self, state: State, name: str) -> Grid:
        """A card is picked on a table of the cards, the piles across and the values down
        (the lowest at the top, as on the piles page), each with what it gives now: the
        cursor starts on the card worth most points; a card nobody can hold is refused
        with the reason."""
        values = tuple(sorted(set(state.deck), reverse=True))  # rows count from the bottom
        legal, notes = [], []
        for t, kind in enumerate(TERRAINS):
            for value, points, new_pile, tile in self._card_gains(state, t):
                legal.append(Line(name, "play", (kind, str(value))))
                lands = f"new pile\n{'lay ' + tile if tile else 'no tile'}" if new_pile else "joins"
                notes.append(((t + 1, values.index(value) + 1), f"{points} pts\n{lands}"))
        best = max(range(len(TERRAINS)), key=lambda t: self._best_card(state, t)[0])
        start = (best + 1, values.index(self._best_card(state, best)[1]) + 1)
        return Grid("Play a card", name, "play", len(TERRAINS), len(values), tuple(legal), start=start,
                    notes=tuple(notes), columns=TERRAINS, row_words=tuple(str(v) for v in values))

    # --- helpers that read the state ---

    @staticmethod
    def _possible(state: State, terrain: int, value: int) -> bool:
        """Whether some card of this terrain and value is out of sight (could be in a hand)."""
        return possible(state.piles[terrain], state.seen[terrain], state.deck, value)

    @staticmethod
    def _played(state: State) -> Played | None:
        """The most recent turn's play as the screens name it; None after a refill."""
        if state.played is None:
            return None
        seat, terrain, value = state.played
        return {"player": state.players[seat], "terrain": TERRAINS[terrain], "value": value}

    def _best_card(self, state: State, terrain: int) -> tuple[int, int]:
        """The card of this terrain worth most movement points now, among those that may be
        in a hand, as (points, value): the one a player reaches for first. Of two worth the
        same, the higher (it also starts a new pile and lays a tile)."""
        return max(((points, value) for value, points, _, _ in self._card_gains(state, terrain)),
                   default=(0, min(state.deck)))

    def _gains(self, state: State, terrain: int) -> list[Gain]:
        """Per card value that may still be in a hand: the points a play of it on this
        pile gives now, whether it starts a new pile, and the tile that would be laid."""
        return [{"value": value, "points": points, "new_pile": new_pile, "tile": tile}
                for value, points, new_pile, tile in self._card_gains(state, terrain)]

    @staticmethod
    def _card_gains(state: State, terrain: int) -> tuple[CardGain, ...]:
        return card_gains(state.piles[terrain], state.seen[terrain], state.deck, state.tiles, terrain)

    # --- line handlers: each returns the new state, or raises ---

    def _pass_turn(self, state: State) -> State:
        return replace(state, turn=(state.turn + 1) % len(state.players))

    def _finish(self, state: State, seat: int) -> State:
        # A lemming may be pushed over the line in anyone's turn, so any player may log it.
        done = state.finished[seat] + 1
        return replace(state, finished=put(state.finished, seat, done),
                       winner=seat if done == state.lemmings else None)

    def _refill(self, state: State, seat: int, discard: int) -> State:
        name = state.players[seat]
        hand = state.hands[seat]
        if discard > hand:
            raise TooManyDiscards(f"{name} holds only {counted(hand, 'card')}")
        hand -= discard
        piles, draw, discards, seen = state.piles, state.draw, state.discards + discard, state.seen
        while hand < FULL_HAND:
            if not draw:
                piles, cut = cut_full_zero_piles(piles, state.deck)
                discards += cut
                if not discards:
                    break  # no card left anywhere: the hand stays short
                # The reshuffle hides every discarded card again.
                draw, discards, seen = discards, 0, EMPTY_SEEN
            taken = min(draw, FULL_HAND - hand)
            hand, draw = hand + taken, draw - taken
        return replace(state, hands=put(state.hands, seat, hand), piles=piles, draw=draw,
                       discards=discards, seen=seen, played=None)

    def _play(self, state: State, seat: int, terrain: int, value: int) -> State:
        name, kind = state.players[seat], TERRAINS[terrain]
        if not state.hands[seat]:
            raise EmptyHand(f"{name} holds no card: refill instead")
        if value not in state.deck:
            raise NotInDeck(f"the deck has no {value}")
        if not self._possible(state, terrain, value):
            raise AllInSight(f"no {kind} {value} is left")
        state = replace(state, hands=put(state.hands, seat, state.hands[seat] - 1),
                        played=(seat, terrain, value))
        return self._lay(state, terrain, value)

    @staticmethod
    def _lay(state: State, terrain: int, value: int) -> State:
        """The card on its pile: it joins (points: the pile's sum) or starts a new pile
        (points: its value, and a tile to lay)."""
        pile = state.piles[terrain]
        points, laid = landing(pile, state.tiles, terrain, value)
        if joins(pile, value):
            return replace(state, piles=put(state.piles, terrain, (*pile, value)), points=points,
                           tile=None)
        seen = put(state.seen, terrain, tuple(sorted(state.seen[terrain] + pile)))
        tiles, tile = state.tiles, None
        if laid is not None:
            tiles, tile = put(tiles, laid, tiles[laid] - 1), TILE_KINDS[laid]
        return replace(state, piles=put(state.piles, terrain, (value,)), points=points, tile=tile,
                       tiles=tiles, discards=state.discards + len(pile), seen=seen)
