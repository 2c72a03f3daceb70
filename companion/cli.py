"""The ``companion`` command: run, replay, export."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from companion.record import RecordError, UnreadableRecord, replay_bytes, summary

EXIT_ILLEGAL = 1
EXIT_UNREADABLE = 2


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a record; print its summary, or ``FILE:LINE: reason``."""
    name = args.file
    try:
        data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
    except OSError as err:
        print(f"{name}: cannot read: {err.strerror}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        replayed = replay_bytes(data)
    except UnreadableRecord as err:
        print(f"{name}: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    except RecordError as err:
        print(f"{name}:{err.line}: {err.reason}", file=sys.stderr)
        return EXIT_ILLEGAL
    print(json.dumps(summary(replayed)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """All sub-commands and their flags."""
    parser = argparse.ArgumentParser(prog="companion", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="replay a game record and print its summary JSON")
    replay.add_argument("file", help="the record file, or - for standard input")
    replay.set_defaults(func=cmd_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
