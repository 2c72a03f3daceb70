"""The power-cut harness: the real daemon, fed scripted games through the serial console on a
pseudo-terminal, killed with SIGKILL at random moments and started again, many times over.

Every ``ok`` the console answers is an action the players were shown. After each kill the
store must hold every one of them, in order, plus at most the one line in flight; the
resumed game (the console's ``state``) must be what those lines replay to. Some kills land
at random moments, others inside a store write, just before or just after its COMMIT (run
through tests/killatwrite.py, which wraps the store's connection).

    python -m tests.powercut --kills 200          # the full run (several minutes)

tests/test_powercut.py runs a short setting. A SIGKILL keeps what the kernel had not yet
written, so this shows the daemon's side; tests/test_cutdisk.py shows the disk's side.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

from companion.games import GAMES
from companion.record import format_record, replay_text, summary
from tests.harness import PATIENCE, Tty
from tests.playout import playout

COMMAND = [sys.executable, "-m", "companion"]
KILL_AT_WRITE = [sys.executable, "-m", "tests.killatwrite"]  # then "N:before" or "N:after"
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
ROOT = pathlib.Path(__file__).resolve().parents[1]  # where ``tests`` imports from


@dataclass
class Game:
    """One scripted game: its header lines and its actions, as the console takes them."""

    header: list[str]
    actions: list[str]


@dataclass
class Tally:
    kills: int = 0
    in_writes: int = 0  # kills from inside a store write
    acknowledged: int = 0
    lost: int = 0
    in_flight_kept: int = 0  # unanswered lines found stored after the kill (allowed: one)
    games: int = 0
    problems: list[str] = field(default_factory=list)


def script(seed: int, games: int) -> list[Game]:
    """Legal games back to back: long Microbot races between the others."""
    rng = random.Random(seed)
    out = []
    others = sorted(set(GAMES) - {"microbot-racers"})
    for number in range(games):
        game_id = "microbot-racers" if number % 2 == 0 else others[number // 2 % len(others)]
        game = GAMES[game_id]
        players = ("Ann", "Bob", "Cat", "Dan")[:max(2, game.min_players)]
        _, lines = playout(game, players, rng, steps=400)
        out.append(Game([f"game {game_id}", "players " + " ".join(players)],
                        [str(line) for line in lines]))
    return out


def stored(path: pathlib.Path) -> list[tuple[list[str], list[str]]]:
    """Every stored game, oldest first: header lines and the action lines in force."""
    if not path.exists():
        return []
    db = sqlite3.connect(path)
    try:
        games = db.execute("SELECT id, header, head FROM games ORDER BY id").fetchall()
        return [(header.split("\n"), [line for (text,) in db.execute(
            "SELECT lines FROM entries WHERE game = ? AND seq <= ? ORDER BY seq", (gid, head))
            for line in text.split("\n")]) for gid, header, head in games]
    finally:
        db.close()


class Companion:
    """One run of the daemon on the pty, until it is killed."""

    def __init__(self, state: pathlib.Path, config: pathlib.Path, tty: Tty, log: pathlib.Path,
                 kill_at_write: str = "") -> None:
        command = [*KILL_AT_WRITE, kill_at_write] if kill_at_write else COMMAND
        with log.open("ab") as stderr:
            self.process = subprocess.Popen(
                [*command, "run", "--emulator", "none", "--state", str(state), "--config", str(config)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=ENV, cwd=ROOT)
        self.tty = tty

    def alive(self) -> bool:
        return self.process.poll() is None

    def ask(self, line: str) -> str | None:
        """Send a line; its answer, or None if the daemon died first."""
        self.tty.send(line.encode() + b"\n")
        end = time.monotonic() + PATIENCE
        while time.monotonic() < end:
            answer = self.tty.answer(0.1)
            if answer:
                return answer
            if not self.alive():
                return None
        raise AssertionError(f"no answer to {line!r} from a live daemon")

    def ready(self) -> bool:
        """Say ``help`` until the console answers (the port is open); False if it died."""
        while self.alive():
            self.tty.send(b"help\n")
            if self.tty.answer(0.3):
                return True
        return False

    def kill(self) -> None:
        if self.alive():
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=PATIENCE)


def check(games: list[Game], acked: list[list[str]], found: list[tuple[list[str], list[str]]],
          tally: Tally) -> None:
    """Compare the store with what was acknowledged; take a kept in-flight line as acked."""
    for number, (game, lines) in enumerate(zip(games, acked)):
        if number >= len(found):
            if lines:  # the game's players line was acknowledged, so it was stored
                tally.lost += len(lines)
                tally.problems.append(f"game {number + 1} missing")
            continue
        header, actions = found[number]
        if header != game.header:
            tally.problems.append(f"game {number + 1}: header {header} != {game.header}")
            continue
        if actions[:len(lines)] != lines:
            kept = sum(1 for a, b in zip(actions, lines) if a == b)
            tally.lost += len(lines) - kept
            tally.problems.append(f"game {number + 1}: acknowledged lines missing or changed")
        extra = actions[len(lines):]
        if len(extra) > 1 or extra != game.actions[len(lines):len(lines) + len(extra)]:
            tally.problems.append(f"game {number + 1}: stored lines never sent: {extra}")
        if extra:
            tally.in_flight_kept += 1
            lines.extend(extra)
    if len(found) > len(acked):  # a players line in flight was stored: that game began
        acked.append([])
        tally.in_flight_kept += 1


def state_matches(companion: Companion, game: Game, lines: list[str]) -> bool:
    """The resumed game, asked through the console, is what the acknowledged lines replay to."""
    replayed = summary(replay_text(format_record(replay_text("\n".join(game.header) + "\n").header,
                                                 lines)))
    if replayed["over"]:
        return True  # a finished game is not resumed: the next one starts from the home screen
    answer = companion.ask("state")
    if answer is None:
        return True  # killed while asking: the next restart asks again
    return answer.startswith("ok ") and json.loads(answer[3:]) == json.loads(json.dumps(replayed))


def run(kills: int, seed: int = 1, directory: pathlib.Path | None = None) -> Tally:
    """Kill the companion ``kills`` times while it plays; the tally."""
    rng = random.Random(seed)
    # More games than kills can use up, so every run reaches its number of kills however
    # fast the machine plays between them.
    games = script(seed, games=kills + 4)
    with tempfile.TemporaryDirectory() as scratch:
        base = directory or pathlib.Path(scratch)
        state = base / "state"
        state.mkdir(parents=True, exist_ok=True)
        tty = Tty(base / "ttyACM-link")
        tty.plug()
        config = base / "companion.toml"
        config.write_text(f'[serial]\nports = [{{ path = "{tty.link}" }}]\n', encoding="utf-8")
        tally = Tally()
        acked: list[list[str]] = []  # per game begun: its acknowledged action lines
        try:
            while tally.kills < kills:
                hook = ""
                if rng.random() < 0.35:
                    hook = f"{rng.randint(1, 12)}:{rng.choice(['before', 'after'])}"
                companion = Companion(state, config, tty, base / "companion.log", hook)
                if companion.ready():
                    if acked and not state_matches(companion, games[len(acked) - 1], acked[-1]):
                        tally.problems.append(f"after kill {tally.kills}: the resumed state differs")
                    timer = None
                    if not hook:
                        timer = threading.Timer(rng.uniform(0.0, 0.5), companion.kill)
                        timer.start()
                    feed(companion, games, acked, tally)
                    if timer is not None:
                        timer.cancel()
                finished = len(acked) == len(games) and len(acked[-1]) == len(games[-1].actions)
                tally.in_writes += bool(hook) and not companion.alive()
                companion.kill()
                tally.kills += 1
                tty.heard = b""  # half an answer from the dead process
                check(games, acked, stored(state / "companion.sqlite"), tally)
                if finished:
                    break
        finally:
            tty.unplug()
        tally.games = len(acked)
        tally.acknowledged = sum(len(lines) for lines in acked)
        return tally


def feed(companion: Companion, games: list[Game], acked: list[list[str]], tally: Tally) -> None:
    """Send the script from where the store stands until the daemon dies or all is sent."""
    while True:
        if not acked or len(acked[-1]) == len(games[len(acked) - 1].actions):
            if len(acked) == len(games):
                return
            if not all(acknowledged(companion, line, tally) for line in games[len(acked)].header):
                return
            acked.append([])  # the players line was answered: the game is stored
        line = games[len(acked) - 1].actions[len(acked[-1])]
        if not acknowledged(companion, line, tally):
            return
        acked[-1].append(line)


def acknowledged(companion: Companion, line: str, tally: Tally) -> bool:
    """Send one scripted line: True when it was answered ``ok``, False if the daemon died
    first (or refused it, which the script never should)."""
    answer = companion.ask(line)
    if answer is not None and not answer.startswith("ok"):
        tally.problems.append(f"{line!r} refused: {answer}")
    return answer is not None and answer.startswith("ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tally = run(args.kills, args.seed)
    print(f"{tally.kills} kills ({tally.in_writes} inside a store write), "
          f"{tally.acknowledged} actions acknowledged over {tally.games} games: "
          f"{tally.lost} lost, {len(tally.problems)} problems, "
          f"{tally.in_flight_kept} in-flight lines found stored")
    for problem in tally.problems:
        print("  ", problem)
    assert tally.lost == 0 and not tally.problems


if __name__ == "__main__":
    main()
