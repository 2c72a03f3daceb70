"""Where the games live: the state directory and the store in it, decided here and only here.

Every command (``run``, ``games``, ``export``, ``doctor``, ``bench``) and the phone view
find the state directory and the store through :func:`locate`: ``--state`` (made absolute
against the working directory, so a relative one means the same to every command), else
systemd's ``$STATE_DIRECTORY``, else the service's own directory for the commands that
only read, else the user's. A relative ``[store] path`` is relative to the state
directory, never to the working directory (under the unit that is a tmpfs).

The exit status tells systemd what to do (hardware/PI-INSTALL.md has the table): a path
that can never work (under a file, a directory where the store file should be, no
permission, a place that cannot hold directories such as /proc) is the configuration's
fault, exit 2, and the unit is not restarted; a file system that is read-only, full or
failing may come back (a remount, a freed card, a USB stick plugged back), so that exits 1
and systemd retries.
"""

from __future__ import annotations

import errno
import fcntl
import os
import pathlib
import sqlite3
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from companion.exc import ConfigError, StateUnavailable
from companion.smallfile import file_kind

#: The service's state directory (systemd's StateDirectory=companion).
SERVICE_STATE = pathlib.Path("/var/lib/companion")
#: Where systemd/install.sh puts the unit: its presence is what "the service is installed"
#: means to every command.
SERVICE_UNIT = "/etc/systemd/system/companion.service"
#: The store's file name in the state directory (when ``[store] path`` does not name one).
STORE_FILE = "companion.sqlite"
#: The file a running daemon holds locked (fcntl.flock), with its PID in it.
LOCK_FILE = "companion.lock"
#: The files SQLite keeps beside a store in WAL mode: its log and the log's index.
COMPANIONS = ("-wal", "-shm")
#: Room the store needs to open: its log's header and first frames, and the log's index
#: (32 KiB, which SQLite must be able to write in full).
LOG_ROOM = 64 * 1024
#: What every SQLite database file begins with (the file format's first 16 bytes).
SQLITE_MAGIC = b"SQLite format 3\0"
#: Where an SQLite header keeps its file format write and read versions (1 or 2 each).
HEADER_VERSIONS = 18
#: Errors a retry can outlast: the file system may be remounted, freed or plugged back.
PASSING = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EAGAIN,
                     errno.ENOMEM, errno.EBUSY, errno.ESTALE, errno.ENODEV, errno.ENXIO})


def user_state() -> pathlib.Path:
    """The XDG state directory of whoever runs the command."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return pathlib.Path(base) / "companion"


@dataclass(frozen=True)
class Location:
    """A state directory and the store file in it (both absolute)."""

    directory: pathlib.Path
    store: str


def locate(given: str | None, configured: str, reading: bool,
           root: pathlib.Path = pathlib.Path("/")) -> Location:
    """The state directory and the store for ``--state`` ``given`` and ``[store] path``
    ``configured`` (see :func:`resolve`); ``root``: where to look for the installed unit
    (the doctor's tests use a fake root).

    >>> locate("/srv/st", "games/g.sqlite", reading=False).store
    '/srv/st/games/g.sqlite'
    """
    directory = resolve(given, service_installed(root), reading)
    return Location(directory, store_in(directory, configured))


def service_installed(root: pathlib.Path = pathlib.Path("/")) -> bool:
    """Whether the companion's systemd unit is installed (systemd/install.sh)."""
    return os.path.lexists(root / SERVICE_UNIT.lstrip("/"))


def store_in(directory: pathlib.Path, configured: str) -> str:
    """The store's path: ``[store] path`` as given when absolute, else relative to the
    state directory; :data:`STORE_FILE` there when none is configured.

    >>> store_in(pathlib.Path("/var/lib/companion"), ""), store_in(pathlib.Path("/s"), "/d/g")
    ('/var/lib/companion/companion.sqlite', '/d/g')
    """
    return os.path.normpath(directory / (configured or STORE_FILE))


def resolve(given: str | None, service_installed: bool, reading: bool) -> pathlib.Path:
    """--state, else systemd's $STATE_DIRECTORY, else, for the commands that only read
    (``games``, ``export``) on a machine where the service is installed, the service's
    own directory, else the user's XDG state directory.

    So ``companion games`` typed on the Pi lists the box's games, while ``companion run``
    by hand never writes into the service's store unless told to with --state.

    >>> resolve("/tmp/x", True, True)
    PosixPath('/tmp/x')
    >>> resolve(None, True, True) == SERVICE_STATE or "STATE_DIRECTORY" in os.environ
    True
    """
    if given:
        return pathlib.Path(os.path.abspath(given))
    if os.environ.get("STATE_DIRECTORY"):
        return pathlib.Path(os.path.abspath(os.environ["STATE_DIRECTORY"].split(":")[0]))
    if reading and service_installed:
        return SERVICE_STATE
    return pathlib.Path(os.path.abspath(user_state()))


def failure(path: pathlib.Path | str, err: OSError, doing: str) -> Exception:
    """One line naming the path and the reason, as the exception that sets the exit status."""
    words = f"{doing}: {err.strerror or err}"
    if err.errno in PASSING:
        return StateUnavailable(f"{path}: {words} (will retry)")
    return ConfigError(str(path), "(state)", words)


def full_disk(path: str) -> str:
    """"the disk is full" when the file system holding ``path`` has no room left for the
    store's log and its index (SQLite says only "disk I/O error" when it cannot make
    them); "" otherwise."""
    try:
        room = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return ""
    return "the disk is full" if room.f_bavail * room.f_frsize < LOG_ROOM else ""


class Unusable(NamedTuple):
    """Why a state directory cannot be used: the path at fault, the error, what failed."""

    path: pathlib.Path
    error: OSError
    doing: str

    def raised(self) -> Exception:
        """The exception that says so in one line and sets the exit status."""
        return failure(self.path, self.error, self.doing)


def examine(directory: pathlib.Path) -> Unusable | None:
    """What can be seen against ``directory`` as this user's state directory without
    changing anything (None: nothing): ``run`` asks it before it makes the directory, and
    ``doctor``, which changes nothing, asks only this.

    It follows the path down to the part that exists: that part must be a directory, on a
    file system that holds files (not /proc or /sys, where nothing can be made: they
    keep no data blocks), not mounted read-only, and writable by this user.
    """
    found = directory
    while True:
        try:
            status = os.stat(found)
            break
        except FileNotFoundError as err:
            if found.parent == found:
                return Unusable(found, err, "cannot be made")
            found = found.parent
        except OSError as err:  # under a file, a symbolic link loop, a folder this user may not enter
            made = found != directory or err.errno == errno.ENOTDIR
            return Unusable(directory, err, "cannot be made" if made else "cannot be used")
    doing = "cannot be used" if found == directory else "cannot be made"
    if not stat.S_ISDIR(status.st_mode):
        what = file_kind(status.st_mode)
        return Unusable(found, OSError(errno.ENOTDIR, f"is {what}, not a directory"),
                        "cannot be used" if found == directory else f"cannot hold {directory}")
    try:
        space = os.statvfs(found)
    except OSError as err:
        return Unusable(found, err, doing)
    if found != directory and space.f_blocks == 0:
        return Unusable(directory, OSError(errno.EPERM, f"{found} is on a file system with no room "
                                                          "for files (as /proc and /sys are)"), doing)
    if space.f_flag & os.ST_RDONLY:
        return Unusable(found, OSError(errno.EROFS, os.strerror(errno.EROFS)), doing)
    if not os.access(found, os.W_OK | os.X_OK | (os.R_OK if found == directory else 0)):
        return Unusable(found, OSError(errno.EACCES, os.strerror(errno.EACCES)), doing)
    return None


def prepare(directory: pathlib.Path, store: str) -> None:
    """Make the state directory and check that the store can be written there.

    Raises :class:`~companion.exc.ConfigError` (exit 2) or :class:`StateUnavailable`
    (exit 1), each one line naming the path.
    """
    unusable = examine(directory)
    if unusable is not None:
        raise unusable.raised()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(str(directory), "(state)", "is a file, not a directory") from None
    except OSError as err:
        raise failure(directory, err, "cannot be made") from None
    folder = pathlib.Path(store).parent
    if folder != directory:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise failure(folder, err, "cannot be made") from None
    check_files(store)
    for path in (store, *(f"{store}{suffix}" for suffix in COMPANIONS)):  # SQLite needs all three
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise ConfigError(path, "(store)", "cannot be read and written by this user")
    # Creating a file is what SQLite will do next (its -wal and -journal). Not tempfile:
    # it would import shutil and more at every start, for one file in our own directory.
    probe = folder / f".companion-probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        probe.unlink()
    except OSError as err:
        raise failure(folder, err, "cannot be written") from None


def not_a_file(path: str) -> str:
    """Why ``path`` cannot be a store's file ("" when it is a regular file or is not there).

    Only ``stat`` is asked (never ``open``), so a FIFO cannot hang the caller and a device
    is never read; a symbolic link is followed, and a loop of them is named.

    >>> not_a_file("/dev/null"), not_a_file("/"), not_a_file("/no/such/file")
    ('is a device, not a file', 'is a directory, not a file', '')
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # nothing there (or a link to nothing): SQLite creates it
        return ""
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "is a loop of symbolic links, not a file"
        return f"cannot be looked at: {err.strerror}"
    if stat.S_ISREG(mode):
        return ""
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"is {kind}, not a file"


def check_files(store: str) -> None:
    """ConfigError (exit 2) for the first of the store's files (the main file, its log,
    the log's index) that is something other than a file."""
    for path in (store, *(f"{store}{suffix}" for suffix in COMPANIONS)):
        problem = not_a_file(path)
        if problem:
            raise ConfigError(path, "(store)", problem)


def not_a_store(path: str) -> str:
    """Why a regular file at ``path`` is not an SQLite database ("" when it begins as one,
    or is not there): empty, or something else. SQLite itself would open an empty file as
    a new, empty store."""
    try:  # without blocking: a FIFO put there meanwhile is not waited on
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return ""
    except OSError as err:
        return f"the main file cannot be read: {err.strerror}"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "the main file is not a regular file"
        start = os.read(fd, HEADER_VERSIONS + 6)
    except OSError as err:
        return f"the main file cannot be read: {err.strerror}"
    finally:
        os.close(fd)
    if not start:
        return "the main file is empty (0 bytes)"
    if start[:len(SQLITE_MAGIC)] != SQLITE_MAGIC:
        return "the main file is not an SQLite database"
    versions = start[HEADER_VERSIONS:HEADER_VERSIONS + 2]
    # (a header SQLite wrote, by the payload fractions it always writes, but its versions)
    if start[HEADER_VERSIONS + 3:] == b"\x40\x20\x20" and not set(versions) <= {1, 2}:
        # SQLite opens such a file read-only (or not at all) without a word, and every
        # press after it would be refused: a flipped bit in the header, not a store to keep
        return f"the main file's header names file format versions {versions[0]}/{versions[1]}"
    return ""


def check_readable(directory: pathlib.Path) -> None:
    """A state directory that exists but may not be entered says so, instead of looking
    empty (ConfigError, naming the group that may read the service's games)."""
    if directory.is_dir() and not os.access(directory, os.R_OK | os.X_OK):
        hint = (" (join the group companion: sudo usermod -aG companion $USER, then log in "
                "again)" if directory == SERVICE_STATE else "")
        raise ConfigError(str(directory), "(state)", f"cannot be read by this user{hint}")


def reader(store: str) -> Callable[[str], sqlite3.Connection] | None:
    """How ``games`` and ``export`` open a store this user may read but not write (the
    service's, for a member of the ``companion`` group): None where it may write.

    While the service runs, its ``-shm`` file exists and SQLite reads alongside it
    read-only. When the service is stopped its clean close has left everything in the main
    file and removed the ``-shm``, which a reader without write access to the directory
    could not create: the file is then opened as immutable (nothing else writes it).
    """
    folder = os.path.dirname(os.path.abspath(store))
    if os.access(folder, os.W_OK) and (not os.path.exists(store) or os.access(store, os.W_OK)):
        return None
    mode = "mode=ro" if os.path.exists(f"{store}-shm") else "immutable=1"

    def connect(path: str) -> sqlite3.Connection:
        uri = f"{pathlib.Path(path).resolve().as_uri()}?{mode}"
        return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10)

    return connect


def hold(directory: pathlib.Path) -> int:
    """Take the state directory for this process, for as long as it lives: one daemon per
    state directory, since two would each check lines against their own state and
    interleave them in one record. Returns the open lock file (closing it, or the process
    ending however it ends, lets go).

    The lock is ``flock`` on :data:`LOCK_FILE`, advisory: the commands that only read
    (``games``, ``export``, ``doctor``) and the phone view never ask for it. The holder's
    PID is written in the file, for the one line that tells a second daemon who has it
    (ConfigError, exit 2); a lock file that cannot be used is one line too.
    """
    path = directory / LOCK_FILE
    problem = not_a_file(str(path))
    if problem:
        raise ConfigError(str(path), "(lock)", problem)
    try:  # without blocking: a FIFO put there since the look above is not waited on
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise failure(path, err, "cannot be opened to lock the state directory") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(str(path), "(lock)", "is not a regular file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(str(directory), "(state)", f"another companion is running on it "
                              f"({holder(fd)}): stop that one first (if it is the service: "
                              f"sudo systemctl stop companion)") from None
        except OSError as err:
            raise failure(path, err, "cannot be locked") from None
        mark = f"{os.getpid()}\n".encode()
        try:  # the PID only names the holder: a full disk that refuses it stops nothing
            os.pwrite(fd, mark, 0)
            os.ftruncate(fd, len(mark))
        except OSError:
            pass
    except BaseException:
        os.close(fd)
        raise
    return fd


def holder(fd: int) -> str:
    """Who holds the lock, as its file says: ``pid 1234`` (or that it does not say)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    return f"pid {text}" if text.isdigit() else "its pid is not known"
