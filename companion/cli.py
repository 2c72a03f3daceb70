"""The ``companion`` command: run, replay, games, export.

    companion run                      the daemon (terminal emulator when run in a terminal)
    companion replay FILE              a record's summary JSON (records.md)
    companion games                    the stored games
    companion export latest|ID         a stored game's record (or --summary JSON)
    companion import FILE              store a record as a game; prints its number
    companion stats [--json]           who wins each game, and whether the dice look fair
    companion bench                    what a press costs: bus bytes, latency, start-up, memory
    companion doctor                   check a Pi build: one line per check, and the fixes
"""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from companion.exc import CompanionError, ConfigError, NotAPlay, RecordError, StateUnavailable, UnreadableRecord
from companion.games.base import IllegalLine, shown, whole_number
from companion.record import MAX_RECORD_BYTES, replay_stream, summary, too_big

if TYPE_CHECKING:
    import argparse

EXIT_ILLEGAL = 1
EXIT_UNREADABLE = 2
EXIT_CONFIG = 2  # fix the configuration: systemd does not restart (RestartPreventExitStatus=2)
EXIT_RETRY = 1  # something that may pass (a full or read-only disk, a locked store): retried
#: The reader of our output went away (``| head``): what a shell reports for a program that
#: SIGPIPE ended, 128 + 13, distinct from the replay contract's 1 and 2.
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
SYSTEM_CONFIG = "/etc/companion/companion.toml"
#: The most games ``companion games --limit`` lists.
MOST_LISTED = 1_000_000


def config_path(given: str | None) -> str | None:
    """--config, else /etc/companion/companion.toml when anything is there (a broken link
    is refused in one line, not taken for no file), else the defaults."""
    if given:
        return given
    return SYSTEM_CONFIG if os.path.lexists(SYSTEM_CONFIG) else None


# --- replay ---


def open_record(name: str) -> BinaryIO:
    """The record to replay: standard input for ``-``, else a regular file within the cap.

    Opened without blocking, so a FIFO with no writer is refused instead of waited on;
    devices (``/dev/zero``) and directories are refused at once, and so is a file over
    :data:`MAX_RECORD_BYTES` (standard input is held to the same cap as it is read).
    Raise :class:`UnreadableRecord` with the reason.
    """
    if name == "-":
        return sys.stdin.buffer
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise UnreadableRecord(f"cannot read: {err.strerror}") from None
    status = os.fstat(fd)
    problem = ("" if stat.S_ISREG(status.st_mode) and status.st_size <= MAX_RECORD_BYTES
               else "a directory" if stat.S_ISDIR(status.st_mode)
               else "not a regular file" if not stat.S_ISREG(status.st_mode)
               else too_big(MAX_RECORD_BYTES))
    if problem:
        os.close(fd)
        raise UnreadableRecord(f"cannot read: {problem}")
    return os.fdopen(fd, "rb")


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a record as it is read; print its summary, or ``FILE:LINE: reason``."""
    return replay(args.file)


def replay(name: str) -> int:
    """``companion replay NAME``: the summary JSON, or ``NAME:LINE: reason``; the exit code."""
    replayed, code = read_record(name, lambda stream: replay_stream(stream, keep_actions=False))
    if replayed is None:
        return code
    print(json.dumps(summary(replayed)))
    return 0


T = TypeVar("T")


def read_record(name: str, read: Callable[[BinaryIO], T]) -> tuple[T | None, int]:
    """``read(stream)`` on the record ``name`` (:func:`open_record`): its result and 0; or
    None and the exit code, after the contract's line: ``NAME:LINE: reason`` (1) for an
    illegal line, one line (2) for what is no record or cannot be read."""
    try:
        with open_record(name) as stream:
            return read(stream), 0
    except UnreadableRecord as err:
        print(f"{name}: {err}", file=sys.stderr)
        return None, EXIT_UNREADABLE
    except RecordError as err:
        print(f"{name}:{err.line}: {err.reason}", file=sys.stderr)
        return None, EXIT_ILLEGAL
    except OSError as err:  # the file or the pipe failed while being read
        if isinstance(err, CompanionError):  # the state directory's, not the record's
            raise
        print(f"{name}: cannot read: {err.strerror}", file=sys.stderr)
        return None, EXIT_UNREADABLE


# --- the store from the command line ---


def reading_store(args: argparse.Namespace) -> Any:
    from companion.config import load
    from companion.statedir import check_files, check_readable, locate, reader
    from companion.store import Store

    config = load(config_path(args.config))
    where = locate(args.state, config.store, reading=True)
    path = where.store
    check_readable(where.directory)
    check_files(path)
    if not os.path.exists(path):
        raise ConfigError(path, "(store)", "no games stored here yet")
    refuse_foreign(path)
    return Store(path, connect=reader(path))


def refuse_foreign(path: str) -> None:
    """StateUnavailable when the file at ``path`` is no store (empty, or something else):
    the companion sets it aside at its next start, and no command writes into it."""
    from companion.statedir import not_a_store

    problem = not_a_store(path)
    if problem:
        raise StateUnavailable(f"{path}: {problem}: the companion sets it aside and brings "
                               "its games back from the copies at its next start")


def cmd_games(args: argparse.Namespace) -> int:
    """List the stored games, most recently changed first (whatever the clock said then);
    one line for each that cannot be read (exit 1)."""
    from companion.clock import UNSURE_WORDS, shown_time
    from companion.options import whole
    from companion.ui.games import title_of

    limit = whole("--limit", args.limit, 1, MOST_LISTED, "the number of games to list")
    store = reading_store(args)
    rows, unreadable = store.readable_games(limit=limit)
    dates = [shown_time(row.updated, row.updated_synced, f" {UNSURE_WORDS}") for row in rows]
    width = max(map(len, dates), default=0)
    for row, date in zip(rows, dates, strict=True):
        players = row.header[1].split()[1:] if len(row.header) > 1 else []
        winners = f" won by {', '.join(row.winners)}" if row.winners else ""
        print(f"{row.id:5}  {date:{width}}  {row.status:9}  {title_of(row)}: "
              f"{' '.join(players)}{winners}")
    for problem in unreadable:
        print(f"{store.path}: {problem}; the companion sets it aside at its next start",
              file=sys.stderr)
    return EXIT_ILLEGAL if unreadable else 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write a stored game as its record, or its summary JSON.

    A game whose stored lines no longer replay (a damaged value) is written up to its last
    good entry, with ``WHERE:LINE: reason`` naming the first bad one, and exit 1; ``--raw``
    writes every stored line as it is, unchecked.
    """
    from companion.export import export

    store = reading_store(args)
    if args.bgstats or args.bgsplay:
        return export_plays(args, store)
    if len(args.game) > 1:
        print("export takes one game (several only with --bgsplay)", file=sys.stderr)
        return EXIT_CONFIG
    gid = game_number(store, args.game[0] if args.game else "latest")
    if gid < 0:
        return -gid
    exported = export(store, gid, raw=args.raw)
    if exported is None:
        print(f"no stored game number {gid}", file=sys.stderr)
        return EXIT_ILLEGAL
    data = exported.raw if args.raw else (
        json.dumps(exported.summary or {}) + "\n" if args.summary else exported.record).encode()
    write_export(args, store, data)
    if exported.problem and not args.raw:
        where = args.output or f"game {gid}"
        print(f"{where}:{exported.line}: {exported.problem}", file=sys.stderr)
        return EXIT_ILLEGAL
    return 0


def game_number(store: Any, word: str) -> int:
    """The stored game ``word`` names ("latest", or its number); minus the exit code, after
    its line on standard error, when it names none."""
    if word == "latest":
        rows, unreadable = store.readable_games(limit=1)  # the latest that can be read
        for problem in unreadable:
            print(f"{store.path}: {problem}", file=sys.stderr)
        if not rows:
            print("no games stored yet", file=sys.stderr)
            return -EXIT_ILLEGAL
        return int(rows[0].id)
    try:
        return whole_number(word, "a game number")
    except IllegalLine:
        print(f"export takes 'latest' or a game number from 'companion games', "
              f"not {shown(word)}", file=sys.stderr)
        return -EXIT_CONFIG


def export_plays(args: argparse.Namespace, store: Any) -> int:
    """``--bgstats``: one finished game as BG Stats' push-play JSON; ``--bgsplay``: one or
    more (``all``: every finished one) as BG Stats' share file. A game BG Stats cannot take
    (not finished, damaged) is one line and exit 1."""
    from companion.bgstats import every_play, push_data, read_play, share_file

    words = args.game or ["latest"]
    if args.bgstats and len(words) > 1:
        print("--bgstats takes one game; --bgsplay takes several", file=sys.stderr)
        return EXIT_CONFIG
    problems: list[str] = []
    if args.bgsplay and words == ["all"]:  # every one that reads back; the others named
        plays, problems = every_play(store)
        if not plays:  # an empty file would import as nothing, dated 1970: say so instead
            print(*problems, "no finished games to export", sep="\n", file=sys.stderr)
            return EXIT_ILLEGAL
    else:
        gids = [game_number(store, word) for word in words]
        if any(gid < 0 for gid in gids):
            return -min(gids)
        try:
            plays = [read_play(store, gid) for gid in gids]
        except NotAPlay as err:
            print(err, file=sys.stderr)
            return EXIT_ILLEGAL
    data = push_data(plays[0]) if args.bgstats else share_file(plays)
    write_export(args, store, (json.dumps(data, ensure_ascii=False) + "\n").encode())
    for problem in problems:
        print(problem, file=sys.stderr)
    return EXIT_ILLEGAL if problems else 0


def write_export(args: argparse.Namespace, store: Any, data: bytes) -> None:
    """What export made, to ``--output`` (never over the store or a copy of it, one line
    for a path that cannot be written) or to standard output: one way for every form."""
    if args.output:
        from companion.options import write_output

        write_output("--output", args.output, data,
                     spare=[store.path, f"{store.path}-wal", f"{store.path}-shm"])
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


def cmd_import(args: argparse.Namespace) -> int:
    """Store a record as a game (finished or not) and print its number; an illegal record
    is ``FILE:LINE: reason`` and exit 1, a file that is no record one line and exit 2, and
    either way nothing is stored. The store is the one ``games`` and ``export`` read (the
    box's, where the service is installed), opened only once the record replayed whole."""
    from companion.config import load
    from companion.importer import import_stream
    from companion.statedir import locate, prepare
    from companion.store import Store

    def store() -> Store:
        where = locate(args.state, load(config_path(args.config)).store, reading=True)
        prepare(where.directory, where.store)
        refuse_foreign(where.store)
        return Store(where.store)

    gid, code = read_record(args.file, lambda stream: import_stream(stream, store))
    if gid is None:
        return code
    print(gid)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    """Who plays and wins each game, and each game's dice against a fair die's, as text or
    as one JSON object (what History > Players and Dice show on the box)."""
    from companion.clock import UNSURE_WORDS, shown_time
    from companion.stats import as_json, as_text, dice, players

    store = reading_store(args)
    records, tallies = players(store), dice(store)
    if args.json:
        print(json.dumps(as_json(records, tallies)))
    else:  # a date of an unset clock marked in words, as `companion games` marks it
        sys.stdout.write(as_text(records, tallies, lambda when, synced: shown_time(when, synced, f" {UNSURE_WORDS}")))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """The benchmark (imports its machinery only when asked for), its flags checked first:
    a mistake in one is found before a minute of work, not after."""
    from companion.options import folder, seconds

    args.idle = seconds("--idle", args.idle)
    if args.dir is not None:
        args.dir = folder("--dir", args.dir)
    from companion.bench import cmd_bench as bench

    return bench(args)


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check everything between a fresh Pi and a working box; 1 when a check fails."""
    from companion.doctor import FAIL, Machine, diagnose, printed

    findings = diagnose(Machine(), config_path(args.config), args.state)
    sys.stdout.write(printed(findings))
    return 1 if any(finding.status == FAIL for finding in findings) else 0


# --- run ---


def cmd_run(args: argparse.Namespace) -> int:
    """Start the daemon."""
    from companion.config import load
    from companion.runner import run
    from companion.statedir import locate

    config = load(config_path(args.config))
    where = locate(args.state, config.store, reading=False)
    return run(config, where.directory, where.store, args)


def build_parser() -> argparse.ArgumentParser:
    """All sub-commands and their flags."""
    import argparse

    parser = argparse.ArgumentParser(prog="companion", description="A board-game companion box.")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(command: argparse.ArgumentParser) -> None:
        command.add_argument("--config", help=f"configuration file (default {SYSTEM_CONFIG} if present)")
        command.add_argument("--state", help="state directory (default $STATE_DIRECTORY, else for "
                                             "games/export /var/lib/companion where the service "
                                             "is installed, else ~/.local/state/companion)")

    run = sub.add_parser("run", help="run the companion (terminal emulator in a terminal)")
    common(run)
    run.add_argument("--display", help="luma.core display flags, overriding the config file")
    run.add_argument("--emulator", choices=("terminal", "pygame", "capture", "none"),
                     help="emulate the screen: terminal (default in a terminal), a pygame window, "
                          "PNG capture, or none (headless)")
    run.add_argument("--capture-dir", default="captures", help="where capture mode writes PNGs")
    run.add_argument("--keys", help="scripted presses (e.g. 'down select roll'), then stop")
    run.set_defaults(func=cmd_run)

    replay = sub.add_parser("replay", help="replay a game record and print its summary JSON")
    replay.add_argument("file", help="the record file, or - for standard input")
    replay.set_defaults(func=cmd_replay, logs=False)  # it logs nothing, and starts at once

    games = sub.add_parser("games", help="list the stored games")
    common(games)
    games.add_argument("--limit", default="50", help=f"list at most this many (1-{MOST_LISTED:,}; 50)")
    games.set_defaults(func=cmd_games)

    bench = sub.add_parser("bench", help="measure bytes on the display bus, latency, start-up, "
                                         "memory, idle CPU and replay speed")
    bench.add_argument("--idle", default="10", help="seconds of idle to measure (10)")
    bench.add_argument("--dir", help="where the scratch store goes (default: the system's temp dir)")
    bench.add_argument("--quick", action="store_true",
                       help="only start to first frame and replay against the reference engine")
    bench.set_defaults(func=cmd_bench)

    doctor = sub.add_parser("doctor", help="check the display bus, keys, permissions, serial "
                                           "ports, store, service and Python: ok, warn or fail "
                                           "and the fix")
    common(doctor)
    doctor.set_defaults(func=cmd_doctor)

    export = sub.add_parser("export", help="write a stored game as a record (or its summary)")
    common(export)
    export.add_argument("game", nargs="*", help="'latest' (the default) or a number from 'companion games'; "
                                                "with --bgsplay several, or 'all'")
    kind = export.add_mutually_exclusive_group()
    kind.add_argument("--summary", action="store_true", help="the summary JSON instead of the record")
    kind.add_argument("--raw", action="store_true",
                      help="every stored line as it is, undone entries too, without replaying")
    kind.add_argument("--bgstats", action="store_true",
                      help="a finished game as BG Stats' push-play JSON (the data of its createPlay link)")
    kind.add_argument("--bgsplay", action="store_true",
                      help="finished games as BG Stats' share file (.bgsplay), with a stable uuid per play")
    export.add_argument("-o", "--output", help="write to this file instead of standard output")
    export.set_defaults(func=cmd_export)

    load = sub.add_parser("import", help="store a game record as a game (finished or not) and "
                                         "print its number; an unfinished one can be resumed on the box")
    common(load)
    load.add_argument("file", help="the record file, or - for standard input")
    load.set_defaults(func=cmd_import)

    stats = sub.add_parser("stats", help="plays, wins and last played for each player and game, and "
                                         "each game's dice against a fair die's (chi-square)")
    common(stats)
    stats.add_argument("--json", action="store_true", help="one JSON object instead of text")
    stats.set_defaults(func=cmd_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script: bad configuration is one line and exit 2; output
    cut short by its reader (``companion replay big.rec | head -c 100``) ends quietly."""
    try:
        try:
            return run_command(argv)
        finally:  # buffered output is written here, where a broken pipe can still be caught
            sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE


def replay_only(argv: Sequence[str]) -> str | None:
    """The file of a plain ``replay FILE``, which runs without building the parser (a
    start-up trick, docs/startup.md). Anything else (a flag, a missing or extra word) goes
    through the parser, so its refusals and help are unchanged.

    >>> replay_only(["replay", "game.record"]), replay_only(["replay", "-"])
    ('game.record', '-')
    >>> replay_only(["replay", "--help"]), replay_only(["replay"]), replay_only(["games"])
    (None, None, None)
    """
    if len(argv) == 2 and argv[0] == "replay" and (argv[1] == "-" or not argv[1].startswith("-")):
        return argv[1]
    return None


def run_command(argv: Sequence[str] | None) -> int:
    """Parse the arguments and run the command."""
    words = sys.argv[1:] if argv is None else list(argv)
    quick = replay_only(words)
    if quick is None:
        args = build_parser().parse_args(words)
        if getattr(args, "logs", True):
            import logging

            logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    stopped_by = signal.SIGINT

    def terminate(signum: int, frame: object) -> None:
        """SIGTERM, taken as Ctrl-C is (the same clean way out), told apart for the status."""
        nonlocal stopped_by
        stopped_by = signal.Signals(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    try:
        return replay(quick) if quick is not None else int(args.func(args))
    except KeyboardInterrupt:
        # The daemon's clean stop (systemd stops it with SIGTERM); any other command was
        # cut short, and says so as a shell does for a program a signal stopped: a script
        # that goes on after `companion import game.record` must not take it for done.
        if quick is None and args.func is cmd_run:
            return 0
        return 128 + stopped_by
    except Exception as err:
        code = exit_code(err)
        if code is None:
            raise
        return code


def exit_code(err: Exception) -> int | None:
    """The exit for a failure every command may meet, after its one line; None for any other.

    The error classes come from :mod:`companion.exc`, so that ``companion replay`` loads none
    of the configuration, state directory and store modules it never uses.
    """
    if isinstance(err, ConfigError):
        print(err, file=sys.stderr)
        return EXIT_CONFIG
    if isinstance(err, StateUnavailable):
        print(err, file=sys.stderr)
        return EXIT_RETRY
    sqlite3 = sys.modules.get("sqlite3")  # loaded by whatever raised a store's error
    if sqlite3 is not None and isinstance(err, sqlite3.DatabaseError):  # locked, full, failing: may pass
        print(f"store: {err}", file=sys.stderr)
        return EXIT_RETRY
    return None


def silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush on exit finds
    nowhere broken to write (and prints no 'Exception ignored' lines)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's StringIO)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
