"""``companion doctor``: everything between a fresh Pi and a working box, one line a check.

Each line says ``ok``, ``warn`` or ``fail``, what was found, and for anything not ok the exact
fix, a command or a configuration line. The doctor never changes the system: it reads files,
asks the kernel (GPIO line info, an I2C read at an address) and asks ``systemctl``.

Its parts: :mod:`~companion.doctor.checks` (the checks, area by area), its findings and the
fixes they print (:mod:`~companion.doctor.findings`), the machine it examines and the probes
that read it (:mod:`~companion.doctor.machine`), the GPIO character device's structures
(:mod:`~companion.doctor.gpio`) and the Pi's ``config.txt`` (:mod:`~companion.doctor.boot`).
Every probe goes through a :class:`Machine`, so the tests run each check against a fake root
(a temporary directory with ``dev/``, ``proc/``, ``etc/`` and ``boot/``), a fake SMBus, a
fake GPIO line-info source and a fake ``systemctl``.
"""

from __future__ import annotations

from companion.doctor.checks import Doctor, diagnose
from companion.doctor.findings import FAIL, FIXES, OK, WARN, Finding, printed
from companion.doctor.machine import Machine, Node

__all__ = ["FAIL", "FIXES", "OK", "WARN", "Doctor", "Finding", "Machine", "Node", "diagnose", "printed"]
