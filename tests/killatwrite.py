"""The companion with a store that SIGKILLs its own process in a chosen write (the power-cut
harness's launcher; fault injection stays out of the production code).

    python -m tests.killatwrite 3:before run --emulator none --state DIR

``N:before`` or ``N:after`` kills the process in the N-th write transaction (``BEGIN
IMMEDIATE``, a first open's schema set-up included) of a store connection, just before or
just after its COMMIT; the rest of the arguments go to ``companion`` as they are. The kill
goes through the store's ``connect`` seam: every store the process opens (the daemon opens
one) gets a connection that counts its own writes.
"""

from __future__ import annotations

import functools
import os
import signal
import sqlite3
import sys
from typing import Any

from companion import cli, store


class KillAtWrite(sqlite3.Connection):
    """A connection that kills the process at one moment of one of its write transactions."""

    at = ""  # "N:before" or "N:after", set by main()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writes = 0

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.startswith("BEGIN IMMEDIATE"):
            self.writes += 1
        if sql == "COMMIT":
            self._maybe_die("before")
            cursor = super().execute(sql, *args)
            self._maybe_die("after")
            return cursor
        return super().execute(sql, *args)

    def _maybe_die(self, moment: str) -> None:
        if f"{self.writes}:{moment}" == self.at:
            os.kill(os.getpid(), signal.SIGKILL)


def connect(path: str) -> sqlite3.Connection:
    """What the store's own connect does (autocommit, its busy timeout), counting writes."""
    return sqlite3.connect(path, isolation_level=None, timeout=store.BUSY_TIMEOUT_MS / 1000,
                           factory=KillAtWrite)


def main(argv: list[str]) -> int:
    KillAtWrite.at = argv[0]
    # A store opened with a connect of its own (salvage's read-only look) keeps it.
    store.Store.__init__ = functools.partialmethod(store.Store.__init__, connect=connect)  # type: ignore[method-assign]
    return cli.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
