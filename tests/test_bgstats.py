"""Finished games for BG Stats (issue 28 §2): ``companion export N --bgstats`` writes the
push-play data of its createPlay link, ``--bgsplay`` its share file, both checked field by
field against the formats BG Stats publishes (docs/bgstats.md cites them), with the types
of their published examples.
"""

from __future__ import annotations

import io
import json
import pathlib
import re
import urllib.parse
from typing import Any

import pytest

from companion.ai import seat_line
from companion.bgstats import COMPANION, push_data, push_link, read_play, share_file, stamp
from companion.cli import main
from companion.exc import NotAPlay
from companion.games import KITS
from companion.importer import import_stream
from companion.record import replay_text, summary
from companion.store import Store, sum_all

GOLDEN = pathlib.Path(__file__).parent / "golden"
FINISHED = sorted(p for p in GOLDEN.glob("*/*.record")
                  if p.with_suffix(".json").exists() and summary(replay_text(p.read_text()))["over"])
DATE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")

# The push-play format's fields and their types, as BG Stats' own example writes them
# (score may be a whole number; bggId and rank only where there is one).
PUSH: dict[str, Any] = {"sourceName": str, "sourcePlayId": str, "playDate": str, "durationMin": int,
                        "game": dict, "players": list, "board": str, "comments": str}
PUSH_GAME = {"name": str, "sourceGameId": str, "highestWins": bool, "noPoints": bool}
PUSH_PLAYER = {"name": str, "sourcePlayerId": str, "winner": bool, "startPlayer": bool, "role": str}
# The share file's, as BG Stats' exports write them.
SHARE = {"players": list, "locations": list, "games": list, "plays": list, "userInfo": dict}
SHARE_PLAYER = {"id": int, "uuid": str, "name": str, "isAnonymous": bool, "modificationDate": str, "metaData": dict}
SHARE_LOCATION = {"id": int, "uuid": str, "name": str, "modificationDate": str}
SHARE_GAME = {"id": int, "uuid": str, "name": str, "modificationDate": str, "cooperative": bool,
              "highestWins": bool, "noPoints": bool, "usesTeams": bool}
SHARE_PLAY = {"uuid": str, "modificationDate": str, "entryDate": str, "playDate": str, "usesTeams": bool,
              "durationMin": int, "ignored": bool, "manualWinner": bool, "rounds": int, "locationRefId": int,
              "gameRefId": int, "board": str, "scoringSetting": int, "playerScores": list, "expansionPlays": list}
SHARE_SCORE = {"score": str, "winner": bool, "newPlayer": bool, "startPlayer": bool, "playerRefId": int,
               "role": str, "rank": int, "seatOrder": int}


def typed(found: dict[str, Any], fields: dict[str, Any]) -> None:
    """Every field there, of its type (a bool is not taken for a number)."""
    for key, kind in fields.items():
        assert key in found, key
        value = found[key]
        assert isinstance(value, kind) and (kind is bool or not isinstance(value, bool)), (key, value)


def stored(store: Store, record: pathlib.Path, extra: str = "") -> int:
    text = record.read_text()
    if extra:
        lines = text.splitlines()
        players = next(i for i, line in enumerate(lines) if line.startswith("players"))
        text = "\n".join([*lines[:players + 1], extra, *lines[players + 1:]]) + "\n"
    return import_stream(io.BytesIO(text.encode()), lambda: Store(store.path))


@pytest.mark.parametrize("record", FINISHED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_push_data_has_every_field_of_the_published_format(store: Store, record: pathlib.Path) -> None:
    gid = stored(store, record)
    data = push_data(read_play(store, gid))
    typed(data, PUSH)
    assert data["sourceName"] == "companion"
    assert DATE.fullmatch(data["playDate"]) and data["playDate"] == stamp(store.game(gid).updated)
    assert data["durationMin"] >= 0
    game = data["game"]
    typed(game, PUSH_GAME)
    replayed = replay_text(record.read_text())
    facts = summary(replayed)
    assert game["sourceGameId"] == facts["game"] and game["name"] == replayed.header.game.title
    assert game.get("bggId", None) == (KITS[facts["game"]].bgg or None)
    assert game["noPoints"] == ("scores" not in facts) and game["highestWins"] is True
    assert data["board"] == ", ".join(f"{k} {v}" for k, v in replayed.header.options)
    players = data["players"]
    assert [p["name"] for p in players] == facts["players"]
    assert [p["sourcePlayerId"] for p in players] == facts["players"]
    for player in players:
        typed(player, PUSH_PLAYER)
        assert player["winner"] == (player["name"] in facts["winners"])
        if "scores" in facts:
            assert player["score"] == facts["scores"][player["name"]]  # type: ignore[typeddict-item]
            assert isinstance(player["rank"], int) and player["rank"] >= 1
        else:
            assert "score" not in player and "rank" not in player
    assert sum(p["startPlayer"] for p in players) == 1  # BG Stats refuses a play without one
    if "scores" in facts:
        assert all(p["rank"] == 1 for p in players if p["winner"])
        assert sorted(p["rank"] for p in players)[0] == 1


def test_the_start_player_is_who_logged_first(store: Store) -> None:
    gid = stored(store, GOLDEN / "gleebs-and-grues" / "bob-first-no-stack.record")
    players = push_data(read_play(store, gid))["players"]
    assert [p["name"] for p in players if p["startPlayer"]] == ["Bob"]  # option first Bob
    gid = stored(store, GOLDEN / "microbot-racers" / "lap-win.record")
    players = push_data(read_play(store, gid))["players"]
    assert [p["name"] for p in players if p["startPlayer"]] == ["Bob"]  # the first turn's P1


def test_ranks_follow_the_score_and_a_tie_shares_a_place(store: Store) -> None:
    gid = stored(store, GOLDEN / "penguin-panic" / "three-players-tie.record")
    facts = summary(replay_text((GOLDEN / "penguin-panic" / "three-players-tie.record").read_text()))
    ranks = {p["name"]: p["rank"] for p in push_data(read_play(store, gid))["players"]}
    (winner,) = facts["winners"]
    assert ranks[winner] == 1
    scores = facts["scores"]  # type: ignore[typeddict-item]
    others = sorted((n for n in ranks if n != winner), key=lambda n: -scores[n])
    assert [ranks[n] for n in others] == sorted(ranks[n] for n in others)


def test_the_play_id_is_the_same_each_time_and_differs_between_games(tmp_path: pathlib.Path) -> None:
    first, second = Store(str(tmp_path / "a.sqlite")), Store(str(tmp_path / "b.sqlite"))
    record = GOLDEN / "microbot-racers" / "draw.record"
    a = stored(first, record)
    again = stored(first, record)
    elsewhere = stored(second, record)  # another box's game number 1
    ids = [push_data(read_play(store, gid))["sourcePlayId"] for store, gid in
           ((first, a), (first, a), (first, again), (second, elsewhere))]
    assert ids[0] == ids[1] and len(set(ids)) == 3
    assert share_file([read_play(first, a)]) == share_file([read_play(first, a)])
    first.close()
    second.close()


def test_the_companions_seat_is_a_non_player(store: Store) -> None:
    gid = stored(store, GOLDEN / "gleebs-and-grues" / "grues-win-tie.record", seat_line("Bob"))
    play = read_play(store, gid)
    pushed = push_data(play)["players"]
    assert [p["name"] for p in pushed] == ["Ann", COMPANION]
    assert pushed[1]["sourcePlayerId"] != "Bob" and pushed[1]["role"] == "Bob's seat"
    shared = share_file([play])
    npc = {p["name"]: p["metaData"]["isNpc"] for p in shared["players"]}
    assert npc == {"Ann": 0, COMPANION: 1}


def test_the_push_link_carries_the_data_and_opens_bg_stats(store: Store) -> None:
    gid = stored(store, GOLDEN / "quick-lemmings" / "water-race.record")
    play = read_play(store, gid)
    link = push_link(play)
    assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    data = json.loads(urllib.parse.unquote(link.split("?data=", 1)[1]))
    assert data == push_data(play)
    assert data["game"]["bggId"] == 153004  # Lemminge on BoardGameGeek


def test_the_share_file_has_every_field_and_its_references_hold(store: Store) -> None:
    plays = [read_play(store, stored(store, record)) for record in FINISHED]
    shared = share_file(plays)
    typed(shared, SHARE)
    for player in shared["players"]:
        typed(player, SHARE_PLAYER)
    for location in shared["locations"]:
        typed(location, SHARE_LOCATION)
    for game in shared["games"]:
        typed(game, SHARE_GAME)
    people = {p["id"] for p in shared["players"]}
    assert len(people) == len({p["name"] for p in shared["players"]}) == len(shared["players"])
    games = {g["id"] for g in shared["games"]}
    assert len(games) == len({g["uuid"] for g in shared["games"]}) == len({p.game for p in plays})
    assert len({p["uuid"] for p in shared["plays"]}) == len(plays)
    for play in shared["plays"]:
        typed(play, SHARE_PLAY)
        assert all(DATE.fullmatch(play[k]) for k in ("modificationDate", "entryDate", "playDate"))
        assert play["gameRefId"] in games and play["locationRefId"] == shared["locations"][0]["id"]
        for score in play["playerScores"]:
            typed(score, SHARE_SCORE)
            assert score["playerRefId"] in people
        assert sum(s["startPlayer"] for s in play["playerScores"]) == 1
    assert isinstance(shared["userInfo"]["meRefId"], int)


def test_the_command_writes_both_forms_and_refuses_an_unfinished_game(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    for record in ("microbot-racers/draw", "leaf-climbers/mid-round", "penguin-panic/two-players-full"):
        assert main(["import", str(GOLDEN / f"{record}.record"), "--state", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["export", "1", "--bgstats", "--state", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["sourceName"] == "companion"
    assert main(["export", "2", "--bgstats", "--state", str(tmp_path)]) == 1
    assert "not finished" in capsys.readouterr().err
    out = tmp_path / "plays.bgsplay"
    assert main(["export", "1", "3", "--bgsplay", "-o", str(out), "--state", str(tmp_path)]) == 0
    assert len(json.loads(out.read_text())["plays"]) == 2
    assert main(["export", "all", "--bgsplay", "--state", str(tmp_path)]) == 0
    assert len(json.loads(capsys.readouterr().out)["plays"]) == 2  # the finished ones
    assert main(["export", "1", "3", "--bgstats", "--state", str(tmp_path)]) == 2
    assert main(["export", "9", "--bgstats", "--state", str(tmp_path)]) == 1


def test_an_unfinished_game_is_no_play(store: Store) -> None:
    gid = stored(store, GOLDEN / "leaf-climbers" / "mid-round.record")
    with pytest.raises(NotAPlay):
        read_play(store, gid)


@pytest.mark.parametrize("form", ["--bgstats", "--bgsplay"])
def test_plays_are_never_written_over_the_store_and_a_bad_output_is_one_line(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], form: str) -> None:
    """Review of issue 28: ``export N --bgstats -o companion.sqlite`` wrote the JSON over the
    store (every game gone), and ``-o DIRECTORY`` or ``-o MISSING/x`` ended in a traceback:
    the plays took none of the care ``export -o`` takes."""
    assert main(["import", str(GOLDEN / "microbot-racers" / "draw.record"), "--state", str(tmp_path)]) == 0
    store_file = tmp_path / "companion.sqlite"
    kept = store_file.read_bytes()
    capsys.readouterr()
    for output in (store_file, tmp_path, tmp_path / "nowhere" / "plays.json"):
        assert main(["export", "1", form, "-o", str(output), "--state", str(tmp_path)]) == 2
        (said,) = capsys.readouterr().err.splitlines()
        assert said.startswith("--output: ")
    assert store_file.read_bytes() == kept
    out = tmp_path / "play.json"
    assert main(["export", "1", form, "-o", str(out), "--state", str(tmp_path)]) == 0
    assert json.loads(out.read_text())


@pytest.mark.parametrize(("created_synced", "updated_synced", "minutes"), [
    (True, True, 90), (False, False, 90),  # one clock all along: its length holds
    (False, True, 0), (True, False, 0),  # the clock was set (or lost) in between: unknown
])
def test_a_game_the_clock_jumped_in_has_no_length(
        store: Store, created_synced: bool, updated_synced: bool, minutes: int) -> None:
    """Review of issue 28: a Pi keeps no time when off; a game begun before the network set
    the clock and ended after went to BG Stats as long as the jump (a week off: a play of
    10,080 minutes). A length measured across a change of clock is none (0, as an import's)."""
    gid = stored(store, GOLDEN / "microbot-racers" / "draw.record")
    store.db.execute("UPDATE games SET created = updated - 90 * 60 - ?, created_synced = ?, updated_synced = ?"
                     " WHERE id = ?", (0 if created_synced == updated_synced else 7 * 86400,
                                       created_synced, updated_synced, gid))
    sum_all(store.db)  # a game stored so, not damage: its row's checksum as it now reads
    assert push_data(read_play(store, gid))["durationMin"] == minutes


def test_every_finished_game_that_reads_back_goes_in_all_and_a_damaged_one_is_named(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Review of issue 28: one finished game whose stored lines no longer replay (a damaged
    card) made ``export all --bgsplay`` write nothing, and the phone's "All finished games"
    file a 404: the others were lost with it. They go in; the damaged one is named (exit 1,
    as ``companion games`` does for a game it cannot read)."""
    for record in ("microbot-racers/draw", "penguin-panic/two-players-full", "microbot-racers/lap-win"):
        assert main(["import", str(GOLDEN / f"{record}.record"), "--state", str(tmp_path)]) == 0
    store = Store(str(tmp_path / "companion.sqlite"))
    store.db.execute("UPDATE entries SET lines = 'Ann fly' WHERE game = 2 AND seq = 3")
    store.close()
    capsys.readouterr()
    assert main(["export", "all", "--bgsplay", "--state", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert len(json.loads(out.out)["plays"]) == 2
    (said,) = out.err.splitlines()
    assert said.startswith("game 2 ")


@pytest.mark.parametrize("games", [["1", "1"], ["1", "latest"], ["2", "1", "2"]])
def test_a_game_named_twice_is_one_play_in_the_file(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], games: list[str]) -> None:
    """Review of issue 28: ``export 1 1 --bgsplay`` (or ``1 latest`` when 1 is the latest)
    wrote the same play twice, two plays with one uuid in one file: BG Stats takes a uuid
    for one play, and what it makes of the second is its own guess."""
    for record in ("microbot-racers/draw", "microbot-racers/lap-win"):
        assert main(["import", str(GOLDEN / f"{record}.record"), "--state", str(tmp_path)]) == 0
    store = Store(str(tmp_path / "companion.sqlite"))
    store.db.execute("UPDATE games SET touched = 0 WHERE id = 2")  # 1 is the latest
    sum_all(store.db)  # stored so, not damage
    store.close()
    capsys.readouterr()
    assert main(["export", *games, "--bgsplay", "--state", str(tmp_path)]) == 0
    plays = json.loads(capsys.readouterr().out)["plays"]
    assert len(plays) == len({p["uuid"] for p in plays}) == len(set(games) - {"latest"} | {"1"})


def test_all_with_no_finished_game_is_one_line_and_no_file(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Review of issue 28: ``export all --bgsplay`` with no finished game wrote a file with
    no plays and a location dated 1970, and said it went well (exit 0)."""
    unfinished = tmp_path / "unfinished.record"
    unfinished.write_text("".join((GOLDEN / "microbot-racers" / "draw.record").read_text().splitlines(True)[:6]))
    assert main(["import", str(unfinished), "--state", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["export", "all", "--bgsplay", "--state", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err == "no finished games to export\n"
    output = tmp_path / "all.bgsplay"
    assert main(["export", "all", "--bgsplay", "-o", str(output), "--state", str(tmp_path)]) == 1
    assert not output.exists()
