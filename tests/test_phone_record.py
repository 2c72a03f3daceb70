"""The record on the phone page: each change sent as it is made, never the whole game again.

An open page keeps the record as one block of lines per entry. The event stream sends it
changes ("from entry N on, the record is these blocks"); a page that opens mid-game gets
the last part, and reads older parts a page at a time. :class:`Model` keeps the record as
page.html does; after every change it must equal the export's own lines for that part.
"""

from __future__ import annotations

import json
import pathlib
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.games.base import Line, Roll
from companion.session import Session, audited_blocks, audited_lines
from companion.store import Store
from companion.web import feed as feed_module
from companion.web import server as web
from tests.harness import Box, PageStream, long_game, next_line

PAGE = feed_module.PAGE


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Box]:
    served = Box(tmp_path)
    yield served
    served.close()


class Model:
    """The record as the page keeps it: the entries it knows (from ``first`` on) and the
    rolls undone past the last one."""

    def __init__(self) -> None:
        self.game: int | None = None
        self.first = 1
        self.blocks: dict[int, list[str]] = {}
        self.after: list[str] = []

    def apply(self, change: dict[str, Any]) -> None:
        if change["reset"] or change["game"] != self.game:
            self.game, self.blocks = change["game"], {}
        self.blocks = {seq: lines for seq, lines in self.blocks.items() if seq < change["first"]}
        self.blocks.update((change["first"] + i, lines) for i, lines in enumerate(change["blocks"]))
        self.after = change["after"]
        if change["reset"] or change["first"] < self.first:
            self.first = change["first"]

    def older(self, box: Box) -> dict[str, Any]:
        """Read the part before the first entry known, as the page does when scrolled."""
        status, body = box.get(box.page(f"record?game={self.game}&before={self.first}"))
        assert status == 200, body
        part: dict[str, Any] = json.loads(body)
        assert part["first"] + len(part["blocks"]) == self.first and len(part["blocks"]) <= PAGE
        self.blocks.update((part["first"] + i, lines) for i, lines in enumerate(part["blocks"]))
        self.first = part["first"]
        return part

    def lines(self) -> list[str]:
        return [line for seq in sorted(self.blocks) for line in self.blocks[seq]] + self.after


def truth(store: Store, session: Session, first: int = 1) -> list[str]:
    """The record's lines from entry ``first`` on, as the export writes them (read whole)."""
    entries = store.entries(session.gid, session.head)
    blocks, after = audited_blocks(entries, store.rolls(session.gid), session.head)
    assert [line for block in blocks for line in block] + after == list(audited_lines(store, session.gid, session.head))
    return [line for block in blocks[first - 1:] for line in block] + after


def live(box: Box) -> Session:
    session = box.harness.app.session
    assert session is not None
    return session


def record_events(stream: PageStream, box: Box) -> Iterator[dict[str, Any]]:
    """The record's changes the page has not had yet (up to the last one the server made)."""
    assert box.phone.server is not None
    hub = box.phone.server.hub
    while hub.since(stream.last_id) != hub.count:
        name, data = stream.event()
        if name == "record":
            yield data


def device_roll(session: Session, rng: random.Random) -> list[Line] | None:
    """Faces for the pending prompt's dice, as the device would roll them; None when the
    prompt asks for no dice."""
    ask = session.prompt()
    rolls = [answer for answer in ask.answers if isinstance(answer, Roll)] if ask else []
    return [rolls[0].line(tuple(rng.randint(1, sides) for sides in rolls[0].sides))] if rolls else None


def test_a_page_opened_mid_game_gets_the_last_entries_then_reads_back_to_the_first(box: Box) -> None:
    store = box.harness.store
    gid = long_game(store, 7 * PAGE // 2, rolled=True)
    assert box.harness.app.open(gid)
    session = live(box)
    while (faces := device_roll(session, random.Random(6))) is None:
        session.play([next_line(session)])
    session.play(faces, rolled=True)  # undone: a comment past the end
    session.undo()
    box.harness.daemon.refresh()
    stream = PageStream(box)
    model = Model()
    changes = list(record_events(stream, box))
    stream.close()
    assert len(changes) == 1 and changes[0]["reset"] and changes[0]["game"] == gid
    model.apply(changes[0])
    assert model.first == session.head + 1 - PAGE and len(model.blocks) == PAGE
    assert model.after == [f"# undone: {faces[0]}"]
    assert model.lines() == truth(store, session, model.first)
    parts = 0
    while model.first > 1:
        model.older(box)
        parts += 1
    assert parts == -(-(session.head - PAGE) // PAGE)  # a part at a time
    assert model.lines() == truth(store, session)


@pytest.mark.parametrize("seed", range(4))
def test_every_entry_undo_and_redo_reaches_an_open_page_as_a_small_change(box: Box, seed: int) -> None:
    """A random walk of device rolls, rolls typed in, undos (one or many before the page is
    told), redos and rolls used again: the page's record always equals the export's."""
    rng = random.Random(seed)
    store = box.harness.store
    gid = box.open_game("microbot-racers")
    stream = PageStream(box)
    model = Model()
    for change in record_events(stream, box):
        model.apply(change)
    session = live(box)
    for _ in range(60):
        for _ in range(rng.choice((1, 1, 1, 2, 3))):  # sometimes several before the page hears
            step = rng.random()
            if step < 0.3 and session.head > 0:
                session.undo()
            elif step < 0.4 and session.redo_entry() is not None:
                session.redo()
            elif (faces := device_roll(session, rng)) is not None and step < 0.8:
                ask = session.prompt()
                roll = next(a for a in ask.answers if isinstance(a, Roll)) if ask else None
                if roll is not None and session.undone_roll(roll) is not None and rng.random() < 0.5:
                    session.use_again(roll)
                else:
                    session.play(faces, rolled=True, again=roll is not None and session.undone_roll(roll) is not None)
            elif session.prompt() is not None:
                session.play([next_line(session)])
        box.harness.daemon.refresh()
        changes = list(record_events(stream, box))
        for change in changes:
            assert change["game"] == gid and len(change["blocks"]) <= PAGE
            model.apply(change)
        assert model.lines() == truth(store, session, model.first)
        assert max(len(c["blocks"]) for c in changes) <= 4 if changes else True  # only what changed
    stream.close()


def test_a_new_game_or_none_replaces_the_record_on_open_pages(box: Box) -> None:
    first = box.open_game("microbot-racers")
    stream = PageStream(box)
    model = Model()
    for change in record_events(stream, box):
        model.apply(change)
    second = box.open_game("quick-lemmings")
    (change,) = record_events(stream, box)
    assert change["reset"] and change["game"] == second != first
    model.apply(change)
    assert model.lines() == truth(box.harness.store, live(box), model.first)
    box.harness.app.leave_game()
    box.harness.daemon.refresh()
    (change,) = record_events(stream, box)
    assert change == {"game": None, "first": 1, "head": 0, "blocks": [], "after": [], "reset": True}
    stream.close()


def test_many_changes_before_a_page_hears_are_sent_as_at_most_a_part(box: Box) -> None:
    """The loop may make many changes before it publishes (a screen kept dark): the page is
    sent what they changed, and never more than the last part of the game."""
    store = box.harness.store
    gid = long_game(store, 4 * PAGE, rolled=False)
    assert box.harness.app.open(gid)
    box.harness.daemon.refresh()
    stream = PageStream(box)
    model = Model()
    for change in record_events(stream, box):
        model.apply(change)
    session = live(box)
    for _ in range(2 * PAGE):
        session.undo()
    box.harness.daemon.refresh()
    (change,) = record_events(stream, box)
    assert not change["reset"] and change["first"] == 2 * PAGE + 1 and change["blocks"] == []
    model.apply(change)
    assert model.lines() == truth(store, session, model.first)
    for _ in range(2 * PAGE):
        session.redo()
    box.harness.daemon.refresh()
    (change,) = record_events(stream, box)
    stream.close()
    assert change["reset"] and len(change["blocks"]) == PAGE and change["first"] == 3 * PAGE + 1
    model.apply(change)
    assert model.lines() == truth(store, session, model.first)


# --- reconnecting ---


def play_some(box: Box, entries: int) -> None:
    session = live(box)
    for _ in range(entries):
        session.play([next_line(session)])
        box.harness.daemon.refresh()


@pytest.mark.parametrize("how", ["Last-Event-ID", "since"])
def test_a_page_that_reconnects_is_sent_only_what_it_missed(box: Box, how: str) -> None:
    box.open_game("microbot-racers")
    watching = PageStream(box)  # another phone stays: the changes are kept for the one that left
    leaving = PageStream(box)
    model = Model()
    for change in record_events(leaving, box):
        model.apply(change)
    play_some(box, 1)
    for change in record_events(leaving, box):
        model.apply(change)
    last = leaving.last_id
    leaving.close()
    play_some(box, 3)
    back = PageStream(box, last_id=last) if how == "Last-Event-ID" else PageStream(box, query=f"?since={last}")
    changes = list(record_events(back, box))
    assert [c["reset"] for c in changes] == [False, False, False] and all(len(c["blocks"]) == 1 for c in changes)
    for change in changes:
        model.apply(change)
    assert model.lines() == truth(box.harness.store, live(box), model.first)
    back.close()
    watching.close()


@pytest.mark.parametrize("last_id", ["00000000.1", "garbage", "x" * 5000, "{boot}.999999", "{boot}.1"])
def test_a_page_whose_last_change_is_unknown_or_too_old_starts_afresh(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, last_id: str) -> None:
    monkeypatch.setattr(web, "RING", 4)  # changes kept for pages that reconnect
    box = Box(tmp_path)
    try:
        box.open_game("microbot-racers")
        watching = PageStream(box)
        play_some(box, 6)
        assert box.phone.server is not None
        stream = PageStream(box, last_id=last_id.format(boot=box.phone.server.hub.boot))
        changes = list(record_events(stream, box))
        assert len(changes) == 1 and changes[0]["reset"]
        stream.close()
        watching.close()
    finally:
        box.close()


def test_changes_made_while_no_page_was_open_start_the_next_page_afresh(box: Box) -> None:
    box.open_game("microbot-racers")
    stream = PageStream(box)
    list(record_events(stream, box))
    last = stream.last_id
    stream.close()
    assert box.phone.server is not None
    deadline = time.monotonic() + 5
    while box.phone.server.hub.pages() and time.monotonic() < deadline:  # the server sees it go
        time.sleep(0.01)
    play_some(box, 2)
    back = PageStream(box, last_id=last)
    changes = list(record_events(back, box))
    back.close()
    assert len(changes) == 1 and changes[0]["reset"]


def test_a_record_that_cannot_be_read_just_now_costs_the_pages_a_fresh_start_not_the_box(
        box: Box, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    box.open_game("microbot-racers")
    stream = PageStream(box)
    model = Model()
    for change in record_events(stream, box):
        model.apply(change)
    session = live(box)

    def broken(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    session.play([next_line(session)])
    with monkeypatch.context() as patched:
        patched.setattr(feed_module, "part", broken)  # the loop's read of what changed fails
        box.harness.daemon.refresh()  # and the loop goes on
    assert "cannot be read" in caplog.text
    (change,) = record_events(stream, box)
    assert change["reset"]
    model.apply(change)
    assert model.lines() == truth(box.harness.store, session, model.first)
    stream.close()


# --- what an entry costs ---


def feed_work(box: Box, act: Callable[[Session], None]) -> tuple[int, int]:
    """SQLite's steps while the loop works out the change ``act`` made for open pages, and
    the size of the change sent."""
    assert box.phone.server is not None
    session = live(box)
    db: sqlite3.Connection = session.store.db
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    act(session)
    db.set_progress_handler(count, 1)
    try:
        change = box.phone.server.feed.change(session)
    finally:
        db.set_progress_handler(None, 1)
    assert change is not None
    return steps, len(change.json())


def test_an_entry_costs_the_same_in_a_ten_and_a_ten_thousand_entry_game(box: Box) -> None:
    """The loop reads only what changed, found by index: not the whole record, nor the whole
    dice audit, and sends only what changed."""
    costs = {}
    stream = PageStream(box)  # a page is open: the changes are worked out
    for entries in (10, 10_000):
        gid = long_game(box.harness.store, entries, rolled=True)
        assert box.harness.app.open(gid)
        box.harness.daemon.refresh()
        assert box.phone.server is not None
        box.phone.server.feed.change(live(box))  # the new game's part: not measured
        costs[entries] = [feed_work(box, lambda s: s.play(device_roll(s, random.Random(1)) or [next_line(s)],
                                                          rolled=True)),
                          feed_work(box, lambda s: s.undo()),
                          feed_work(box, lambda s: s.redo())]
    stream.close()
    for (short_steps, short_bytes), (long_steps, long_bytes) in zip(costs[10], costs[10_000]):
        assert long_steps <= short_steps + 20, costs
        assert long_bytes <= short_bytes + 20, costs  # an entry number has more digits
        assert long_bytes < 300


# --- reading older parts ---


@pytest.mark.parametrize("query", [
    "", "?game=1", "?before=5", "?game=1&before=0", "?game=1&before=1", "?game=x&before=5",
    "?game=1&before=-3", "?game=1&before=5e3", "?game=1&before=99999999999999999999",
    "?game=1&before=%EF%BC%95", "?game=1&game=2&before=5&a=1&b=2&c=3",
])
def test_a_bad_request_for_an_older_part_is_refused_not_an_error(box: Box, query: str) -> None:
    box.open_game("microbot-racers")
    status, _ = box.get(box.page(f"record{query}"))
    assert status == 400


def test_an_older_part_of_a_game_not_there_is_404(box: Box) -> None:
    assert box.get(box.page("record?game=999&before=5"))[0] == 404
    gid = box.open_game("microbot-racers")
    status, body = box.get(box.page(f"record?game={gid}&before=1000000"))  # past the end: what there is
    assert status == 200 and json.loads(body)["blocks"] == []
