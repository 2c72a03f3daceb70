"""The command line's numbers and paths, checked before any work is done.

A mistake in one is one line naming the flag, the value and the problem, and exit status 2
(:class:`ConfigError`); a disk that is full or failing when an output is written is one
line and exit status 1 (:class:`StateUnavailable`: it may pass). Never a traceback, and
never after a minute of work (``companion bench`` checks its flags first).

>>> whole("--limit", "50", 1, 10_000, "the count"), seconds("--idle", "2.5")
(50, 2.5)
>>> whole("--limit", "-5", 1, 10_000, "the count")
Traceback (most recent call last):
...
companion.exc.ConfigError: --limit: '-5': the count must be a number, not '-5'
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pathlib
from collections.abc import Sequence

from companion.config import seconds_problem
from companion.exc import ConfigError, IllegalLine, StateUnavailable
from companion.games.base import number, shown
from companion.smallfile import unfit
from companion.statedir import PASSING, SQLITE_MAGIC


def whole(flag: str, text: str | int, least: int, most: int, what: str) -> int:
    """A whole number from ``least`` to ``most`` (digits only, as records write them)."""
    try:
        return number(str(text), least, most, what)
    except IllegalLine as err:
        raise ConfigError(flag, shown(str(text)), str(err)) from None


def seconds(flag: str, text: str | float) -> float:
    """A time in seconds above 0, up to a day (never nan or inf)."""
    try:
        value: object = float(text)
    except ValueError:
        value = str(text)
    problem = seconds_problem(value, positive=True)
    if problem:
        raise ConfigError(flag, shown(str(text)), problem)
    return float(text)


def folder(flag: str, name: str) -> str:
    """A directory this user may write in, made (with its parents) if it is not there."""
    path = pathlib.Path(name)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(flag, shown(name), "is not a directory") from None
    except OSError as err:
        raise ConfigError(flag, shown(name), f"cannot be made: {err.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(flag, shown(name), "cannot be written by this user")
    return name


def write_output(flag: str, name: str, data: bytes, spare: Sequence[str] = ()) -> None:
    """Write ``data`` to ``name`` (a file, made or replaced; or a pipe or device such as
    /dev/stdout), without waiting for a FIFO that nobody reads.

    Never over a store: an SQLite file (a backup copy), or any of the files in ``spare``
    (the store being read, its log). A regular file left half-written (a full disk) is
    removed: a record cut short would read as a shorter game.
    """
    if holds_games(name, spare):
        raise ConfigError(flag, shown(name), "holds games (a store or its copy): name another file")
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_NOCTTY, 0o666)
    except OSError as err:
        raise refusal(flag, name, err) from None
    regular = not unfit(os.fstat(fd), None)
    # Blocking again: a pipe's reader may be slower than us, and is waited for.
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    try:
        with os.fdopen(fd, "wb") as output:
            output.write(data)
    except OSError as err:
        if regular:
            with contextlib.suppress(OSError):
                os.unlink(name)
        raise refusal(flag, name, err) from None


def holds_games(name: str, spare: Sequence[str]) -> bool:
    """Whether ``name`` is one of the ``spare`` files or starts as an SQLite file does."""
    try:
        if not os.path.isfile(name):
            return False
        if any(os.path.exists(other) and os.path.samefile(name, other) for other in spare):
            return True
        with open(name, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:  # what cannot be looked at is refused when it is opened
        return False


def refusal(flag: str, name: str, err: OSError) -> Exception:
    """A path that cannot be written, in one line: exit 1 when it may pass (a full or
    read-only disk), else 2 (no such folder, a directory, no permission, a FIFO that
    nothing reads)."""
    if err.errno == errno.ENXIO:  # O_NONBLOCK's answer for a FIFO without a reader
        return ConfigError(flag, shown(name), "is a FIFO that nothing reads")
    words = f"cannot be written: {err.strerror or err}"
    if err.errno in PASSING:
        return StateUnavailable(f"{name}: {words}")
    return ConfigError(flag, shown(name), words)
