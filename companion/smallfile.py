"""Small files read whole or written whole: the configuration, and the state directory's
convenience files (``settings.json``, ``phone.json``).

Whatever sits at such a path instead of a small regular file (a FIFO that nobody writes,
``/dev/zero``, a directory, a symbolic link loop, a gigabyte) is refused in one line
before a byte of it is read, at once, never waited on:

- the path is looked at first (``stat``), so that a device is never opened (opening a
  serial port can reset the board behind it);
- then it is opened with ``O_NONBLOCK`` (a FIFO swapped in meanwhile opens at once, and a
  read that would wait fails instead), and the opened descriptor is checked again;
- at most ``limit + 1`` bytes are read, whatever the size said (files in ``/proc`` say 0).

:func:`check` is the first step alone, for a file that another library opens (a store).
:func:`write_small` replaces a file atomically (a crash leaves the old or the new one,
never half), and :func:`set_aside` renames a damaged one out of the way, never deleting it.

>>> file_kind(0o040755), file_kind(0o010644), file_kind(0o020666)
('a directory', 'a FIFO', 'a character device')
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
import time

from companion.exc import FileRefused

#: What a file's type bits say it is, in words that follow "is".
KINDS = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
         (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISLNK, "a symbolic link"))


def file_kind(mode: int) -> str:
    """What a file of this mode is: ``a directory``, ``a FIFO``, ..."""
    return next((words for test, words in KINDS if test(mode)), "of no known type")


def unfit(status: os.stat_result, limit: int | None) -> str:
    """Why a file with this status is not taken ("" when it is a regular file within limit)."""
    if not stat.S_ISREG(status.st_mode):
        return f"is {file_kind(status.st_mode)}, not a regular file"
    if limit is not None and status.st_size > limit:
        return f"is {status.st_size:,} bytes, over the {limit:,} it may have"
    return ""


def check(path: str | os.PathLike[str], limit: int | None = None) -> os.stat_result:
    """The status of a regular file of at most ``limit`` bytes (symbolic links followed).

    Raises FileNotFoundError when nothing is there (or a link leads nowhere), and
    :class:`FileRefused` for anything else that is not such a file.
    """
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as err:  # a symbolic link loop, no permission, a file where a folder should be
        raise FileRefused(f"cannot be read: {err.strerror}") from None
    problem = unfit(status, limit)
    if problem:
        raise FileRefused(problem)
    return status


def read_small(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes, without ever waiting.

    Raises FileNotFoundError when nothing is there, :class:`FileRefused` otherwise.
    """
    check(path, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise FileRefused(f"cannot be read: {err.strerror}") from None
    try:
        problem = unfit(os.fstat(fd), limit)  # what was opened, not what was looked at
        if problem:
            raise FileRefused(problem)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        if isinstance(err, FileRefused):
            raise
        raise FileRefused(f"cannot be read: {err.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused(f"is over the {limit:,} bytes it may have")
    return b"".join(chunks)


def sync_directory(directory: str | pathlib.Path) -> None:
    """Make renames in ``directory`` durable, so a power cut cannot undo them."""
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def write_small(path: pathlib.Path, data: bytes, mode: int = 0o666) -> None:
    """Replace ``path`` with ``data`` atomically and synced; OSError when that fails, and
    then the file is as it was. ``mode`` before the umask (0o600: this user only)."""
    tmp = path.with_suffix(".tmp")
    # Not following a link and not waiting on a FIFO left at the temporary name.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            problem = unfit(os.fstat(out.fileno()), None)
            if problem:
                raise FileRefused(f"{tmp} {problem}")
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(tmp).st_mode):
                tmp.unlink()
        raise


def set_aside(path: pathlib.Path) -> pathlib.Path:
    """Rename a damaged file (or whatever is at its name) to ``NAME.damaged-TIME``, never
    over an earlier one; its new path. OSError when it cannot be renamed."""
    aside = aside_name(path)
    os.rename(path, aside)
    return aside


def aside_name(path: pathlib.Path, suffixes: tuple[str, ...] = ("",)) -> pathlib.Path:
    """Where a damaged ``path`` goes: ``NAME.damaged-TIME``, numbered on (``-2``, ...) when
    that name, or it with any of ``suffixes`` (a store's log files), is taken."""
    stamp = int(time.time())
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    number = 1
    while any(os.path.lexists(f"{aside}{suffix}") for suffix in suffixes):
        number += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    return aside
