"""Serial fuzz: the real daemon, a game in progress, and a stream of bad lines on its console
(binary noise, over-long lines, invalid UTF-8, control characters, and lines that look like
actions or commands but that the rules refuse). Each must be answered ``error: ...``, the
daemon must keep running, and the game must come out exactly as it went in.

    python -m tests.serialfuzz --lines 10000

tests/test_serialfuzz.py runs it in the suite.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import signal
import tempfile
from collections.abc import Iterator
from typing import Any

from companion.console import line_text
from companion.exc import ConsoleRefused
from companion.games import GAMES
from companion.games.base import IllegalLine, Line
from companion.io.serial import MAX_LINE
from companion.record import words
from tests.harness import PATIENCE, Tty
from tests.powercut import Companion, stored

MICROBOT = GAMES["microbot-racers"]
#: A race that stands at Ann's second pick: no dice asked for, nothing to redo.
OPENING = ["game microbot-racers", "players Ann Bob", "table roll 3 2", "Bob pick move-2",
           "Ann pick move-3"]
VOCABULARY = ["Ann", "Bob", "Cat", "table", "pick", "roll", "move-1", "move-2", "move-3",
              "turn-left", "turn-right", "repair", "jump", "drift-left", "hazard", "lap", "impact",
              "first", "pass", "dice", "die", "redo", "option", "laps", "side", "players", "game",
              "0", "1", "7", "-3", "99999999999999999999", "é", "\t", "Ann:", "leaf", "stay"]
SURE_REFUSALS = ["redo", "dice 3 2", "die 4", "die", "dice", "dice x", "game nosuch",
                 "players Ann Ann", "players", "option laps 2", "option nosuch 1", "undo now",
                 "state please", "help me", "table roll 9 9", "Ann", "Bob pick", "Zed pick move-1"]


def refused_locally(data: bytes, state: Any) -> bool:
    """Whether the console must refuse ``data`` (rather than ignore it as an echo, answer a
    blank line ``ok``, or accept it), judged with the console's own decoding and the rules."""
    if len(data) > MAX_LINE:
        return True
    try:
        tokens = words(line_text(data).split("#", 1)[0])
    except ConsoleRefused:
        return True
    if not tokens or tokens[0] == "ok" or tokens[0].startswith("error:"):
        return False  # blank lines and comments are answered ok; echoed answers not at all
    if " ".join(tokens) in SURE_REFUSALS:
        return True
    if tokens[0] in ("game", "players", "option", "dice", "die", "undo", "redo", "state", "help"):
        return False  # a command that might be legal: leave it out
    try:
        MICROBOT.apply(state, Line.parse(" ".join(tokens)))
    except IllegalLine:
        return True
    return False


def candidates(rng: random.Random) -> Iterator[bytes]:
    """Bad lines of every kind, endlessly; none contains a line end."""
    endings = {0x0A, 0x0D, 0x08, 0x7F}  # line ends would split it; erasers could edit it legal
    while True:
        kind = rng.randrange(6)
        if kind == 0:  # binary noise
            yield bytes(b for b in rng.randbytes(rng.randint(1, 120)) if b not in endings)
        elif kind == 1:  # over-long
            yield bytes(rng.choice(b"abcdefgh mpqrs0123456789-") for _ in range(
                rng.randint(MAX_LINE + 1, 3 * MAX_LINE)))
        elif kind == 2:  # invalid UTF-8 inside a plausible line
            line = bytearray(" ".join(rng.choices(VOCABULARY, k=rng.randint(1, 4))).encode())
            line[rng.randrange(len(line) + 1):0] = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80",
                                                               b"\xf8\x88\x80\x80\x80"])
            yield bytes(line)
        elif kind == 3:  # control characters
            yield (rng.choice(VOCABULARY) + chr(rng.choice([0, 1, 7, 27, 31]))
                   + rng.choice(VOCABULARY)).encode()
        elif kind == 4:  # valid-looking words, illegal now
            yield " ".join(rng.choices(VOCABULARY, k=rng.randint(1, 5))).encode()
        else:
            yield rng.choice(SURE_REFUSALS).encode()


def fuzz(lines: int, seed: int = 1, directory: pathlib.Path | None = None) -> dict[str, Any]:
    """Send ``lines`` bad lines to a running daemon; what happened."""
    rng = random.Random(seed)
    state = MICROBOT.start(("Ann", "Bob"), MICROBOT.option_values({}))
    for text in OPENING[2:]:
        state = MICROBOT.apply(state, Line.parse(text))
    with tempfile.TemporaryDirectory() as scratch:
        base = directory or pathlib.Path(scratch)
        (base / "state").mkdir(parents=True, exist_ok=True)
        tty = Tty(base / "ttyACM-link")
        tty.plug()
        config = base / "companion.toml"
        config.write_text(f'[serial]\nports = [{{ path = "{tty.link}" }}]\n', encoding="utf-8")
        companion = Companion(base / "state", config, tty, base / "companion.log")
        try:
            assert companion.ready(), "the daemon did not start"
            for text in OPENING:
                answer = companion.ask(text)
                assert answer is not None and answer.startswith("ok"), answer
            before = companion.ask("state")
            sent = errors = 0
            kinds: dict[str, int] = {}
            for data in candidates(rng):
                if sent == lines:
                    break
                if not refused_locally(data, state):
                    continue
                tty.send(data + b"\n")
                answer = tty.answer(PATIENCE - 1)  # "" if none came: a failure below
                sent += 1
                if answer.startswith("error:"):
                    errors += 1
                    reason = answer.split(":", 1)[1].split()[0:2]
                    kinds[" ".join(reason)] = kinds.get(" ".join(reason), 0) + 1
                else:
                    raise AssertionError(f"{data!r} was answered {answer!r}")
            after = companion.ask("state")
            alive = companion.alive()
            companion.process.send_signal(signal.SIGTERM)
            status = companion.process.wait(timeout=30)
        finally:
            companion.kill()
            tty.unplug()
        games = stored(base / "state" / "companion.sqlite")
    return {"sent": sent, "errors": errors, "alive": alive, "exit": status,
            "unchanged": before == after and games == [(OPENING[:2], OPENING[2:])],
            "kinds": len(kinds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = fuzz(args.lines, args.seed)
    print(f"{result['sent']} fuzzed lines, {result['errors']} answered with an error "
          f"({result['kinds']} kinds of reason); daemon alive: {result['alive']}, "
          f"game unchanged: {result['unchanged']}, exit status after SIGTERM: {result['exit']}")
    assert result["errors"] == result["sent"] == args.lines and result["unchanged"]


if __name__ == "__main__":
    main()
