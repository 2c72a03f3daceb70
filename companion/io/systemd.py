"""The systemd notify protocol (READY=1, WATCHDOG=1): one datagram to $NOTIFY_SOCKET.

A few lines of stdlib socket code, so the service needs no extra package.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send one notification; False when not started by systemd with Type=notify."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall(message.encode())
    return True


def watchdog_period() -> float | None:
    """How often to send WATCHDOG=1 (half the unit's WatchdogSec), or None."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2_000_000
