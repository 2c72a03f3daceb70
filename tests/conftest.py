"""Shared fixtures: every test runs on gpiozero's mock pins, never real hardware.

Temporary files live on a RAM file system when the machine has one: most tests open SQLite
stores, and waiting for fsync on a real disk was most of the suite's wall time. Modules
marked ``durable`` prove what survives on a disk (the store's pragmas, power cuts, damaged
files), so their temporary directories stay on the disk, where fsync is real.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator

import pytest

from companion.store import Store
from companion.ui.draw import checking
from tests.otheruser import companion_for_others

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

RAM_ROOT = pathlib.Path("/dev/shm")


def pytest_configure(config: pytest.Config) -> None:
    """Put the temporary directories on the RAM file system unless told otherwise."""
    config.addinivalue_line("markers", "durable: temporary files must be on a real disk")
    if config.option.basetemp is None and os.access(RAM_ROOT, os.W_OK):
        config.option.basetemp = tempfile.mkdtemp(prefix="companion-tests-", dir=RAM_ROOT)
        config.stash[_RAM_BASETEMP] = config.option.basetemp


def pytest_report_header(config: pytest.Config) -> str:
    """The fault matrix's seed and sample, so that a failing cell can be run again."""
    from tests.faultmatrix import describe

    return describe()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give the RAM back: the suite's temporary files are gone when it ends."""
    made = config.stash.get(_RAM_BASETEMP, None)
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)


_RAM_BASETEMP = pytest.StashKey[str]()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. Many tests mostly wait (an idle loop measured over
    seconds, a daemon killed and started again, fsync on the disk): a second worker on
    each core runs while the first waits."""
    return 2 * (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """pytest's ``tmp_path``, but on the disk for tests marked ``durable``."""
    if request.node.get_closest_marker("durable") is None:
        yield tmp_path_factory.mktemp(re.sub(r"\W", "_", request.node.name)[:30], numbered=True)
        return
    on_disk = pathlib.Path(tempfile.mkdtemp(prefix="companion-durable-"))
    try:
        yield on_disk
    finally:
        shutil.rmtree(on_disk, ignore_errors=True)


@pytest.fixture(autouse=True)
def tempfile_beside_tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``tempfile``'s directories go where ``tmp_path`` does: on the RAM file system, on the
    disk for tests marked ``durable``. Hypothesis tests make a directory per example with
    ``tempfile`` (a function's fixture is made once for all its examples), and on the disk
    their stores' fsyncs made them ten times slower (29 s against 2 s for one of them)."""
    if request.node.get_closest_marker("durable") is None:
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.getbasetemp()))


@pytest.fixture(autouse=True)
def every_string_checked() -> Iterator[None]:
    """Every string any test draws is checked on the drawing layer (companion.ui.draw's
    checking mode): a string outside its box or off the glass, cut, or left out in part
    fails the test that drew it, whatever the test was about."""
    with checking() as found:
        yield
    if found:
        pytest.fail("text drawn wrong:\n" + "\n".join(sorted({str(fault) for fault in found})[:20]))


@pytest.fixture
def path(tmp_path: pathlib.Path) -> str:
    """Where a test's store file goes."""
    return str(tmp_path / "companion.db")


@pytest.fixture
def store(path: str) -> Iterator[Store]:
    """A store on disk, closed after the test."""
    opened = Store(path)
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def companion_as_other_user() -> Iterator[Callable[..., subprocess.CompletedProcess[str]]]:
    """`companion ARGS` as another user, wherever the clone lives (tests/otheruser.py):
    called with that user's groups, then the arguments."""
    with companion_for_others() as run:
        yield run
