"""Every error the companion raises on purpose, in one module (as gpiozero keeps its ``exc.py``).

Each class derives from :class:`CompanionError` and also from the built-in that fits, so a
caller that knows nothing of the companion still catches it the usual way: bad input is a
:class:`ValueError`, a missing thing a :class:`LookupError`, the disk or the system an
:class:`OSError`. The tree::

    CompanionError
    ├── Refusal                    a player's request turned down; the message says why
    │   ├── IllegalLine            the rules refuse a record line           (ValueError)
    │   │   ├── NotYourTurn
    │   │   ├── BadArguments
    │   │   ├── UnknownVerb
    │   │   └── GameOver
    │   ├── NothingToUndo          undo at the start of a game              (LookupError)
    │   ├── NothingToRedo          redo with nothing undone                 (LookupError)
    │   ├── RollRefused            the device found no faces to roll        (RuntimeError)
    │   └── ConsoleRefused         a console line that is no command        (ValueError)
    ├── RecordError                a record's illegal line, with its number (ValueError)
    ├── UnreadableRecord           not a record at all                      (ValueError)
    ├── ConfigError                a bad setting: FILE: KEY: problem        (ValueError)
    ├── DisplayError               display flags that luma refuses          (ValueError)
    ├── NoSuchGame                 no stored game has that number           (KeyError)
    ├── NotAPlay                   a stored game BG Stats cannot take       (ValueError)
    ├── Unreadable                 a stored value that cannot be decoded    (sqlite3.DatabaseError)
    ├── Incompatible               a state checkpoint this code cannot read (ValueError)
    ├── StateUnavailable           the state directory cannot be used now   (OSError)
    ├── FileRefused                not a regular file within its size limit (OSError)
    ├── PageClosed                 the phone view closed an open page       (ConnectionError)
    ├── DriverError                the screens offer no way to enter a line (LookupError)
    └── OutOfTime                  the advisor's time ran out mid-search    (TimeoutError)

Only a rule broken is an :class:`IllegalLine`; the other refusals are not, so code that
asks "would the rules take this?" is never answered by an empty undo stack. Each game's own
kinds of illegal line derive from these (in the game's module, which stays whole).

>>> issubclass(NothingToUndo, IllegalLine), issubclass(NothingToUndo, Refusal)
(False, True)
>>> isinstance(RecordError(3, "Bob is not a player"), ValueError)
True

This module imports nothing of the companion: the rules engines reach it through
``companion.games.base``, and every other layer may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

#: Characters of an illegal line's reason kept in a :class:`RecordError`.
MAX_REASON = 300


class CompanionError(Exception):
    """Base class of every error the companion raises on purpose."""


class Refusal(CompanionError):
    """A request turned down: nothing changed, and the message is a reason a player reads."""


class IllegalLine(Refusal, ValueError):
    """A record line that the rules do not allow in the state reached so far.

    The message is a short sentence a player understands.
    """


class NotYourTurn(IllegalLine):
    """The line's actor is not the one the game is waiting for."""


class BadArguments(IllegalLine):
    """The line's words are not of the verb's form (count, numbers, names)."""


class UnknownVerb(IllegalLine):
    """The verb is not one this game knows, or not one that fits now."""


class GameOver(IllegalLine):
    """An action line after the game has ended."""


class NothingToUndo(Refusal, LookupError):
    """Undo at the start of a game: no entry to step back over."""


class NothingToRedo(Refusal, LookupError):
    """Redo with an empty redo stack, or no undone roll to use again."""


class RollRefused(Refusal, RuntimeError):
    """The device could not find faces the rules accept (no rule was broken: ask again)."""


class ConsoleRefused(Refusal, ValueError):
    """A console line the console will not act on (not text, not a command, not now)."""


class RecordError(CompanionError, ValueError):
    """An illegal line in a record: ``LINE`` is the physical line number (1-based)."""

    def __init__(self, line: int, reason: str) -> None:
        if len(reason) > MAX_REASON:  # a reason quoting a hostile word stays a short line
            reason = f"{reason[:MAX_REASON]}... ({len(reason):,} characters)"
        super().__init__(f"{line}: {reason}")
        self.line = line
        self.reason = reason


class UnreadableRecord(CompanionError, ValueError):
    """Not a record at all: not UTF-8, no ``game`` line, or an unknown game."""


class ConfigError(CompanionError, ValueError):
    """A bad configuration value: ``FILE: KEY: problem``."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        super().__init__(f"{file}: {key}: {problem}")


class DisplayError(CompanionError, ValueError):
    """Display flags that luma refuses (an unknown display, a bad flag, an unclosed quote)."""


class NoSuchGame(CompanionError, KeyError):
    """No game in the store has this number (the argument)."""


class NotAPlay(CompanionError, ValueError):
    """A stored game BG Stats cannot take as a play: not finished, or no longer readable."""


if TYPE_CHECKING:  # what the type checker sees of the class that __getattr__ below makes
    import sqlite3

    class Unreadable(CompanionError, sqlite3.DatabaseError):
        """A stored value that cannot be decoded."""


def __getattr__(name: str) -> type[CompanionError]:
    """Make :class:`Unreadable` the first time it is asked for (PEP 562): it derives from
    sqlite3's error, and ``companion replay``, which opens no store, need not load sqlite3
    for it (a start-up trick, docs/startup.md)."""
    if name != "Unreadable":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import sqlite3

    class Unreadable(CompanionError, sqlite3.DatabaseError):
        """A stored value that cannot be decoded: a flipped bit that SQLite's own checks do not
        see (they check the file's structure, not what a column means to us).

        A :class:`sqlite3.DatabaseError`, as SQLite's own finding of a damaged file is: one
        ``except`` sets both aside.
        """

    globals()[name] = Unreadable  # made once: every importer gets the same class
    return Unreadable


class Incompatible(CompanionError, ValueError):
    """A stored state checkpoint that this code cannot read back: the session drops it and
    replays the record instead (never an error a player sees)."""


class StateUnavailable(CompanionError, OSError):
    """The state directory cannot be used now, but may be later: exit 1, systemd retries."""


class FileRefused(CompanionError, OSError):
    """A file read at start that is not what it should be: a directory, a FIFO, a device, a
    symbolic link loop, one that cannot be opened, or one over its size limit. The message
    says which, in words that follow the file's name (``is a FIFO, not a regular file``)."""


class PageClosed(CompanionError, ConnectionError):
    """The token changed, or the client left: an open phone page is closed."""


class DriverError(CompanionError, LookupError):
    """The screens offer no way to enter what was asked."""


class OutOfTime(CompanionError, TimeoutError):
    """The advisor's time budget ran out in the middle of an iteration."""
