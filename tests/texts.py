"""Every refusal and result the engines can produce, each at its longest (issue 26 §1).

Nothing here is listed by hand. The widest names a roster may hold are made from the
record's own rule (12 characters; both fonts are monospaced, so every 12-character name is
as wide as any other: capitals, and a descender for the tallest ink). Random games between
such players are played out; in the states they pass through, the lines the prompt offers
are tried with each word changed for another the game uses (another player, a number out
of range, a square, a colour), by another actor, and with words left out or added, and
every reason the rules give is kept. The results (events) of every entry are kept too.
Texts that differ only in names and numbers are one kind; the longest of each kind is kept.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from companion.dice import device_roll
from companion.exc import IllegalLine
from companion.games import GAMES
from companion.games import results as told
from companion.games.base import TABLE, Choice, Form, Game, Grid, Line, Prompt, Roll, usable
from companion.record import NAME
from tests.playout import answer

#: The longest a name may be (records.md: 1-12 characters of A-Z a-z 0-9 - _).
LONGEST = max(int(n) for n in re.findall(r"\d+", NAME.pattern))
GAMES_EACH = 2  # random games per game and table size
STEPS = 300  # lines per game at most
TRIED = 60  # states per game where lines are tried


def widest_names(count: int, first: str = "A") -> tuple[str, ...]:
    """``count`` different names of the longest length, as wide and tall as names get.

    >>> widest_names(2)
    ('AWWWWWWWWWWg', 'BWWWWWWWWWWg')
    """
    return tuple(chr(ord(first) + seat) + "W" * (LONGEST - 2) + "g" for seat in range(count))


def widest_options(game: Game[Any], players: tuple[str, ...]) -> dict[str, str]:
    """Every option at its widest: the longest (and largest) of its choices, or for a list
    of names (Penguin Panic's colours) names of the longest length; other options (one
    that names a player) as they come."""
    out: dict[str, str] = {}
    for key, spec in game.options.items():
        if spec.choices:
            out[key] = max(spec.choices, key=lambda choice: (len(choice), choice))
            continue
        names = ",".join(widest_names(len(spec.default.split(",")), "V"))
        try:
            game.start(players, game.option_values({**out, key: names}))
        except ValueError:
            continue
        out[key] = names
    return out


def kind(words: str, names: tuple[str, ...]) -> str:
    """What a text says with its names and numbers left out: texts of one kind."""
    for name in names:
        words = words.replace(name, "NAME")
    return re.sub(r"\d+", "N", words)


def tokens(ask: Prompt) -> set[str]:
    """The words the lines of a prompt use."""
    found: set[str] = set()
    for option in (*ask.answers, *ask.extras):
        if isinstance(option, Choice):
            found.update(option.line.args)
        elif isinstance(option, Grid):
            for line in option.legal:
                found.update(line.args)
        elif isinstance(option, Form):
            found.update(option.prefix)
            for field in option.fields:
                found.update(field.word(v) for v in (field.low, field.high))
        elif isinstance(option, Roll):
            found.update(option.prefix + option.names)
    return found


def tried(game: Game[Any], state: Any, ask: Prompt, players: tuple[str, ...],
          rng: random.Random) -> Iterator[Line]:
    """Lines near those the prompt offers, most of them wrong."""
    pool = sorted(tokens(ask) | {"0", "1", "7", "99", "x", *players})
    lines = [answer(game, state, ask, rng) for _ in range(2)]
    for line in lines:
        for at in range(len(line.args)):
            for word in rng.sample(pool, min(4, len(pool))):
                yield Line(line.actor, line.verb, line.args[:at] + (word,) + line.args[at + 1:])
        yield Line(line.actor, line.verb, line.args[:-1])
        yield Line(line.actor, line.verb, (*line.args, rng.choice(pool)))
        for actor in (*players, TABLE, "nobody"):
            yield Line(actor, line.verb, line.args)
    for verb in game.verbs:
        for actor in (*players, TABLE):
            count = rng.choice(sorted(game.verbs[verb].counts))
            yield Line(actor, verb, tuple(rng.choice(pool) for _ in range(count)))
    yield Line(players[0], "fly")


@dataclass(frozen=True)
class Harvest:
    """What one game's engine says, the longest of each kind: its refusals, the results
    of its entries, and the checks it shows before logging one."""

    refusals: tuple[str, ...]
    results: tuple[str, ...]
    previews: tuple[str, ...]
    #: Questions, and the labels and hints of the answers to them.
    asks: tuple[str, ...]
    #: The results of entries that had several, of each kind of first result.
    together: tuple[tuple[str, ...], ...]


@cache
def harvest(game_id: str) -> Harvest:
    """The longest refusal, result and check of each kind one game produces."""
    game = GAMES[game_id]
    rng = random.Random(26)
    refusals: dict[str, str] = {}
    results: dict[str, str] = {}
    previews: dict[str, str] = {}
    asks: dict[str, str] = {}
    together: dict[str, tuple[str, ...]] = {}

    def keep(found: dict[str, str], words: str, names: tuple[str, ...]) -> None:
        key = kind(words, names)
        if len(words) > len(found.get(key, "")):
            found[key] = words

    for count in range(game.min_players, game.max_players + 1):
        names = widest_names(count)
        for _ in range(GAMES_EACH):
            state = game.start(names, game.option_values(widest_options(game, names)))
            tries = TRIED
            for _ in range(STEPS):
                ask = game.prompt(state)
                if ask is None or not usable((*ask.answers, *ask.extras)):
                    break
                for said in words_of(ask):
                    keep(asks, said, names)
                if tries and rng.random() < 0.4:
                    tries -= 1
                    for line in tried(game, state, ask, names, rng):
                        try:
                            game.apply(state, line)
                        except IllegalLine as err:
                            keep(refusals, str(err), names)
                rolls = [a for a in ask.answers if isinstance(a, Roll)]
                lines = (device_roll(game, state, rng.choice(rolls), rng) if rolls and rng.random() < 0.5
                         else [answer(game, state, ask, rng)])
                before = state
                for line in lines:
                    keep(previews, game.preview(state, line), names)
                    state = game.apply(state, line)
                events = told(game, before, state, lines)
                for event in events:
                    keep(results, event, names)
                if len(events) > 1:
                    together.setdefault(kind(events[0], names), events)
    return Harvest(*(tuple(found.values()) for found in (refusals, results, previews, asks)),
                   tuple(together.values()))


def words_of(ask: Prompt) -> Iterator[str]:
    """What a prompt says: its question, and each answer's label and hint."""
    yield ask.question
    for option in (*ask.answers, *ask.extras):
        yield option.label
        if isinstance(option, Choice):
            yield option.hint
        elif isinstance(option, Roll):
            yield option.chance


#: The nouns the box counts, in the plural: "1 gleebs to place" was one of them (issue 26).
PLURALS = ("leaves", "points", "cards", "penguins", "gleebs", "grues", "entries", "stacks",
           "bounces", "games", "lemmings", "squares", "laps", "turns", "rounds", "faces",
           "tiles", "pips", "players", "spaces", "pieces", "igloos", "circles", "lines")
ONE_OF_MANY = re.compile(rf"(?<![\d.,/-])\b1 ({'|'.join(PLURALS)})\b")
