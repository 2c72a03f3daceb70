"""A disk that loses power: SQLite over a file layer that forgets every write not yet synced.

A SIGKILL keeps what the operating system had not yet written to the card, so it cannot
show a power cut. This apsw VFS can: it passes reads and writes to real files, remembers
each file's content as of its last ``xSync`` (an fsync), and at the cut puts every file
back to exactly that. SQLite's own crash tests use a VFS the same way.

The companion's :class:`~companion.store.Store` runs over it unchanged (same schema, same
``DURABILITY`` pragmas) through :class:`Connection`, the few ``sqlite3`` calls the store
makes, answered by apsw. After the cut the files are ordinary SQLite files again, and the
production store (Python's ``sqlite3``) reopens them.
"""

from __future__ import annotations

import itertools
import os
import pathlib
from collections.abc import Iterator, Sequence
from typing import Any

import apsw

ABSENT = None  # a file that did not exist as of its last sync


class PowerCut(Exception):
    """Raised inside SQLite's file operation where the power went."""


class Disk(apsw.VFS):
    """Real files, plus what each would hold if the power went now."""

    names = itertools.count()

    def __init__(self) -> None:
        self.name = f"powercut-{next(self.names)}"
        super().__init__(self.name, "")
        self.synced: dict[str, bytes | None] = {}
        self.operations = 0  # writes, syncs and truncations so far
        self.cut_at: int | None = None  # the operation during which the power goes
        self.down = False

    def tick(self) -> bool:
        """Count one operation; False once the power is gone (it changes nothing durable)."""
        if self.down:
            return False
        self.operations += 1
        if self.operations == self.cut_at:
            self.down = True
            raise PowerCut(f"power cut during file operation {self.operations}")
        return True

    def remember(self, path: str) -> None:
        """What a file held when first seen counts as durable (it was there before)."""
        if path not in self.synced:
            self.synced[path] = pathlib.Path(path).read_bytes() if os.path.exists(path) else ABSENT

    def xOpen(self, name: Any, flags: list[int]) -> CutFile:
        return CutFile(self, name, flags)

    def xDelete(self, filename: str, syncdir: bool) -> None:
        if self.tick():
            self.remember(filename)
            super().xDelete(filename, syncdir)
            self.synced[filename] = ABSENT  # unlink and directory sync: SQLite asks for both

    def cut(self) -> None:
        """The power goes (if it has not already): nothing more reaches the files."""
        self.down = True

    def restore(self) -> None:
        """After the connections are closed: every file as of its last sync, the shared
        memory index gone (it lived in RAM; SQLite rebuilds it from the log)."""
        assert self.down, "restore only after the cut"
        for path, content in self.synced.items():
            if content is ABSENT:
                if os.path.exists(path):
                    os.remove(path)
            else:
                pathlib.Path(path).write_bytes(content)
        for path in list(self.synced):
            if os.path.exists(f"{path}-shm"):
                os.remove(f"{path}-shm")


class CutFile(apsw.VFSFile):
    """One open file: operations counted, syncs remembered."""

    def __init__(self, disk: Disk, name: Any, flags: list[int]) -> None:
        self.disk = disk
        # SQLite's temporary files have no name: they do not outlive the connection anyway.
        self.path = name.filename() if hasattr(name, "filename") else name
        if self.path is not None:
            disk.remember(self.path)
        super().__init__("", name, flags)

    def xWrite(self, data: bytes, offset: int) -> None:
        if self.disk.tick():
            super().xWrite(data, offset)

    def xTruncate(self, newsize: int) -> None:
        if self.disk.tick():
            super().xTruncate(newsize)

    def xSync(self, flags: int) -> None:
        # No real fsync: the snapshot is what survives here, and the run stays fast.
        if self.disk.tick() and self.path is not None:
            self.disk.synced[self.path] = self.xRead(self.xFileSize(), 0)


class Row(tuple[Any, ...]):
    """A result row that also answers by column name, like ``sqlite3.Row``."""

    names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row.names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self.names[key] if isinstance(key, str) else key)

    def keys(self) -> list[str]:
        return list(self.names)


class Cursor:
    """A statement's result, read to the end at once: apsw steps statements lazily, and a
    statement left half-read would hold a read transaction (and hide a power cut in the
    finaliser, where no exception can be raised)."""

    def __init__(self, cursor: apsw.Cursor, connection: apsw.Connection) -> None:
        self.rows: list[Row] = []
        names: dict[str, int] = {}
        for values in cursor:
            if not names:  # the description is there only while the statement runs
                names = {d[0]: i for i, d in enumerate(cursor.get_description())}
            self.rows.append(Row(values, names))
        self.lastrowid = connection.last_insert_rowid()

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def fetchone(self) -> Row | None:
        return self.rows[0] if self.rows else None


class Connection:
    """The ``sqlite3.Connection`` calls the store makes, answered by apsw over a VFS."""

    def __init__(self, path: str, vfs: str) -> None:
        self.db = apsw.Connection(path, vfs=vfs)
        self.row_factory: Any = None  # rows always answer by name too

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Cursor:
        return Cursor(self.db.execute(sql, parameters), self.db)

    def executescript(self, sql: str) -> None:
        for _ in self.db.execute(sql):  # apsw steps a script's statements as it is read
            pass

    @property
    def in_transaction(self) -> bool:
        return not self.db.get_autocommit()

    def close(self) -> None:
        self.db.close(True)  # statements cut short by the power cut may still be open
