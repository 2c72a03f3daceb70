"""Finished games for BG Stats, the play-logging app: its push-play data and its share file.

Two forms, as BG Stats publishes and writes them (docs/bgstats.md cites the sources):

- **push-play data**: one JSON object per play, the ``data`` of a
  ``https://app.bgstatsapp.com/createPlay.html?data=...`` link. Tapping the link opens the
  app's import dialog with the play filled in, the game and players matched by their BGG
  id, name and ``source...Id`` (matches the user makes are remembered per source).
- **the share file** (``.bgsplay``): BG Stats' own JSON of games, players, a location and
  plays, each with a ``uuid``, for one play or many. Importing a play whose uuid BG Stats
  already holds updates it instead of adding it again, so every id here is stable: the
  same game gives the same uuids however often it is exported.

A seat the companion played is the player "Companion", marked as BG Stats marks a
non-player (``metaData.isNpc`` in the share file; in push data, which has no such field, by
its own ``sourcePlayerId``, which BG Stats remembers once the user marks it non-player).
Times are UTC. The start player is the seat of the record's first player line.
"""

from __future__ import annotations

import datetime
import json
import threading
import urllib.parse
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.ai import seats_of
from companion.exc import NotAPlay
from companion.export import export
from companion.games import KITS, title
from companion.games.base import TABLE, Summary
from companion.stats import finished_games
from companion.store import GameRow, Store

SOURCE = "companion"
PUSH_URL = "https://app.bgstatsapp.com/createPlay.html?data="
COMPANION = "Companion"
COMPANION_ID = "companion:box"  # ':' is in no player's name: it names no person
#: Every uuid here is made from this one and a name (RFC 4122 version 5): stable, and
#: different from any other program's.
NAMESPACE = uuid.UUID("3e1252bd-4ff9-4648-907e-c52276b358b7")
ABOUT = "Plays exported by the companion, a board-game box, for BG Stats"


@dataclass(frozen=True)
class Seat:
    """One seat of a finished game as BG Stats sees it."""

    name: str  # the name on the record (the companion's seat: the seat's name)
    player: str  # who sat there, as BG Stats is to know them
    source_id: str  # how BG Stats tells them from others (``sourcePlayerId``)
    companion: bool
    score: int | None
    winner: bool
    start: bool
    rank: int | None


@dataclass(frozen=True)
class Play:
    """A finished stored game, read for BG Stats."""

    row: GameRow
    options: tuple[tuple[str, str], ...]
    seats: tuple[Seat, ...]
    points: bool

    @property
    def game(self) -> str:
        return self.row.game

    @property
    def uuid(self) -> str:
        """The play's own id: the same for this stored game every time, and another box's
        game 12 is another play (it was made at another moment, with its own header)."""
        return str(uuid.uuid5(NAMESPACE, f"play:{self.row.id}:{self.row.created!r}:{'|'.join(self.row.header)}"))

    @property
    def date(self) -> str:
        """When the game ended (its last change), UTC, as BG Stats writes dates."""
        return stamp(self.row.updated)

    @property
    def minutes(self) -> int:
        """The game's length; 0 (none) when the clock was set or lost in between (a Pi keeps
        no time when off: the jump would count as play) or ran backwards."""
        row = self.row
        if row.created_synced != row.updated_synced:
            return 0
        return max(0, round((row.updated - row.created) / 60))

    @property
    def board(self) -> str:
        """The options, as the record sets them ("" for the defaults)."""
        return ", ".join(f"{key} {value}" for key, value in self.options)

    @property
    def comments(self) -> str:
        row = self.row
        said = f"Logged on the companion box: game {row.id}, {row.head} entries."
        if not (row.created_synced and row.updated_synced):
            said += " The box's clock was not set: the date and length may be wrong."
        return said


def stamp(when: float) -> str:
    """``2020-10-23 19:16:58``: BG Stats' date form, in UTC."""
    return datetime.datetime.fromtimestamp(when, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


def bgg_id(game: str) -> int:
    """The game's BoardGameGeek id, 0 when none is known."""
    kit = KITS.get(game)
    return kit.bgg if kit else 0


def read_play(store: Store, gid: int) -> Play:
    """Stored game ``gid`` as a play; NotAPlay when it cannot be one."""
    try:
        row = store.game(gid)
    except KeyError:
        raise NotAPlay(f"no stored game number {gid}") from None
    if row.status != "over":
        raise NotAPlay(f"game {gid} is not finished: BG Stats logs finished plays")
    exported = export(store, gid)
    if exported is None or exported.summary is None or exported.problem:
        raise NotAPlay(f"game {gid} cannot be read back whole ({exported.problem if exported else 'gone'})")
    summary = exported.summary
    header = exported.record.splitlines()
    options = tuple((line.split()[1], line.split()[2]) for line in header if line.startswith("option "))
    return Play(row, options, seats(summary, seats_of(row.header), first_player(store, gid, summary)),
                "scores" in summary)


def every_play(store: Store) -> tuple[list[Play], list[str]]:
    """Every finished game as a play, newest first, and why any could not be one (a game
    that no longer reads back whole is left out, not the others with it)."""
    plays, problems = [], []
    for row in finished_games(store):  # (a row that cannot be read at all is left out there)
        try:
            plays.append(read_play(store, row.id))
        except NotAPlay as err:
            problems.append(str(err))
    return plays, problems


def first_player(store: Store, gid: int, summary: Summary) -> str:
    """The player of the record's first line that a player logs: who started."""
    players = summary["players"]
    done, head = 0, store.game(gid).head
    while done < head:
        entries = store.entries(gid, min(head, done + 64), done + 1)
        if not entries:
            break
        for entry in entries:
            for line in entry.lines:
                actor = line.split(" ", 1)[0]
                if actor != TABLE and actor in players:
                    return actor
            done = entry.seq
    return players[0]


def seats(summary: Summary, companion: Sequence[str], start: str) -> tuple[Seat, ...]:
    """Each seat's score, win, start and rank. A game with points ranks its players by
    winning first, then by score (equal places share a rank, as in a standings table)."""
    scores: dict[str, int] | None = summary.get("scores")  # type: ignore[assignment]
    winners = set(summary["winners"])

    def key(name: str) -> tuple[bool, int]:
        return (name not in winners, -(scores or {}).get(name, 0))

    out = []
    for name in summary["players"]:
        rank = 1 + sum(key(other) < key(name) for other in summary["players"]) if scores is not None else None
        player, source_id = name, name
        if name in companion:  # one companion, or (a record may say so) several told apart
            player, source_id = ((COMPANION, COMPANION_ID) if len(companion) == 1
                                 else (f"{COMPANION} {name}", f"{COMPANION_ID}:{name}"))
        out.append(Seat(name, player, source_id, name in companion,
                        scores.get(name, 0) if scores is not None else None, name in winners, name == start, rank))
    return tuple(out)


# --- the push-play data ---


def push_data(play: Play) -> dict[str, Any]:
    """The ``data`` object of BG Stats' createPlay link for this play."""
    game: dict[str, Any] = {"name": title(play.game), "sourceGameId": play.game}
    if bgg_id(play.game):
        game["bggId"] = bgg_id(play.game)
    game.update(highestWins=True, noPoints=not play.points)
    players = []
    for seat in play.seats:
        player: dict[str, Any] = {"name": seat.player, "sourcePlayerId": seat.source_id}
        if seat.score is not None:
            player["score"] = seat.score
        player.update(winner=seat.winner, startPlayer=seat.start)
        if seat.rank is not None:
            player["rank"] = seat.rank
        player["role"] = f"{seat.name}'s seat" if seat.companion else ""
        players.append(player)
    return {"sourceName": SOURCE, "sourcePlayId": play.uuid, "playDate": play.date,
            "durationMin": play.minutes, "game": game, "players": players,
            "board": play.board, "comments": play.comments}


def push_link(play: Play) -> str:
    """The link that opens BG Stats with this play to import (on a phone with the app)."""
    data = json.dumps(push_data(play), separators=(",", ":"), ensure_ascii=False)
    return PUSH_URL + urllib.parse.quote(data, safe="")


# --- the share file ---


def share_file(plays: Sequence[Play]) -> dict[str, Any]:
    """BG Stats' share file (``.bgsplay``) for these plays: their games, players and one
    location (the box), each with a stable uuid, referred to by ids within the file. A
    play named twice is in it once: a uuid is one play to BG Stats."""
    plays = list({play.uuid: play for play in plays}.values())
    games = {game: number for number, game in enumerate(dict.fromkeys(p.game for p in plays), start=1)}
    people: dict[str, int] = {}
    for play in plays:
        for seat in play.seats:
            people.setdefault(seat.source_id, len(people) + 1)
    newest = stamp(max((p.row.updated for p in plays), default=0))
    names = {seat.source_id: seat.player for play in plays for seat in play.seats}
    return {
        "about": ABOUT,
        "players": [{"id": number, "uuid": name_uuid("player", source_id), "name": names[source_id],
                     "isAnonymous": False, "modificationDate": newest,
                     "metaData": {"isNpc": int(source_id.startswith(COMPANION_ID))}}
                    for source_id, number in people.items()],
        "locations": [{"id": 1, "uuid": name_uuid("location", SOURCE), "name": SOURCE, "modificationDate": newest}],
        "games": [game_entry(game, number, newest, any(p.points for p in plays if p.game == game))
                  for game, number in games.items()],
        "plays": [{"uuid": play.uuid, "modificationDate": play.date, "entryDate": play.date,
                   "playDate": play.date, "usesTeams": False, "durationMin": play.minutes, "ignored": False,
                   "manualWinner": False, "rounds": 0, "locationRefId": 1, "gameRefId": games[play.game],
                   "board": play.board, "comments": play.comments, "rating": 0, "scoringSetting": 0,
                   "playerScores": [{"score": "" if seat.score is None else str(seat.score), "winner": seat.winner,
                                     "newPlayer": False, "startPlayer": seat.start,
                                     "playerRefId": people[seat.source_id],
                                     "role": f"{seat.name}'s seat" if seat.companion else "",
                                     "rank": seat.rank or 0, "seatOrder": 0} for seat in play.seats],
                   "expansionPlays": []} for play in plays],
        "userInfo": {"meRefId": 0},  # the box is nobody's own phone: no player is "me"
    }


def game_entry(game: str, number: int, when: str, points: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": number, "uuid": name_uuid("game", game), "name": title(game),
                             "modificationDate": when, "cooperative": False, "highestWins": True,
                             "noPoints": not points, "usesTeams": False}
    if bgg_id(game):
        entry["bggId"] = bgg_id(game)
    return entry


def name_uuid(kind: str, name: str) -> str:
    """The stable uuid of a game, player or location named ``name``."""
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{name}"))


class PushLinks:
    """Each finished game's push link, kept with the store's mark of its last change (a
    History page lists many; each is worked out once). Bounded; safe between threads."""

    KEEP = 512

    def __init__(self) -> None:
        self._links: OrderedDict[int, tuple[int, str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def link(self, store: Store, row: GameRow) -> str | None:
        """The game's push link; None when BG Stats cannot take it (not finished, damaged)."""
        with self._lock:
            kept = self._links.get(row.id)
        if kept is None or kept[0] != row.touched:
            try:
                kept = (row.touched, push_link(read_play(store, row.id)))
            except NotAPlay:
                kept = (row.touched, None)
            with self._lock:
                self._links[row.id] = kept
                while len(self._links) > self.KEEP:
                    self._links.popitem(last=False)
        return kept[1]
