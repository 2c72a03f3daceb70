"""Soak: many actions through the session, game after game, with undos, redos and resumes.

Resident memory is read after a warm-up and at the end (the growth must stay under 5 MB),
and the store must come out consistent: SQLite's integrity check, and every game's stored
entries replaying to what the session last showed.

    python -m tests.soak --actions 100000          # the full run (a few minutes)

The test suite runs a short setting (tests/test_soak.py).
"""

from __future__ import annotations

import argparse
import gc
import os
import pathlib
import random
import tempfile
from dataclasses import dataclass
from typing import Any

from companion.games import GAMES
from companion.record import Header, format_record, replay_text
from companion.session import NothingToRedo, Session
from companion.store import Store
from tests.playout import next_entry, players_for

LONGEST = 300  # entries before a game that has not ended is left and the next one begins
RESUME_EVERY = 997  # actions between restarts (close the store, reopen the game)
MB = 1024 * 1024


def resident() -> int:
    """This process's resident memory in bytes (Linux)."""
    pages = int(pathlib.Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


@dataclass
class Soaked:
    actions: int
    games: int
    resumes: int
    growth: int  # bytes of resident memory gained after the warm-up
    integrity: str


def check_game(store: Store, gid: int, state: Any) -> None:
    """The stored record of a game replays to the state the session showed."""
    session = Session(store, gid)
    text = format_record(session.header, [line for entry in store.entries(gid, session.head)
                                          for line in entry.lines])
    assert replay_text(text).state == state == session.state, f"game {gid} differs"


def soak(directory: pathlib.Path, actions: int, seed: int = 1) -> Soaked:
    rng = random.Random(seed)
    path = str(directory / "soak.sqlite")
    store = Store(path)
    kinds = sorted(GAMES)
    games = resumes = done = 0
    warm = 0
    session: Session | None = None
    while done < actions:
        if session is None or session.over() or session.head >= LONGEST:
            if session is not None:
                check_game(store, session.gid, session.state)
            game = GAMES[kinds[games % len(kinds)]]
            session = Session.new(store, Header(game, players_for(game, rng.randint(0, 3))))
            games += 1
        roll = rng.random()
        if roll < 0.12 and session.head > 0:
            session.undo()
        elif roll < 0.18:
            try:
                session.redo()
            except NothingToRedo:
                session.play(*next_entry(session, rng))
        else:
            session.play(*next_entry(session, rng))
        done += 1
        if done % RESUME_EVERY == 0:  # the power goes and comes back: reopen from disk
            gid, state = session.gid, session.state
            store.close()
            store = Store(path)
            session = Session(store, gid)
            assert session.state == state
            resumes += 1
        if done == min(actions // 10, 5000):
            gc.collect()
            warm = resident()
    assert session is not None
    check_game(store, session.gid, session.state)
    gc.collect()
    growth = resident() - warm
    integrity = str(store.db.execute("PRAGMA integrity_check").fetchone()[0])
    store.close()
    return Soaked(done, games, resumes, growth, integrity)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        result = soak(pathlib.Path(directory), args.actions, args.seed)
    print(f"{result.actions} actions over {result.games} games, {result.resumes} resumes: "
          f"resident memory grew {result.growth / MB:.2f} MB after the warm-up; "
          f"integrity_check {result.integrity}")
    assert result.growth < 5 * MB and result.integrity == "ok"


if __name__ == "__main__":
    main()
