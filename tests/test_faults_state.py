"""Fault matrix, the state directory (issue 24 faults 1, 3, 5, 6, 19, 20): what stands at the
store's path, where the store is, and one daemon per state directory.

- Every kind of thing that is not a file at the store's path (or its log's), through every
  command that reaches it: one line, the right exit, never a hang, and ``doctor`` never ok.
- The store is found the same way by every command, whatever the working directory.
- A second daemon on the same state directory is refused in one line naming the first;
  the readers go on working beside it.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from companion.cli import main
from companion.exc import ConfigError
from companion.statedir import (
    LOCK_FILE,
    SERVICE_STATE,
    SERVICE_UNIT,
    hold,
    locate,
    not_a_file,
    user_state,
)
from companion.store import Store
from tests.faults import NOT_FILES, put, tiny_disk_command
from tests.harness import COMPANION, ENV

#: A start, a refusal or a doctor's run takes well under this; a hang would take forever.
PROMPTLY = 20.0


def companion(*args: str, cwd: pathlib.Path | None = None,
              prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, *COMPANION, *args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=ENV, cwd=cwd, timeout=PROMPTLY,
                          check=False)


def said(run: subprocess.CompletedProcess[str]) -> list[str]:
    """What a command said on standard error, its log lines aside."""
    assert "Traceback" not in run.stderr, run.stderr
    return [line for line in run.stderr.splitlines() if not line.startswith(("INFO", "WARNING"))]


def stored_game(state: pathlib.Path, name: str = "companion.sqlite") -> int:
    """A store in ``state`` holding one game of one entry, closed cleanly."""
    state.mkdir(parents=True, exist_ok=True)
    store = Store(str(state / name))
    gid = store.create("microbot-racers", ["game microbot-racers", "players Ann Bob"])
    store.push(gid, ["table roll 3 2"], rolled=False, over=False, winners=[])
    store.close()
    return gid


def store_line(report: subprocess.CompletedProcess[str] | str) -> str:
    """The doctor's first line about the store."""
    text = report if isinstance(report, str) else report.stdout
    return next(line for line in text.splitlines() if line.split()[1:2] == ["store"])


# --- the wrong kind of thing at the store's path ---


@dataclass(frozen=True)
class Where:
    """Which of the store's files the wrong thing stands in for."""

    name: str
    suffix: str  # "" for the main file, "-wal" or "-shm"


WHERES = [Where("main file", ""), Where("log", "-wal"), Where("log index", "-shm")]
MATRIX = [(kind, where) for kind in NOT_FILES for where in WHERES
          if where.suffix == "" or kind in ("directory", "FIFO")]


@pytest.mark.parametrize(("kind", "where"), MATRIX,
                         ids=[f"{kind} as the {where.name}" for kind, where in MATRIX])
def test_what_is_not_a_file_at_the_stores_path_is_one_line_and_exit_2_everywhere(
        tmp_path: pathlib.Path, kind: str, where: Where, capsys: pytest.CaptureFixture[str]) -> None:
    """``run`` as a process (a hang would be killed); ``games``, ``export`` and ``doctor``
    in this one (they look with stat only: a FIFO would hang the test, not pass it)."""
    state = tmp_path / "state"
    stored_game(state)
    path = state / f"companion.sqlite{where.suffix}"
    put(kind, path)
    started = time.monotonic()
    run = companion("run", "--state", str(state), "--emulator", "none", "--keys", "")
    lines = said(run)
    assert len(lines) == 1 and str(path) in lines[0] and "not a file" in lines[0], run.stderr
    assert run.returncode == 2, f"run: {run.returncode} {run.stderr}"
    assert time.monotonic() - started < PROMPTLY / 2
    for command in ("games", "export"):
        assert main([command, "--state", str(state)]) == 2, command
        out, err = capsys.readouterr()
        assert out == "" and err.splitlines() == [f"{path}: (store): {not_a_file(str(path))}"]
    main(["doctor", "--state", str(state)])
    doctor = capsys.readouterr().out
    assert store_line(doctor).startswith(f"fail  store     {path} is ")


def test_a_device_named_as_the_store_is_refused_not_retried(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``[store] path = "/dev/null"``: exit 2 (systemd does not restart), and the doctor
    does not call it a store that opens."""
    config = tmp_path / "companion.toml"
    config.write_text('[store]\npath = "/dev/null"\n')
    run = companion("run", "--config", str(config), "--state", str(tmp_path / "state"),
                    "--emulator", "none", "--keys", "")
    assert said(run) == ["/dev/null: (store): is a device, not a file"]
    assert run.returncode == 2
    main(["doctor", "--config", str(config), "--state", str(tmp_path / "state")])
    assert store_line(capsys.readouterr().out).startswith(
        "fail  store     /dev/null is a device, not a file")


@pytest.mark.parametrize("copies", [True, False], ids=["with copies", "nothing beside it"])
def test_the_doctor_never_calls_an_empty_or_foreign_store_ok(
        tmp_path: pathlib.Path, copies: bool, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    stored_game(state)
    if copies:
        (state / "companion.sqlite.backup-1").write_bytes((state / "companion.sqlite").read_bytes())
    for content in (b"", b"#!/bin/sh\necho not a store\n" * 50):
        (state / "companion.sqlite").write_bytes(content)
        main(["doctor", "--state", str(state)])
        line = store_line(capsys.readouterr().out)
        assert line.startswith(("fail", "warn")), line
        assert str(state / "companion.sqlite") in line
        assert main(["games", "--state", str(state)]) == 1  # a reader says so in one line
        (said_line,) = capsys.readouterr().err.splitlines()
        assert said_line.startswith(f"{state / 'companion.sqlite'}: the main file is")


# --- where the store is ---


def test_every_command_decides_whether_the_service_is_installed_the_same_way(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    assert locate(None, "", reading=True, root=tmp_path).directory == user_state()
    unit = tmp_path / SERVICE_UNIT.lstrip("/")
    unit.parent.mkdir(parents=True)
    unit.write_text("")
    assert locate(None, "", reading=True, root=tmp_path).directory == SERVICE_STATE
    assert locate(None, "", reading=False, root=tmp_path).directory == user_state()


def test_a_relative_store_path_is_in_the_state_directory_for_every_command(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    state, elsewhere, another = tmp_path / "state", tmp_path / "elsewhere", tmp_path / "another"
    elsewhere.mkdir()
    another.mkdir()
    config = tmp_path / "companion.toml"
    config.write_text('[store]\npath = "games/box.sqlite"\n')
    run = companion("run", "--config", str(config), "--state", str(state), "--emulator", "none",
                    "--keys", "select " * 9, cwd=elsewhere)
    assert run.returncode == 0, run.stderr
    assert (state / "games" / "box.sqlite").is_file()
    assert list(elsewhere.iterdir()) == []  # nothing in the working directory
    monkeypatch.chdir(another)
    assert main(["games", "--config", str(config), "--state", str(state)]) == 0
    assert "Ann" in capsys.readouterr().out
    main(["doctor", "--config", str(config), "--state", str(state)])
    assert store_line(capsys.readouterr().out) == \
        f"ok    store     {state}/games/box.sqlite opens; integrity_check ok"


def test_a_relative_state_directory_is_the_same_directory_for_every_command(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    gid = stored_game(tmp_path / "st2")
    monkeypatch.chdir(tmp_path)
    assert main(["games", "--state", "st2"]) == 0
    assert capsys.readouterr().out.split()[0] == str(gid)
    assert main(["export", "--state", "st2"]) == 0
    assert "table roll 3 2" in capsys.readouterr().out
    main(["doctor", "--state", "st2"])
    assert store_line(capsys.readouterr().out) == \
        f"ok    store     {tmp_path}/st2/companion.sqlite opens; integrity_check ok"


# --- a full disk after a clean stop ---


def test_a_full_disk_after_a_clean_stop_is_named(tmp_path: pathlib.Path) -> None:
    """The store closed cleanly (no log), then the card filled: SQLite cannot make the log
    and says "disk I/O error"; the line says the disk is full, and systemd retries."""
    tiny = tiny_disk_command(str(tmp_path), size_kib=1024)
    if tiny is None:
        pytest.skip("this machine allows no mount namespaces")
    script = (f'"{sys.executable}" -m companion run --state "$0/state" --emulator none '
              f'--keys "select select" >/dev/null 2>&1 && '
              '{ head -c 10000000 /dev/zero > "$0/filler" 2>/dev/null || true; }')
    prefix = (tiny[0], "-rm", "sh", "-c",
              f'mount -t tmpfs -o size=1024k tmpfs "$0" && {script} && exec "$@"', str(tmp_path))
    run = companion("run", "--state", str(tmp_path / "state"), "--emulator", "none", "--keys", "",
                    prefix=prefix)
    lines = said(run)
    assert len(lines) == 1 and "the disk is full" in lines[0], run.stderr
    assert run.returncode == 1


# --- one daemon per state directory ---


@pytest.fixture
def running(tmp_path: pathlib.Path) -> Iterator[subprocess.Popen[str]]:
    """A daemon running on ``tmp_path / "state"``, holding one game, up to its first frame."""
    stored_game(tmp_path / "state")
    child = subprocess.Popen([*COMPANION, "run", "--state", str(tmp_path / "state"),
                              "--emulator", "none"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    assert child.stderr is not None
    for line in child.stderr:
        if line.rstrip().endswith("companion.daemon: ready"):
            break
    else:
        raise AssertionError("the first daemon did not start")
    yield child
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=PROMPTLY)
    child.stderr.close()


def test_a_second_daemon_is_refused_naming_the_first_until_the_first_is_gone(
        tmp_path: pathlib.Path, running: subprocess.Popen[str]) -> None:
    state = tmp_path / "state"
    second = companion("run", "--state", str(state), "--emulator", "none", "--keys", "select")
    assert said(second) == [
        f"{state}: (state): another companion is running on it (pid {running.pid}): stop that "
        "one first (if it is the service: sudo systemctl stop companion)"]
    assert second.returncode == 2
    # the readers go on: the daemon's game is listed and exported while it runs
    games = companion("games", "--state", str(state))
    assert games.returncode == 0 and "Ann Bob" in games.stdout, games.stderr
    export = companion("export", "--state", str(state))
    assert export.returncode == 0 and export.stdout.splitlines()[-1] == "table roll 3 2"
    running.kill()  # a power cut or a crash: the kernel lets go of the lock with the process
    running.wait()
    again = companion("run", "--state", str(state), "--emulator", "none", "--keys", "")
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize("kind", NOT_FILES)
def test_a_lock_file_that_is_not_a_file_is_one_line(tmp_path: pathlib.Path, kind: str) -> None:
    state = tmp_path / "state"
    stored_game(state)
    put(kind, state / LOCK_FILE)
    with pytest.raises(ConfigError) as refused:
        hold(state)
    assert str(refused.value) == f"{state / LOCK_FILE}: (lock): {not_a_file(str(state / LOCK_FILE))}"
    if kind == "directory":  # the whole way, once: one line and exit 2
        run = companion("run", "--state", str(state), "--emulator", "none", "--keys", "")
        assert said(run) == [str(refused.value)] and run.returncode == 2


def test_a_lock_file_this_user_may_not_write_is_one_line(
        companion_as_other_user: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    top = pathlib.Path(tempfile.mkdtemp(dir="/tmp"))  # a place another user may reach
    top.chmod(0o755)
    state = top / "state"
    stored_game(state)
    (state / LOCK_FILE).write_text("1\n")  # left by a run as root; the service is someone else
    for path in (state, *state.iterdir()):
        if path.name != LOCK_FILE:
            os.chown(path, 65534, 65534)
    try:
        run = companion_as_other_user((), "run", "--state", str(state), "--emulator", "none", "--keys", "")
    finally:
        shutil.rmtree(top)
    lines = said(run)
    assert len(lines) == 1 and str(state / LOCK_FILE) in lines[0] and "ermission" in lines[0], \
        run.stderr
    assert run.returncode == 2
