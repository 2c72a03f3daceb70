"""Fault injection: a full disk without root or a tiny file system, and the small files read
at start replaced by what should not be there.

``RLIMIT_FSIZE`` caps how large this process may make any file. A write that crosses the
cap is cut short and the next one fails, exactly as on a full disk, and SQLite reports it
the same way (``SQLITE_FULL``, or an I/O error): the production code runs unchanged.
"""

from __future__ import annotations

import errno
import json
import os
import pathlib
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any


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
    box.presses("select", "select", "select", "select")  # Microbot: Start game
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
    assert box.says("not saved"), "no message for the refused roll"
    assert session.head == 0 and box.store.entries(session.gid) == []
    filler.unlink()
    box.press("select")
    assert session.head == 1 and len(box.store.entries(session.gid)) == 1
    assert box.store.check() == ""
    box.close()
    print("full disk refused twice, nothing half-written")


if __name__ == "__main__":
    full_disk_scenario(pathlib.Path(sys.argv[1]))


# --- bit flips in stored values: every single bit of a row, one at a time ---


def bit_flips(data: bytes, stride: int = 1) -> Iterator[bytes]:
    """``data`` with one bit flipped, for every bit in turn (of every ``stride``-th byte)."""
    for index in range(len(data) * 8):
        if (index // 8) % stride:
            continue
        flipped = bytearray(data)
        flipped[index // 8] ^= 1 << (index % 8)
        yield bytes(flipped)


def integer_flips(value: int, bits: int = 64) -> Iterator[int]:
    """A signed ``bits``-bit integer (SQLite's INTEGER) with one bit flipped, for each bit."""
    top = 1 << (bits - 1)
    for index in range(bits):
        flipped = (value ^ (1 << index)) & ((1 << bits) - 1)
        yield flipped - (flipped & top) * 2


def row_flips(db: sqlite3.Connection, table: str, key: dict[str, object],
              columns: Sequence[str], stride: int = 1) -> Iterator[str]:
    """Flip every bit of one stored row's ``columns`` in place, one flip at a time; yield a
    name for each flip while it is in the file, and put the row back before the next (what
    the code under test did meanwhile to other rows is the caller's to undo). ``stride``:
    only the bits of every ``stride``-th byte of a text or a blob (a sample, for time).

    Text is flipped as the bytes SQLite keeps, and stored back as text even where it is no
    longer UTF-8 (as a flipped bit on the card leaves it); integers as 64-bit values. A
    flip that would clash with another row's key is skipped (a file cannot hold one).
    """
    names = [d[0] for d in db.execute(f"SELECT * FROM {table} LIMIT 0").description]
    where = " AND ".join(f"{name} = ?" for name in key)
    kinds = db.execute(f"SELECT {', '.join(f'typeof({n})' for n in names)} FROM {table}"
                       f" WHERE {where}", list(key.values())).fetchone()
    assert kinds is not None, f"no such row in {table}: {key}"
    raws = db.execute(f"SELECT {', '.join(f'CAST({n} AS BLOB)' for n in names)} FROM {table}"
                      f" WHERE {where}", list(key.values())).fetchone()
    original = db.execute(f"SELECT * FROM {table} WHERE {where}", list(key.values())).fetchone()

    def put(values: Sequence[object], casts: Sequence[str]) -> None:
        db.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join(casts)})",
                   list(values))

    def remove(values: Sequence[object]) -> None:
        db.execute(f"DELETE FROM {table} WHERE {where}",
                   [values[names.index(name)] for name in key])

    for column in columns:
        at = names.index(column)
        flips: Iterator[object] = (iter(integer_flips(int(original[at])))
                                   if kinds[at] == "integer"
                                   else iter(bit_flips(bytes(raws[at]), stride)))
        casts = ["CAST(? AS TEXT)" if i == at and kinds[at] == "text" else "?"
                 for i in range(len(names))]
        for number, value in enumerate(flips):
            row = [value if i == at else original[i] for i in range(len(names))]
            remove(original)
            try:
                put(row, casts)
            except sqlite3.IntegrityError:
                put(original, ["?"] * len(names))
                continue
            yield f"{column} bit {number}"
            remove(row)
            put(original, ["?"] * len(names))


# --- the wrong kind of thing where a file belongs ---

#: What can stand where the companion expects one of its files, each made by :func:`put`.
NOT_FILES = ("directory", "FIFO", "device", "symlink loop")
#: Every way the path of a small file read at start (the configuration, settings.json,
#: phone.json) can hold the wrong thing: the above, and damaged or endless contents (the
#: store's own kinds, a half-written page or log frame, are the salvage tests'). Flipped bits
#: are :func:`bit_flips`.
FILE_FAULTS = ("missing", "empty", "truncated", "not UTF-8", "binary", *NOT_FILES, "endless device",
               "dangling link", "huge")
#: The size a "huge" file claims: a sparse gigabyte, which costs no disk.
HUGE = 1 << 30


def put(kind: str, path: pathlib.Path, good: bytes = b"") -> None:
    """Put a ``kind`` (one of :data:`FILE_FAULTS`) at ``path``, replacing what is there;
    ``good``: the bytes the companion wrote, which some kinds damage. The device is a link
    to /dev/null, the endless one to /dev/zero (making a device node needs privileges)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    makers: dict[str, Callable[[], object]] = {
        "missing": lambda: None,
        "empty": lambda: path.write_bytes(b""),
        "truncated": lambda: path.write_bytes(good[:len(good) // 2]),
        "not UTF-8": lambda: path.write_bytes(good[:5] + b"\xff\xfe" + good[5:]),
        "binary": lambda: path.write_bytes(bytes(range(256))),
        "directory": path.mkdir,
        "FIFO": lambda: os.mkfifo(path),
        "device": lambda: path.symlink_to("/dev/null"),
        "endless device": lambda: path.symlink_to("/dev/zero"),
        "symlink loop": lambda: path.symlink_to(path.name),
        "dangling link": lambda: path.symlink_to(path.name + ".gone"),
        "huge": lambda: sparse(path, good),
    }
    if kind not in makers:
        raise ValueError(f"no such kind of fault: {kind}")
    makers[kind]()


def sparse(path: pathlib.Path, good: bytes) -> None:
    """The good bytes, then holes up to :data:`HUGE` (reads as zeros)."""
    path.write_bytes(good)
    os.truncate(path, HUGE)


# --- well-formed but wrong: every JSON type at every key ---

#: Values of every JSON type, to put where a key's value or a whole table belongs: a schema
#: check must take each one that fits and refuse every other, naming the key.
JSON_SAMPLES: tuple[object, ...] = (None, True, False, 0, 5, -1, 1.5, 1e308, "", "x", "false",
                                    "true", "5", [], [1], {}, {"a": 1}, "9" * 1000)


def with_each_value(document: dict[str, Any]) -> Iterator[tuple[str, object]]:
    """``document`` (a parsed JSON object) with one value replaced at a time, at every key
    path and at the top: (the key path, the changed document), for every sample value."""
    def paths(value: object, prefix: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        yield prefix
        if isinstance(value, dict):
            for key, inner in value.items():
                yield from paths(inner, (*prefix, key))

    for path in paths(document, ()):
        for sample in JSON_SAMPLES:
            if not path:
                yield "(file)", sample
                continue
            changed = json.loads(json.dumps(document))
            *parents, last = path
            table = changed
            for key in parents:
                table = table[key]
            table[last] = sample
            yield ".".join(path), changed
    yield "(unknown key)", {**document, "colour": "red"}
