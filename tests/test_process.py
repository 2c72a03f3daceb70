"""The real ``companion`` process: the terminal emulator driven through a pseudo-terminal,
headless start, exports, and one-line errors for bad configuration."""

from __future__ import annotations

import os
import pathlib
import pty
import select
import subprocess
import threading
import time

from tests.harness import COMPANION, ENV


class Screen:
    """Keeps reading the pseudo-terminal (a full pty would block the companion's writes)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen = b""
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            if select.select([self.fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.seen += chunk

    def wait_for(self, needle: bytes, seconds: float = 20.0) -> None:
        end = time.monotonic() + seconds
        while needle not in self.seen:
            assert time.monotonic() < end, f"never saw {needle!r}; got {self.seen[-400:]!r}"
            time.sleep(0.05)


def test_emulator_plays_presses_from_the_keyboard_and_stores_them(tmp_path: pathlib.Path) -> None:
    controller, terminal = pty.openpty()
    process = subprocess.Popen([*COMPANION, "run", "--state", str(tmp_path)], stdin=terminal,
                               stdout=terminal, stderr=subprocess.PIPE, env=ENV, close_fds=True)
    os.close(terminal)
    screen = Screen(controller)
    try:
        screen.wait_for(b"+----")  # the first frame is up
        # New game > Microbot Racers > Ann > Bob > default laps > default side > roll
        for key in (b"\r", b"\r", b"\r", b"\r", b"\r", b"\r", b"r"):
            os.write(controller, key)
            time.sleep(0.4)
        os.write(controller, b"q")
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()
        screen.thread.join(timeout=5)
        os.close(controller)
    record = subprocess.run([*COMPANION, "export", "--state", str(tmp_path)], env=ENV,
                            capture_output=True, text=True, timeout=60)
    assert record.returncode == 0, record.stderr
    lines = record.stdout.splitlines()
    assert lines[:2] == ["game microbot-racers", "players Ann Bob"]
    assert lines[2].startswith("table roll ") and lines[2].endswith("# rolled by the companion")
    replay = subprocess.run([*COMPANION, "replay", "-"], input=record.stdout, env=ENV,
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr


def test_without_screen_or_terminal_it_runs_headless_and_says_so(tmp_path: pathlib.Path) -> None:
    run = subprocess.run([*COMPANION, "run", "--state", str(tmp_path), "--keys", "select"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert "headless" in run.stderr


def test_a_bad_config_file_is_one_line_and_exit_2(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text('[screen]\ndim_after = "soon"\n')
    run = subprocess.run([*COMPANION, "run", "--config", str(config), "--state", str(tmp_path)],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                         timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"{config}: screen.dim_after: must be a number of seconds, not 'soon'"]
    assert "Traceback" not in run.stderr


def test_a_config_file_that_is_not_toml_names_the_file(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text("[screen\n")
    run = subprocess.run([*COMPANION, "games", "--config", str(config), "--state", str(tmp_path)],
                         capture_output=True, text=True, env=ENV, timeout=60)
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith(f"{config}: (syntax): ")


def test_display_flags_luma_refuses_are_a_config_error(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text('[display]\nflags = "--display nosuchpanel"\n')
    run = subprocess.run([*COMPANION, "run", "--config", str(config), "--state", str(tmp_path)],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                         timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].startswith(f"{config}: display.flags: ")


def test_it_tells_systemd_it_is_ready_once_the_first_screen_is_up(tmp_path: pathlib.Path) -> None:
    import socket

    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(address)
        sock.settimeout(30)
        env = {**ENV, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "2000000"}
        run = subprocess.run([*COMPANION, "run", "--state", str(tmp_path / "state"), "--keys", "down"],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        messages = [sock.recv(256).decode() for _ in range(2)]
    assert messages == ["READY=1", "STOPPING=1"]
