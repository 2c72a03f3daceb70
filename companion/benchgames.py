"""Games that ``companion bench`` makes itself: seeded random legal play-outs, as tables play.

The checked-in session (``companion/benchdata``) is what the screens were measured against
while they were made, so a figure from it flatters every choice made on it. Bench also
makes games of its own from a seed and types them in the same way. Each game is played
line by line from the game's own prompts, so every line is legal, and drawn as a table
plays it:

- dice are fair: every face equally likely, and faces the rules refuse (a leaf on a blue
  square) rolled again, as the table does;
- a player's choice is drawn at random among the legal ones, weighted by what players
  weigh (per game, below); never simply the answer the screen starts on, or the figure
  would measure the screen's ranking against itself;
- optional lines come at the rates a table meets them, from what happened in the game
  (penguins placed in a circle, points a lemming moved, a robot's moving action).

A game with no model below is played fairly: a uniform pick among the legal answers, and
one of its optional lines now and then. The players are a random number of the roster's
names, in a random order; each option with choices is its default half the time, else
any of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

from companion.config import DEFAULT_ROSTER
from companion.games import GAMES
from companion.games.base import Answer, Choice, Form, Game, Grid, IllegalLine, Line, Prompt, Roll, usable
from companion.record import Header, Replayed

#: A game's record lines at most (a whole game is far shorter: the cap only ends a game
#: whose model never brings it to its end).
MOST_LINES = 1500
#: Draws of random faces or values before giving up on an answer.
TRIES = 2000

T = TypeVar("T")


def weighted(rng: random.Random, items: Sequence[T], weights: Sequence[float]) -> T:
    """One of ``items``, drawn with these weights."""
    return rng.choices(items, weights)[0]


class Table:
    """How a table plays a game: fair dice, a uniform pick among the legal answers, and
    one of the optional lines offered now and then (``EXTRA`` of the prompts that offer
    any). A game's model overrides what its players weigh."""

    EXTRA = 0.1

    def __init__(self, game: Game[Any, Any], rng: random.Random) -> None:
        self.game = game
        self.rng = rng

    def line(self, state: Any, ask: Prompt) -> Line:
        """The next line: an optional one if the table logs one now, else a required one."""
        return self.optional(state, ask) or self.required(state, ask)

    def optional(self, state: Any, ask: Prompt) -> Line | None:
        extras = usable(ask.extras)
        if extras and self.rng.random() < self.EXTRA:
            return self.fair(state, self.rng.choice(extras))
        return None

    def required(self, state: Any, ask: Prompt) -> Line:
        return self.fair(state, self.rng.choice(usable(ask.answers)))

    def fair(self, state: Any, answer: Answer) -> Line:
        """A legal line of ``answer``: fair faces, a uniform square or values."""
        if isinstance(answer, Choice):
            return answer.line
        if isinstance(answer, Grid):
            return self.rng.choice(answer.legal)
        if isinstance(answer, Roll):
            return self.legal(state, lambda: answer.line(tuple(self.rng.randint(1, s) for s in answer.sides)))
        return self.legal(state, lambda: answer.line(tuple(self.rng.randint(f.low, f.high) for f in answer.fields)))

    def legal(self, state: Any, draw: Callable[[], Line]) -> Line:
        """The first of ``draw``'s lines that the rules accept (dice rolled again)."""
        for _ in range(TRIES):
            line = draw()
            if self.accepts(state, line):
                return line
        raise RuntimeError(f"{self.game.id}: no legal line drawn in {TRIES} tries")

    def accepts(self, state: Any, line: Line) -> bool:
        try:
            self.game.apply(state, line)
        except IllegalLine:
            return False
        return True


class LeafTable(Table):
    """Leaf-Climbers: players climb (a high square takes fewer leaves) and keep off the
    squares this round's leaves will land on: a square's weight is one more than its
    height, a tenth of that where a leaf lands. Staying is the square the meeple is on."""

    def required(self, state: Any, ask: Prompt) -> Line:
        grid = next((a for a in ask.answers if isinstance(a, Grid)), None)
        if grid is None:
            return super().required(state, ask)
        at = state.positions[state.mover]
        stay = next(a.line for a in ask.answers if isinstance(a, Choice))
        squares = [(int(line.args[0]), int(line.args[1])) for line in grid.legal]
        weights = [(1 + state.height(square)) * (0.1 if square in state.leaves else 1.0) for square in squares]
        square = weighted(self.rng, squares, weights)
        return stay if square == at else Line(grid.actor, grid.verb, (str(square[0]), str(square[1])))


class PenguinTable(Table):
    """Penguin Panic: the free ability space most often (a dearer one less often, in
    proportion); any bear; a die bought a quarter of the times it is offered; all sixes
    with ability 1 rolled again a third of the time. A placement goes in any circle the
    dice name; its linked group is 1 about half the time (2, 3, 4, more ever rarer) and
    has no coloured igloo three times in four. A circle fills: each holds two of the
    seeded penguins, one more per placement, and at seven the placer logs it full
    (colour any, 2-4 out), which leaves it with those fewer. Swap and extend are used
    one time in six they are offered."""

    LINKED = (0.5, 0.25, 0.12, 0.07, 0.03, 0.02, 0.01)  # a group of 1, 2, ... 7
    COLOURED = (0.75, 0.2, 0.05)  # 0, 1, 2 coloured igloos in it
    FULL = 7
    ABILITY = 1 / 6

    def __init__(self, game: Game[Any, Any], rng: random.Random) -> None:
        super().__init__(game, rng)
        self.filled = dict.fromkeys(range(1, 6), 2)
        self.full: list[int] = []  # circles to log full, in order

    def optional(self, state: Any, ask: Prompt) -> Line | None:
        for form in usable(ask.extras):
            if isinstance(form, Form) and form.verb == "complete" and int(form.prefix[0]) in self.full:
                circle = int(form.prefix[0])
                self.full.remove(circle)
                colour = self.rng.randint(form.fields[0].low, form.fields[0].high)
                out = min(self.rng.randint(2, 4), form.fields[1].high)
                line = form.line((colour, out))
                if self.accepts(state, line):
                    self.filled[circle] -= out
                    return line
        abilities = [a for a in usable(ask.extras) if not (isinstance(a, Form) and a.verb == "complete")]
        if abilities and self.rng.random() < self.ABILITY:
            return self.fair(state, self.rng.choice(abilities))
        return None

    def required(self, state: Any, ask: Prompt) -> Line:
        answers = usable(ask.answers)
        verbs = {a.line.verb if isinstance(a, Choice) else a.verb for a in answers}
        if verbs == {"ability"}:
            return weighted(self.rng, [a.line for a in answers if isinstance(a, Choice)],
                            [1 / (1 + rank) for rank in range(len(answers))])
        if "buy" in verbs:
            buy = self.rng.random() < 0.25
            return self.fair(state, next(a for a in answers if isinstance(a, Choice) == buy))
        places = [a for a in answers if isinstance(a, Form) and a.verb == "place"]
        if places and (len(places) == len(answers) or self.rng.random() < 2 / 3):
            form = self.rng.choice(places)
            linked, coloured = form.fields
            group = min(weighted(self.rng, range(1, 8), self.LINKED), linked.high)
            marked = min(weighted(self.rng, range(3), self.COLOURED), coloured.high, group)
            line = form.line((group, marked))
            if self.accepts(state, line):
                circle = int(form.prefix[0])
                self.filled[circle] += 1
                if self.filled[circle] >= self.FULL:
                    self.full.append(circle)
                return line
            return self.fair(state, form)
        return super().required(state, Prompt(ask.actor, ask.question, tuple(a for a in answers if a not in places)))


class MicrobotTable(Table):
    """Microbot Racers: any free action is picked (a pass a third as often), and any of
    the picked ones carried out (the pit repair a third as often as the plain one). Each
    time a moving action may log them: a hazard one time in five, a hit one in eight
    (block or robot alike), the lap one in ten, a switch one in thirty, and a robot left
    on a puddle by a switch logs it half the time; a robot claims P1 one time in twenty
    it may."""

    RATES: ClassVar[dict[str, float]] = {"hazard": 0.2, "impact": 0.125, "lap": 0.1, "switch": 1 / 30,
                                         "first": 0.05}
    PUDDLE = 0.5

    def optional(self, state: Any, ask: Prompt) -> Line | None:
        for answer in self.rng.sample(usable(ask.extras), len(usable(ask.extras))):
            assert isinstance(answer, Choice)
            line = answer.line
            rate = self.RATES.get(line.verb, self.EXTRA)
            if line.verb == "impact":
                rate /= 2  # two lines, block and robot, share it
            if line.verb == "hazard" and state.acting is not None and line.actor != state.players[state.acting]:
                rate = self.PUDDLE
            if self.rng.random() < rate:
                return line
        return None

    def required(self, state: Any, ask: Prompt) -> Line:
        answers = [a for a in usable(ask.answers) if isinstance(a, Choice)]
        if not answers:
            return super().required(state, ask)
        weights = [1 / 3 if a.line.verb == "pass" or a.line.args[1:] == ("pit",) else 1.0 for a in answers]
        return weighted(self.rng, [a.line for a in answers], weights)


class LemmingsTable(Table):
    """Quick Lemmings: hands are hidden from the box, so each turn the player's hand is
    drawn from the cards out of sight (as many as the box says the hand holds). The
    player refills (dropping k cards with weight 1/2^k) half the time with 2 cards or
    fewer, a third of the time when no card is worth 3 points, else one time in twelve;
    otherwise plays a card of the hand, a card's weight one more than its points (the
    map, which the box cannot see, decides the rest). The points move the player's
    lemmings one after the other, a quarter to all of them of use (only hexes of the
    card's terrain and clear ones may be entered); a lemming is across after 15-25, and
    its finish is logged then."""

    def __init__(self, game: Game[Any, Any], rng: random.Random) -> None:
        super().__init__(game, rng)
        self.ahead: dict[str, list[int]] = {}  # per player, the points each lemming still needs
        self.across: list[str] = []  # finishes to log, in order

    def optional(self, state: Any, ask: Prompt) -> Line | None:
        if self.across:
            return Line(self.across.pop(0), "finish")
        return None

    def required(self, state: Any, ask: Prompt) -> Line:
        from companion.games.quick_lemmings import TERRAINS, landing

        seat, name = state.turn, ask.actor
        unseen = [(terrain, value) for terrain, kind in enumerate(TERRAINS) for value in sorted(set(state.deck))
                  for _ in range(state.deck.count(value) - state.piles[terrain].count(value)
                                 - state.seen[terrain].count(value))]
        hand = self.rng.sample(unseen, min(state.hands[seat], len(unseen)))
        points = [landing(state.piles[t], state.tiles, t, v)[0] for t, v in hand]
        refill = 0.5 if len(hand) <= 2 else 1 / 3 if max(points, default=0) < 3 else 1 / 12
        if not hand or self.rng.random() < refill:
            drop = weighted(self.rng, range(len(hand) + 1), [0.5 ** k for k in range(len(hand) + 1)])
            return Line(name, "refill", (str(drop),))
        terrain, value = weighted(self.rng, hand, [1 + p for p in points])
        self.move(name, landing(state.piles[terrain], state.tiles, terrain, value)[0], state.lemmings)
        return Line(name, "play", (TERRAINS[terrain], str(value)))

    def move(self, name: str, points: int, lemmings: int) -> None:
        """Move the player's leading lemming; one that crosses is logged next."""
        ahead = self.ahead.setdefault(name, [self.rng.randint(15, 25) for _ in range(lemmings)])
        if ahead:
            ahead[0] -= round(points * self.rng.uniform(0.25, 1))
            if ahead[0] <= 0:
                ahead.pop(0)
                self.across.append(name)


class GleebsTable(Table):
    """Gleeb's and Grues: players play the companion's own move (a short search) half the
    time, else any legal one (any piece to place, then any square for it)."""

    NODES = 300  # the search's budget: a node count, so that a seed makes the same game

    def required(self, state: Any, ask: Prompt) -> Line:
        from companion.ai.gleebs import advise

        if any(isinstance(a, Grid) for a in ask.answers) and self.rng.random() < 0.5:
            advice = advise(state, 1e9, clock=lambda: 0.0, max_nodes=self.NODES)
            if advice is not None:
                return advice.line
        return super().required(state, ask)


TABLES: dict[str, type[Table]] = {
    "leaf-climbers": LeafTable,
    "penguin-panic": PenguinTable,
    "microbot-racers": MicrobotTable,
    "quick-lemmings": LemmingsTable,
    "gleebs-and-grues": GleebsTable,
}


def generated_game(game_id: str, seed: int) -> Replayed:
    """One whole game of ``game_id``, the same for the same seed."""
    rng = random.Random(f"{game_id} {seed}")
    game = GAMES[game_id]
    players = tuple(rng.sample(DEFAULT_ROSTER, rng.randint(game.min_players, game.max_players)))
    options = tuple((key, spec.default if rng.random() < 0.5 else rng.choice(spec.choices))
                    for key, spec in game.options.items() if spec.choices)
    header = Header(game, players, options)
    state = header.start()
    table = TABLES.get(game_id, Table)(game, rng)
    lines: list[Line] = []
    while len(lines) < MOST_LINES:
        ask = game.prompt(state)
        if ask is None or not ask.answers:
            break
        line = table.line(state, ask)
        state = game.apply(state, line)
        lines.append(line)
    return Replayed(header, tuple(lines), state)


def generated_session(seeds: Sequence[int], game_ids: Sequence[str] = ()) -> list[Replayed]:
    """A game of every game (or of each of ``game_ids``) for each seed."""
    return [generated_game(game_id, seed) for game_id in game_ids or sorted(GAMES) for seed in seeds]
