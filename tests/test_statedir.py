"""Where the games are: ``companion games`` and ``companion export`` typed on the Pi read
the service's games, read-only, for a member of the group ``companion``; ``companion run``
never writes there unless told to."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from companion.doctor import FIXES
from companion.statedir import SERVICE_STATE, resolve, user_state
from companion.store import Store


@dataclass
class Where:
    name: str
    given: str | None
    systemd: str | None  # $STATE_DIRECTORY
    installed: bool  # /etc/companion/companion.toml exists
    reading: bool  # games / export (True) or run (False)
    expected: str  # "service", "user" or a path


WHERE_CASES = [
    Where("games on the Pi", None, None, True, True, "service"),
    Where("run by hand on the Pi", None, None, True, False, "user"),
    Where("games on a laptop", None, None, False, True, "user"),
    Where("the service itself", None, "/var/lib/companion", True, False, "/var/lib/companion"),
    Where("--state wins", "/srv/games", "/var/lib/companion", True, True, "/srv/games"),
]


@pytest.mark.parametrize("case", WHERE_CASES, ids=lambda c: c.name)
def test_the_state_directory_each_command_uses(case: Where, monkeypatch: pytest.MonkeyPatch) -> None:
    if case.systemd:
        monkeypatch.setenv("STATE_DIRECTORY", case.systemd)
    else:
        monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    expected = {"service": SERVICE_STATE, "user": user_state()}.get(case.expected,
                                                                       pathlib.Path(case.expected))
    assert resolve(case.given, case.installed, case.reading) == expected


# --- another user reading the service's games (needs root to become that user) ---

GROUP = 4242  # stands in for the group "companion"
# The other user's `companion`: the fixture companion_as_other_user (tests/conftest.py).


@pytest.fixture
def service_state() -> Iterator[pathlib.Path]:
    """A state directory as the unit leaves it: owned by the service, group-readable."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to act as another user")
    top = pathlib.Path(tempfile.mkdtemp(dir="/tmp"))
    top.chmod(0o755)
    state = top / "state"
    state.mkdir(mode=0o750)
    yield state
    shutil.rmtree(top)


def share(state: pathlib.Path) -> dict[str, float]:
    """Give the directory and its files to the group, as UMask=0027 would; their times."""
    os.chown(state, 0, GROUP)
    for path in state.iterdir():
        os.chown(path, 0, GROUP)
        path.chmod(0o640)
    return {path.name: path.stat().st_mtime for path in state.iterdir()}


@pytest.mark.parametrize("running", [True, False], ids=["service running", "service stopped"])
def test_a_group_member_reads_the_games_and_changes_nothing(
        service_state: pathlib.Path, companion_as_other_user: Callable[..., subprocess.CompletedProcess[str]],
        running: bool) -> None:
    store = Store(str(service_state / "companion.sqlite"))
    gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
    store.push(gid, ["table roll 3 2"], rolled=False, over=False, winners=[])
    if not running:
        store.close()  # a clean stop leaves one file, no -wal or -shm
    try:
        before = share(service_state)
        games = companion_as_other_user((GROUP,), "games", "--state", str(service_state))
        export = companion_as_other_user((GROUP,), "export", "--state", str(service_state))
        after = {path.name: path.stat().st_mtime for path in service_state.iterdir()}
    finally:
        if running:
            store.close()
    assert games.returncode == 0, games.stderr
    assert "Ann Bob" in games.stdout
    assert export.returncode == 0, export.stderr
    assert export.stdout.splitlines() == ["game microbot-racers", "players Ann Bob", "table roll 3 2"]
    assert after == before  # nothing written, nothing added


def test_someone_outside_the_group_is_told_so_in_one_line(
        service_state: pathlib.Path,
        companion_as_other_user: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    Store(str(service_state / "companion.sqlite")).close()
    share(service_state)
    run = companion_as_other_user((), "games", "--state", str(service_state))
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"{service_state}: (state): cannot be read by this user"]


@pytest.mark.parametrize(("owner", "mode"), [(0, 0o700), (65534, 0o500), (65534, 0o300)],
                         ids=["another user's", "not writable", "not listable"])
def test_a_state_directory_the_user_may_not_use_is_one_line_and_exit_2(
        service_state: pathlib.Path, companion_as_other_user: Callable[..., subprocess.CompletedProcess[str]],
        owner: int, mode: int) -> None:
    """Issue 24, fault 10: a state directory the user could not read was a PermissionError
    traceback and exit 1 (restarted in a loop); doctor, run by the same user, fails it."""
    (service_state / "settings.json").write_text('{"screen": {"dim_after": 30}}')
    os.chown(service_state, owner, owner)
    service_state.chmod(mode)
    run = companion_as_other_user((), "run", "--emulator", "none", "--keys", "", "--state", str(service_state))
    said = [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]
    assert run.returncode == 2, run.stderr
    assert said == [f"{service_state}: (state): cannot be used: Permission denied"], run.stderr
    doctor = companion_as_other_user((), "doctor", "--state", str(service_state))
    assert "Traceback" not in doctor.stderr
    state = [line for line in doctor.stdout.splitlines() if line.split()[1:2] in (["state"], ["store"])]
    assert state == [f"fail  state     {said[0]}; fix: {FIXES['state-dir']}"], doctor.stdout


def test_the_unit_leaves_the_games_readable_by_its_group_only() -> None:
    from tests.harness import service_keys

    keys = service_keys()
    assert keys["StateDirectoryMode"] == ["0750"]
    assert keys["UMask"] == ["0027"]  # files: owner read-write, group read, others nothing
