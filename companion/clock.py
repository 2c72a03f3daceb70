"""The wall clock, and whether it can be believed.

A Raspberry Pi has no real-time clock. At a table with no network it boots with the time
``fake-hwclock`` last saved (hourly and at a clean shutdown), so after a power cut it runs
up to an hour behind, and it jumps when a network turns up. The companion therefore never
orders anything by wall time (the store keeps its own sequence, see :mod:`companion.store`)
and never measures with it (intervals use ``time.monotonic``, injected where they are
measured). Wall time is only shown to people, each time with a note of whether the clock had
been synchronised when it was read, so a date that may be wrong says so.

systemd-timesyncd creates ``/run/systemd/timesync/synchronized`` when it first sets the
clock from the network; ``/run`` is emptied at every boot, so the file means "synchronised
since this boot" (``timedatectl show -p NTPSynchronized`` reports the same thing).

>>> import tempfile
>>> run = pathlib.Path(tempfile.mkdtemp())
>>> clock = Clock(wall=lambda: 1_700_000_000.0, run_dir=run)
>>> clock.stamp()
Stamp(when=1700000000.0, synced=False)
>>> (run / SYNC_FLAG).parent.mkdir(parents=True)
>>> (run / SYNC_FLAG).touch()
>>> clock.stamp().synced
True
"""

from __future__ import annotations

import datetime
import os
import pathlib
import time
from collections.abc import Callable
from dataclasses import dataclass

#: Where timesyncd leaves its mark, relative to the run directory.
SYNC_FLAG = "systemd/timesync/synchronized"
#: What a time read from an unsynchronised clock carries on the 128x64 screen.
UNSURE_MARK = "?"
#: ... and in the command line's listing, in plain words.
UNSURE_WORDS = "(clock not synced)"


def shown_time(stamp: float, synced: bool, unsure: str = UNSURE_MARK) -> str:
    """A short local date for lists: ``22 Nov 14:05``, and ``unsure`` after it when the
    clock had not been synchronised as it was read (``22 Nov 14:05?``: it may be wrong)."""
    shown = datetime.datetime.fromtimestamp(stamp).strftime("%d %b %H:%M")
    return shown if synced else shown + unsure


@dataclass(frozen=True)
class Stamp:
    """A wall-clock time as read, and whether the clock was synchronised then."""

    when: float
    synced: bool


@dataclass(frozen=True)
class Clock:
    """The system's wall clock and its synchronisation mark; both injectable (tests pass a
    function for the time and a temporary directory standing in for ``/run``)."""

    wall: Callable[[], float] = time.time
    run_dir: pathlib.Path = pathlib.Path("/run")

    def synchronised(self) -> bool:
        """Whether the clock has been set from the network since boot."""
        # One stat on a tmpfs per stored change (a few microseconds; os.path, as pathlib
        # costs three times more): cheap enough not to cache, and a cache would miss the
        # moment the network turns up.
        return os.path.exists(os.path.join(self.run_dir, SYNC_FLAG))

    def stamp(self) -> Stamp:
        """The time now, for people to read, with its trust."""
        # The mark first: should the network set the clock in between, a right time is
        # called unsure, never a wrong one sure.
        synced = self.synchronised()
        return Stamp(self.wall(), synced)


#: The real clock: what the store uses unless it is given another.
SYSTEM = Clock()
