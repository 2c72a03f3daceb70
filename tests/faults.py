"""Fault injection for the storage tests: a full disk without root or a tiny file system.

``RLIMIT_FSIZE`` caps how large this process may make any file. A write that crosses the
cap is cut short and the next one fails, exactly as on a full disk, and SQLite reports it
the same way (``SQLITE_FULL``, or an I/O error): the production code runs unchanged.
"""

from __future__ import annotations

import errno
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def disk_full(*paths: str) -> Iterator[None]:
    """No file may grow past the largest of ``paths`` as they are now."""
    cap = max(os.path.getsize(p) for p in paths if os.path.exists(p))
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    # Past the cap the kernel sends SIGXFSZ, whose default is to kill the process.
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def store_files(path: str) -> tuple[str, str]:
    """A store and its write-ahead log."""
    return path, f"{path}-wal"


# --- a real full disk: a tiny tmpfs in a user namespace (no root needed where allowed) ---


def tiny_disk_command(directory: str, size_kib: int = 512) -> list[str] | None:
    """A command prefix that runs the rest on a ``size_kib`` tmpfs mounted at ``directory``,
    in a mount namespace of its own; None where this machine does not allow it."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    probe = subprocess.run([unshare, "-rm", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        return None
    return [unshare, "-rm", "sh", "-c",
            f'mount -t tmpfs -o size={size_kib}k tmpfs "$0" && exec "$@"', directory]


def fill_up(directory: pathlib.Path) -> pathlib.Path:
    """Take every free byte of the file system with one file (ENOSPC from now on)."""
    filler = directory / "filler"
    with open(filler, "wb", buffering=0) as handle:  # unbuffered: nothing left to flush
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as err:
            assert err.errno == errno.ENOSPC, err
    return filler


def full_disk_scenario(directory: pathlib.Path) -> None:
    """Run inside the tiny file system: a new game and a roll refused, then accepted once
    there is room again; each refusal said on screen, nothing half-written."""
    from tests.harness import Harness

    box = Harness(directory)
    box.presses("select", "select", "select", "select", "select")  # Microbot: the last choice
    filler = fill_up(directory)
    box.press("select")  # start the game: refused
    assert box.shows("Not saved: disk full", 11), "no message for the refused new game"
    assert box.app.session is None and box.store.games() == []
    filler.unlink()
    box.press("select")
    assert box.app.session is not None, "the game did not start once there was room"
    session = box.app.session
    filler = fill_up(directory)
    box.press("select")  # roll for me: refused
    assert box.shows("not saved", 11), "no message for the refused roll"
    assert session.head == 0 and box.store.entries(session.gid) == []
    filler.unlink()
    box.press("select")
    assert session.head == 1 and len(box.store.entries(session.gid)) == 1
    assert box.store.check() == ""
    box.close()
    print("full disk refused twice, nothing half-written")


if __name__ == "__main__":
    full_disk_scenario(pathlib.Path(sys.argv[1]))
