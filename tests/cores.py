"""Latency as the box would see it: wall time less the time this process's threads were
ready to run but waited for a core that other work held.

The suite shares its cores with its own other workers and with whatever else the machine
runs, and under that load every thread waits its turn, which the box, with its cores to
itself, would not. Linux counts that wait for each thread (``/proc/self/task/TID/schedstat``,
its second field, in nanoseconds), so a latency test can take it out. A fault still counts
in full: a thread blocked on a device, a socket, a lock or the interpreter's lock is asleep,
and time asleep is not time waiting for a core.

The threads' waits are added up, so while two of them wait at once the wait is taken out
twice: the measure is a little kind under load, never on an idle machine. The faults the
tests catch cost seconds; the load this takes out costs tens of milliseconds a round trip.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def waited_for_a_core() -> float:
    """Seconds this process's threads (the live ones) have waited for a core, all told."""
    total = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat", "rb") as stats:
                total += int(stats.read().split()[1])
        except (OSError, IndexError, ValueError):  # the thread ended meanwhile
            continue
    return total / 1e9


def took(work: Callable[[], T]) -> tuple[T, float]:
    """``work()``, and its seconds less those its process's threads waited for a core."""
    waited, started = waited_for_a_core(), time.monotonic()
    result = work()
    wall = time.monotonic() - started
    return result, max(0.0, wall - (waited_for_a_core() - waited))
