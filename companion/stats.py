"""Who wins, and are the dice fair (issue 28 §4): figures read from the stored games.

**Players**: for each player and game, the finished games they sat in, those they won, and
when they last played. A seat the companion played counts for "Companion", not for the
seat's name (as BG Stats counts a non-player).

**Dice**: every face the stored games hold, by game, source and die, against what a fair
die gives, and a chi-square test of the counts. The sources: the box's own rolls (with
every device roll it undid, from the dice audit: a roll taken back still was a roll),
faces typed in (on the box's keys or a console), faces a die reader sent, faces in an
imported record, and faces stored before the store kept their source ("typed or read").
Only dice whose every face may come up are counted: a leaf that may not land where it
fell is rolled again, so the leaves that did land are not fair dice, and neither are the
grues' squares. Faces typed in and then undone are not counted: a correction is no roll.

A verdict needs enough rolls: every face must be expected at least :data:`MIN_EXPECTED`
times (30 rolls of a d6, 100 of a d20), the usual condition for the chi-square test to
hold. Below that it says so and gives no verdict. At or above it, a p-value under
:data:`UNEVEN` says "this looks uneven" (1%: with a dozen groups of dice, a 5% test would
cry wolf about every other evening).

The p-value is the chi-square distribution's upper tail, the regularized upper incomplete
gamma function Q(k/2, x/2): a series below a + 1 and a continued fraction above, as
numerical texts give them (no SciPy on the box).
"""

from __future__ import annotations

import datetime
import math
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any, Literal

from companion.ai import seats_of
from companion.exc import Unreadable
from companion.games import GAMES, title
from companion.games.base import IllegalLine, Line, Prompt, Roll
from companion.record import replay_text
from companion.store import Entry, GameRow, MadeRoll, Store, roll_in_force

COMPANION = "Companion"  # the name the companion's seats are counted under
MIN_EXPECTED = 5  # a verdict needs every face expected at least this often
UNEVEN = 0.01  # a p-value below this looks uneven
CHUNK = 256  # entries read from the store at a time

DiceSource = Literal["device", "typed", "reader", "imported", "unknown"]
#: What each source is called on the screen and in the text report, in their order.
SOURCE_WORDS: dict[DiceSource, str] = {
    "device": "box rolls", "typed": "typed in", "reader": "die reader",
    "imported": "imported", "unknown": "typed or read",
}
#: Entries' stored sources (``entries.source``) as dice sources; rolled entries are "device".
FROM_ENTRY: dict[str | None, DiceSource] = {
    "keys": "typed", "console": "typed", "reader": "reader", "import": "imported", None: "unknown",
}


# --- the chi-square test ---


def upper_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a).

    >>> round(upper_gamma_q(1, 2), 12) == round(math.exp(-2), 12)
    True
    """
    if a <= 0 or x < 0:
        raise ValueError("Q(a, x) needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    scale = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1:  # the series for P converges quickly here
        term = total = 1 / a
        n = 0
        while abs(term) > abs(total) * 1e-15 and n < 10_000:
            n += 1
            term *= x / (a + n)
            total += term
        return max(0.0, 1 - total * scale)
    tiny = 1e-300  # the continued fraction for Q (modified Lentz)
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, h * scale)


def chi_square_p(statistic: float, freedom: int) -> float:
    """The chance that a fair die gives a chi-square statistic at least this large.

    >>> round(chi_square_p(11.0705, 5), 4), round(chi_square_p(3.8415, 1), 4)
    (0.05, 0.05)
    """
    return upper_gamma_q(freedom / 2, statistic / 2)


@dataclass(frozen=True)
class Verdict:
    """The test of one die's counts: the statistic and its p-value (None: too few rolls)
    and what it says in words."""

    statistic: float | None
    p: float | None
    words: str


def needed(sides: int) -> int:
    """Rolls for a verdict: every face expected at least :data:`MIN_EXPECTED` times."""
    return MIN_EXPECTED * sides


def verdict(counts: Sequence[int]) -> Verdict:
    """Whether these face counts look like a fair die's.

    >>> verdict([5, 5, 5, 5, 5, 4]).words
    'too few rolls to tell: 29 of 30'
    >>> verdict([10, 10, 10, 10, 10, 10]).words
    'nothing unusual'
    >>> verdict([40, 5, 5, 5, 5, 5]).words
    'this looks uneven: 65 rolls, p = 8.7e-19'
    """
    rolls, sides = sum(counts), len(counts)
    if rolls < needed(sides):
        return Verdict(None, None, f"too few rolls to tell: {rolls} of {needed(sides)}")
    expected = rolls / sides
    statistic = sum((count - expected) ** 2 / expected for count in counts)
    p = chi_square_p(statistic, sides - 1)
    words = f"this looks uneven: {rolls} rolls, p = {p:.2g}" if p < UNEVEN else "nothing unusual"
    return Verdict(statistic, p, words)


# --- players ---


@dataclass(frozen=True)
class PlayerRecord:
    """One player's finished games of one game: how many, how many won, and the time of
    the latest (whether the clock was synchronised then)."""

    name: str
    game: str
    plays: int
    wins: int
    last: float
    last_synced: bool


def finished_games(store: Store) -> list[GameRow]:
    """The finished games, newest first; one that cannot be read is left out."""
    return store.readable_games("over", limit=2**31)[0]


def seated(row: GameRow) -> list[str]:
    """The game's seats as counted: the companion's seats as :data:`COMPANION`."""
    names = row.header[1].split()[1:] if len(row.header) > 1 else []
    companion = set(seats_of(row.header))
    return [COMPANION if name in companion else name for name in names]


def players(store: Store) -> list[PlayerRecord]:
    """Every player's record by game, players in alphabetical order, then games by title."""
    plays: Counter[tuple[str, str]] = Counter()
    wins: Counter[tuple[str, str]] = Counter()
    last: dict[tuple[str, str], tuple[int, float, bool]] = {}
    for row in finished_games(store):
        winners = set(row.winners)
        for seat, name in zip(row.header[1].split()[1:] if len(row.header) > 1 else [], seated(row)):
            key = (name, row.game)
            plays[key] += 1
            wins[key] += seat in winners
            if key not in last or row.touched > last[key][0]:
                last[key] = (row.touched, row.updated, row.updated_synced)
    return [PlayerRecord(name, game, plays[name, game], wins[name, game], *last[name, game][1:])
            for name, game in sorted(plays, key=lambda k: (k[0].casefold(), k[0], title(k[1])))]


# --- dice ---


@dataclass(frozen=True)
class Tally:
    """The faces of one kind of die in one game from one source: ``counts[f - 1]`` is how
    often face ``f`` came up."""

    game: str
    source: DiceSource
    sides: int
    counts: tuple[int, ...]

    @property
    def rolls(self) -> int:
        return sum(self.counts)

    def verdict(self) -> Verdict:
        return verdict(self.counts)


def fair_die(ask: Prompt | None, line: Line) -> Roll | None:
    """The roll among ``ask``'s answers that ``line`` answers, when it is one whose every
    face may come up (not one rolled again when the rules refuse it, not named faces)."""
    for answer in ask.answers if ask else ():
        if (isinstance(answer, Roll) and (answer.actor, answer.verb) == (line.actor, line.verb)
                and not answer.reroll_refused and not answer.names
                and line.args[:len(answer.prefix)] == answer.prefix
                and len(line.args) == len(answer.prefix) + len(answer.sides)):
            return answer
    return None


def could_be_a_roll(line: Line) -> bool:
    """A line's last word is a number: only then may it be a die's face (the rules are
    asked for their prompt only then, which a replay otherwise never needs)."""
    return bool(line.args) and line.args[-1].isdigit()


class DiceCounter:
    """Counts the faces of the stored games, one game at a time."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, DiceSource, int], list[int]] = {}

    def add(self, game: str, source: DiceSource, roll: Roll, line: Line) -> None:
        for sides, face in zip(roll.sides, line.args[len(roll.prefix):]):
            value = int(face)
            if 1 <= value <= sides:
                self.counts.setdefault((game, source, sides), [0] * sides)[value - 1] += 1

    def lines(self, game: Any, state: Any, lines: Sequence[str], source: DiceSource,
              game_id: str) -> Any:
        """Count the fair dice among ``lines`` played from ``state``; the state after them
        (IllegalLine as the rules raise it)."""
        for text in lines:
            line = Line.parse(text)
            if could_be_a_roll(line):
                roll = fair_die(game.prompt(state), line)
                if roll is not None:
                    self.add(game_id, source, roll, line)
            state = game.apply(state, line)
        return state

    def game(self, store: Store, row: GameRow) -> Iterator[None]:
        """Every face of one stored game in force, and every device roll it undid: once for
        each entry counted (the box counts a slice of entries between two presses, and one
        game may be thousands of them)."""
        engine = GAMES.get(row.game) if row.game in GAMES else None
        if engine is None:
            return
        try:
            state = replay_text("\n".join(row.header) + "\n").state
        except ValueError:  # a header that no longer replays: its dice are not counted
            return
        made = store.rolls(row.id)
        undone: dict[int, list[MadeRoll]] = {}
        for roll in made:
            undone.setdefault(min(roll.seq, row.head + 1), []).append(roll)
        done = 0
        while done < row.head:
            entries = store.entries(row.id, min(row.head, done + CHUNK), done + 1)
            if not entries:
                return
            sources = store.sources(row.id, done + 1, entries[-1].seq)
            for entry in entries:
                self.undone(engine, state, entry, undone.pop(entry.seq, []), row.game)
                source: DiceSource = "device" if entry.rolled else FROM_ENTRY.get(sources.get(entry.seq), "unknown")
                try:
                    state = self.lines(engine, state, entry.lines, source, row.game)
                except IllegalLine:
                    return  # a damaged store: counted as far as it replays
                done = entry.seq
                yield
        self.undone(engine, state, None, undone.pop(row.head + 1, []), row.game)

    def undone(self, engine: Any, state: Any, entry: Entry | None, made: list[MadeRoll], game_id: str) -> None:
        """The device rolls made at this place that the entry in force is not (as the Log
        and the export tell them apart: an earlier roll with the same faces still counts)."""
        kept = roll_in_force(made, entry) if entry is not None and entry.rolled else None
        for roll in made:
            if roll == kept:
                continue  # the roll in force: counted with its entry
            try:
                self.lines(engine, state, roll.lines, "device", game_id)
            except (IllegalLine, ValueError):
                continue  # made on a path the record no longer takes

    def tallies(self) -> list[Tally]:
        order = list(SOURCE_WORDS)
        return [Tally(game, source, sides, tuple(counts))
                for (game, source, sides), counts in sorted(
                    self.counts.items(), key=lambda kv: (title(kv[0][0]), order.index(kv[0][1]), kv[0][2]))]


def counting(counter: DiceCounter, store: Store, gid: int) -> Iterator[None]:
    """Count one stored game's dice (none for a game that cannot be read), once for each
    entry counted."""
    try:
        row = store.game(gid)
        yield from counter.game(store, row)
    except (Unreadable, sqlite3.DatabaseError):
        return


def count_game(counter: DiceCounter, store: Store, gid: int) -> None:
    """Count one stored game's dice at once."""
    for _ in counting(counter, store, gid):
        pass


def dice(store: Store) -> list[Tally]:
    """The faces of every stored game, by game, source and die."""
    counter = DiceCounter()
    for gid in store.game_ids():
        count_game(counter, store, gid)
    return counter.tallies()


class DiceBook:
    """:func:`dice` for a reader that asks again and again (the phone view): each game's
    counts are kept with the store's mark of its last change, so only the games changed
    since (the one being played) are counted again. At most :data:`BOOK` games are kept;
    the others are counted each time. Safe to share between threads."""

    BOOK = 4096

    def __init__(self) -> None:
        self._games: dict[int, tuple[int, dict[tuple[str, DiceSource, int], list[int]]]] = {}
        self._lock = threading.Lock()

    def tallies(self, store: Store) -> list[Tally]:
        total = DiceCounter()
        for gid, touched in store.touched().items():
            with self._lock:
                kept = self._games.get(gid)
            if kept is None or kept[0] != touched:
                one = DiceCounter()
                count_game(one, store, gid)
                kept = (touched, one.counts)
                with self._lock:
                    if gid in self._games or len(self._games) < self.BOOK:
                        self._games[gid] = kept
            for key, counts in kept[1].items():
                mine = total.counts.setdefault(key, [0] * len(counts))
                for face, count in enumerate(counts):
                    mine[face] += count
        return total.tallies()


# --- reports ---


def die_name(sides: int) -> str:
    return f"d{sides}"


def utc(stamp: float) -> str:
    """``2026-11-22T14:05:00Z``"""
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def as_json(records: Sequence[PlayerRecord], tallies: Sequence[Tally]) -> dict[str, Any]:
    """What ``companion stats --json`` prints."""
    return {
        "players": [{"name": r.name, "game": r.game, "title": title(r.game), "plays": r.plays, "wins": r.wins,
                     "last_played": utc(r.last), "clock_synced": r.last_synced} for r in records],
        "dice": [{"game": t.game, "title": title(t.game), "source": t.source, "source_words": SOURCE_WORDS[t.source],
                  "die": die_name(t.sides),
                  "rolls": t.rolls, "faces": list(t.counts), "expected": t.rolls / t.sides,
                  "chi_square": t.verdict().statistic, "p": t.verdict().p, "verdict": t.verdict().words}
                 for t in tallies],
    }


def as_text(records: Sequence[PlayerRecord], tallies: Sequence[Tally], when: Any) -> str:
    """What ``companion stats`` prints: a player's games under their name, then the dice.
    ``when(stamp, synced)`` writes a time as the screens do."""
    out = ["Players"]
    if not records:
        out.append("  no finished games yet")
    for name, games in groupby(records, key=lambda r: r.name):
        out.append(f"  {name}")
        out += [f"    {title(r.game)}: {r.plays} played, {r.wins} won, last {when(r.last, r.last_synced)}"
                for r in games]
    out += ["", "Dice"]
    if not tallies:
        out.append("  no dice rolled yet")
    for game, dice_of_game in groupby(tallies, key=lambda t: t.game):
        out.append(f"  {title(game)}")
        for t in dice_of_game:
            out.append(f"    {die_name(t.sides)}, {SOURCE_WORDS[t.source]}: {t.rolls} rolls, {t.verdict().words}")
            out.append(f"      faces {' '.join(str(c) for c in t.counts)} (fair: {t.rolls / t.sides:.1f} each)")
    return "\n".join(out) + "\n"
