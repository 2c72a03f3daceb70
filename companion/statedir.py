"""Where the games live: finding the state directory, and checking it can be used.

The exit status tells systemd what to do (hardware/PI-INSTALL.md has the table): a path
that can never work (under a file, a directory where the store file should be, no
permission, a place that cannot hold directories such as /proc) is the configuration's
fault, exit 2, and the unit is not restarted; a file system that is read-only, full or
failing may come back (a remount, a freed card, a USB stick plugged back), so that exits 1
and systemd retries.
"""

from __future__ import annotations

import errno
import os
import pathlib
import sqlite3
from collections.abc import Callable

from companion.exc import ConfigError, StateUnavailable

#: The service's state directory (systemd's StateDirectory=companion).
SERVICE_STATE = pathlib.Path("/var/lib/companion")
#: Errors a retry can outlast: the file system may be remounted, freed or plugged back.
PASSING = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EAGAIN,
                     errno.ENOMEM, errno.EBUSY, errno.ESTALE, errno.ENODEV, errno.ENXIO})


def user_state() -> pathlib.Path:
    """The XDG state directory of whoever runs the command."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return pathlib.Path(base) / "companion"


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
        return pathlib.Path(given)
    if os.environ.get("STATE_DIRECTORY"):
        return pathlib.Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    if reading and service_installed:
        return SERVICE_STATE
    return user_state()


def failure(path: pathlib.Path | str, err: OSError, doing: str) -> Exception:
    """One line naming the path and the reason, as the exception that sets the exit status."""
    words = f"{doing}: {err.strerror or err}"
    if err.errno in PASSING:
        return StateUnavailable(f"{path}: {words} (will retry)")
    return ConfigError(str(path), "(state)", words)


def prepare(directory: pathlib.Path, store: str) -> None:
    """Make the state directory and check that the store can be written there.

    Raises :class:`~companion.exc.ConfigError` (exit 2) or :class:`StateUnavailable`
    (exit 1), each one line naming the path.
    """
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
    if os.path.isdir(store):
        raise ConfigError(store, "(store)", "is a directory, not a file")
    if os.path.exists(store) and not os.access(store, os.R_OK | os.W_OK):
        raise ConfigError(store, "(store)", "cannot be read and written by this user")
    # Creating a file is what SQLite will do next (its -wal and -journal). Not tempfile:
    # it would import shutil and more at every start, for one file in our own directory.
    probe = folder / f".companion-probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        probe.unlink()
    except OSError as err:
        raise failure(folder, err, "cannot be written") from None


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
