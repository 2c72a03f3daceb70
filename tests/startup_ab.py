"""Two or more copies of the companion's source, timed in turn: what a start-up trick buys.

    python -m tests.startup_ab KIND ROUNDS NAME=FOLDER [NAME=FOLDER ...]

Each FOLDER holds a ``companion`` package (a copy of this tree, with one trick undone in
all but the first). KIND is what is timed, each run a whole process, its compiled bytecode
kept between runs as pip keeps it on a Pi:

- ``replay``: ``companion replay`` of a 10,000-line Microbot race (the bench's record);
- ``empty``: ``companion replay`` of a record with no action: start-up alone;
- ``start``: ``companion run --emulator none`` with the Bonnet's keys on mock pins, to the
  ``ready`` line (the bench's start to first frame), an empty store;
- ``games``: ``companion games`` on an empty store (a command that reads the store).

The copies are taken in turn (the order flipped every round), and each copy's figure is
compared with the first's pair by pair, so that a machine whose load changes moves both.
Figures are CPU time (user and system; for ``start``, the daemon's threads to ``ready``, from
``/proc``), steadier than wall time on a loaded machine. docs/startup.md has the results.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

from companion.bench import LONG_GAME, MEASURE, long_race, write_record

IDLE_CONFIG = '[buttons]\npreset = "adafruit-bonnet"\n'


def environment(folder: str, work: pathlib.Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": folder, "GPIOZERO_PIN_FACTORY": "mock",
           "PYTHONPYCACHEPREFIX": str(work / f"bytecode-{abs(hash(folder))}")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def process_cpu(command: list[str], folder: str, work: pathlib.Path) -> float:
    done = subprocess.run([sys.executable, "-S", "-c", MEASURE, *command], capture_output=True, text=True,
                          check=True, env=environment(folder, work), cwd=work)
    cpu, _, _, status = done.stdout.split()  # bench's MEASURE: CPU, wall, peak memory, status
    if status != "0":
        raise RuntimeError(f"{' '.join(command)} failed in {folder} (wait status {status})")
    return float(cpu)


def start_cpu(folder: str, work: pathlib.Path) -> float:
    """The daemon's CPU time (all its threads, in ns from /proc) by its ``ready`` line."""
    state = pathlib.Path(tempfile.mkdtemp(dir=work))
    config = work / "start.toml"
    config.write_text(IDLE_CONFIG)
    child = subprocess.Popen([sys.executable, "-m", "companion", "run", "--emulator", "none", "--state",
                              str(state), "--config", str(config)], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=environment(folder, work), cwd=work)
    assert child.stderr is not None
    try:
        for line in child.stderr:
            if line.rstrip().endswith("companion.daemon: ready"):
                tasks = pathlib.Path(f"/proc/{child.pid}/task").iterdir()
                return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks) / 1e9
        raise RuntimeError(f"the companion in {folder} did not start")
    finally:
        child.terminate()
        child.wait()
        shutil.rmtree(state, ignore_errors=True)


def main(argv: list[str]) -> None:
    kind, rounds = argv[0], int(argv[1])
    copies = dict(arg.split("=", 1) for arg in argv[2:])
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        if kind == "replay":
            header, lines = long_race(LONG_GAME)
            command = [sys.executable, "-m", "companion", "replay", str(write_record(work / "long.record",
                                                                                     header, lines))]
        elif kind == "empty":
            (work / "empty.record").write_text("game microbot-racers\nplayers Ann Bob\n")
            command = [sys.executable, "-m", "companion", "replay", str(work / "empty.record")]
        elif kind == "games":
            state = work / "state"
            state.mkdir()
            subprocess.run([sys.executable, "-c", "import sys; from companion.store import Store; "
                            "Store(sys.argv[1]).close()", str(state / "companion.sqlite")], check=True)
            command = [sys.executable, "-m", "companion", "games", "--state", str(state)]
        elif kind != "start":
            raise SystemExit(f"unknown kind {kind!r}: replay, empty, start or games")

        def once(folder: str) -> float:
            return start_cpu(folder, work) if kind == "start" else process_cpu(command, folder, work)

        for folder in copies.values():  # compiles each copy's bytecode: not counted
            once(folder)
        found: dict[str, list[float]] = {name: [] for name in copies}
        for number in range(rounds):
            order = list(copies.items())
            for name, folder in order if number % 2 == 0 else reversed(order):
                found[name].append(once(folder))
    first = next(iter(copies))
    for name, values in found.items():
        low, _, high = statistics.quantiles(values, n=4)
        line = (f"{kind} {name}: median {1000 * statistics.median(values):.1f} ms CPU "
                f"(quartiles {1000 * low:.1f}-{1000 * high:.1f})")
        if name != first:
            diffs = [a - b for a, b in zip(values, found[first])]
            low, _, high = statistics.quantiles(diffs, n=4)
            line += (f"; minus {first}, pair by pair: median {1000 * statistics.median(diffs):+.1f} ms "
                     f"(quartiles {1000 * low:+.1f} to {1000 * high:+.1f})")
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
