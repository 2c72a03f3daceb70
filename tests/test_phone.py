"""The phone view: a read-only live page of the game, behind a secret link.

Every test runs the real server on loopback with the real daemon loop (mock pins, dummy
display), and talks to it as a phone, or as someone on the network who should not get in.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import pathlib
import socket
import time
from collections.abc import Iterator

import pytest

from companion.config import PhoneConfig
from companion.phone import PhoneView, looks_like_token
from companion.record import replay_text
from companion.web import server as web
from tests.cores import took
from tests.harness import RECORDS, Box, PageStream, store_game


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Box]:
    served = Box(tmp_path)
    yield served
    served.close()


# --- off by default ---


def test_the_view_is_off_unless_turned_on(tmp_path: pathlib.Path) -> None:
    phone = PhoneView(PhoneConfig(), tmp_path, str(tmp_path / "games.sqlite"))
    phone.start()
    assert not phone.enabled and phone.server is None


def test_turning_it_on_and_off_on_the_box_is_remembered(tmp_path: pathlib.Path) -> None:
    store = str(tmp_path / "games.sqlite")
    phone = PhoneView(PhoneConfig(port=0, address="127.0.0.1"), tmp_path, store)
    phone.turn(True)
    assert phone.server is not None
    token = phone.token
    phone.stop()
    again = PhoneView(PhoneConfig(port=0, address="127.0.0.1"), tmp_path, store)
    assert again.enabled and again.token == token
    again.turn(False)
    assert again.server is None
    assert not PhoneView(PhoneConfig(), tmp_path, store).enabled
    assert oct((tmp_path / "phone.json").stat().st_mode & 0o777) == "0o600"


def test_settings_turns_the_view_on_and_shows_a_link(box: Box) -> None:
    h = box.harness
    box.phone.turn(False)
    h.presses("down", "down", "down", "select")  # Home: New game, History, Rules, Settings
    for _ in range(5):  # Dim, Blank, Shift, Rolls, Test keys & screen, Phone view
        h.press("down")
    assert h.shows("Phone view") and h.shows("off", 10)
    h.press("select")
    assert box.phone.server is not None and h.shows("on", 10)
    h.press("down")
    assert h.shows("Show link")
    h.press("select")
    assert h.shows("Scan me:", 11)
    h.press("select")
    h.press("down")
    assert h.shows("New link")


# --- the link ---


def test_the_token_has_128_bits_and_fits_a_small_qr_code(box: Box) -> None:
    assert looks_like_token(box.phone.token)
    url = box.phone.url()
    assert url.startswith("HTTP://") and url.endswith(f"/{box.phone.token}/")


def test_the_qr_code_on_the_box_decodes_to_the_link(box: Box) -> None:
    import zxingcpp  # the test's decoder; the box only draws
    from PIL import Image

    from companion.ui.phone import LinkScreen

    box.phone.config = PhoneConfig(True, "192.168.100.200", 8080)  # the longest usual address
    h = box.harness
    h.app.push(LinkScreen(box.phone.url))
    h.daemon.refresh()
    frame = h.screen.convert("L").resize((128 * 6, 64 * 6), Image.NEAREST)
    found = zxingcpp.read_barcodes(frame)
    assert [code.text for code in found] == [box.phone.url()]


def test_without_the_token_every_url_is_404(box: Box) -> None:
    for path in ("/", "/events", "/games", "/record", "/index.html", "/x/", "/favicon.ico"):
        assert box.get(path)[0] == 404


def test_a_wrong_token_is_404_even_when_nearly_right(box: Box) -> None:
    token = box.phone.token
    for wrong in (token[:-1] + ("A" if token[-1] != "A" else "B"), token.lower(), token[:-1], token + "A", ""):
        assert box.get(f"/{wrong}/")[0] == 404
        assert box.get(f"/{wrong}/events")[0] == 404
    assert box.get(box.page())[0] == 200


def test_a_new_link_closes_open_pages_and_the_old_token_stops_working(box: Box) -> None:
    old = box.page()
    stream = PageStream(box)
    stream.next("message")
    box.phone.renew()
    assert stream.next("closed") == {}
    stream.close()
    assert box.get(old)[0] == 404
    assert box.get(f"{old}events")[0] == 404
    assert box.get(box.page())[0] == 200


# --- what the page shows ---


@pytest.mark.parametrize("game", sorted(RECORDS))
def test_each_game_is_published_with_whose_turn_the_question_and_its_state(box: Box, game: str) -> None:
    gid = box.open_game(game)
    stream = PageStream(box)
    snap = stream.next("message")
    stream.close()
    session = box.harness.app.session
    assert session is not None
    facts = snap["game"]
    assert facts["id"] == gid and facts["summary"] == session.summary()
    ask = session.prompt()
    assert ask is not None and facts["actor"] == ask.actor and facts["question"] == ask.question
    assert len(snap["frame"]) == 1368  # 128x64 bits in base64


def test_the_oled_mirror_is_the_frame_bit_for_bit(box: Box) -> None:
    import base64

    box.open_game("penguin-panic")
    stream = PageStream(box)
    snap = stream.next("message")
    stream.close()
    assert base64.b64decode(snap["frame"]) == box.harness.screen.tobytes()


def test_a_press_reaches_an_open_page(box: Box) -> None:
    box.open_game("microbot-racers")
    stream = PageStream(box)
    before = stream.next("message")

    def press() -> dict[str, object]:
        box.harness.press("down")
        return stream.next("message")

    after, seconds = took(press)  # less any wait for a core other work held (tests/cores.py)
    stream.close()
    assert after["version"] > before["version"] and after["frame"] != before["frame"]
    assert seconds < 1.0  # the promise: within a second of the press


def test_history_lists_finished_games_and_offers_their_files(box: Box) -> None:
    from tests.examples import LAP_WIN

    gid = store_game(box.harness.store, LAP_WIN)
    status, body = box.get(box.page("games"))
    games = json.loads(body)
    assert status == 200 and [g["id"] for g in games] == [gid] and games[0]["winners"] == ["Ann"]
    status, record = box.get(box.page(f"games/{gid}.record"))
    assert status == 200 and replay_text(record.decode()).actions == replay_text(LAP_WIN).actions
    status, summary = box.get(box.page(f"games/{gid}.json"))
    assert status == 200 and json.loads(summary)["winners"] == ["Ann"]
    assert box.get(box.page("games/999.record"))[0] == 404


# --- read only, and bounded ---


def digest(directory: pathlib.Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.iterdir()) if p.is_file() and not p.name.endswith("-shm")}


def test_no_request_changes_the_store_or_the_settings(box: Box, tmp_path: pathlib.Path) -> None:
    from tests.examples import LAP_WIN

    store_game(box.harness.store, LAP_WIN)
    box.open_game("quick-lemmings")
    before = digest(tmp_path)
    for method in ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"):
        for rest in ("", "record", "games", "games/1.record", "games/1.json", "undo", "settings"):
            box.get(box.page(rest), method=method, body=b"undo" if method != "GET" else None)
    assert digest(tmp_path) == before
    assert box.get(box.page(), method="POST", body=b"x")[0] == 405


@pytest.mark.parametrize("path", [
    "{t}/../../../../etc/passwd", "{t}/..%2F..%2Fetc%2Fpasswd", "{t}/games/../../etc/passwd.record",
    "{t}/games/1.record/../../x", "{t}/games/-1.record", "{t}/games/1e3.json", "{t}/games/%31.record",
    "{t}/page.html", "{t}/web/page.html", "{t}//etc/passwd", "{t}/games/99999999999.record",
])
def test_paths_are_never_built_from_the_request(box: Box, path: str) -> None:
    status, body = box.get("/" + path.format(t=box.phone.token))
    assert status == 404 and b"root:" not in body


def test_an_oversized_request_is_refused(box: Box) -> None:
    status, _ = box.get(box.page(), headers={"X-Big": "y" * 20_000})
    assert status in (400, 431)
    status, _ = box.get(box.page(), method="POST", body=b"z" * 10_000)
    assert status in (405, 413)


def test_a_hundred_connections_opened_and_dropped_leave_it_serving(box: Box) -> None:
    for number in range(100):
        sock = socket.create_connection(("127.0.0.1", box.port), timeout=5)
        if number % 2:
            sock.sendall(f"GET {box.page('events')} HTTP/1.1\r\nHost: box\r\n\r\n".encode())
        sock.close()
    streams = [PageStream(box) for _ in range(web.MAX_PAGES)]
    try:
        assert all(s.status == 200 for s in streams)
    finally:
        for s in streams:
            s.close()
    assert box.get(box.page())[0] == 200


def test_a_ninth_page_is_refused_politely(box: Box) -> None:
    streams = [PageStream(box) for _ in range(web.MAX_PAGES)]
    try:
        assert all(s.status == 200 for s in streams)
        status, body = box.get(box.page("events"))
        assert status == 503 and b"pages are open" in body
        assert box.get(box.page())[0] == 200  # the page itself and downloads still answer
    finally:
        for s in streams:
            s.close()


def test_a_client_that_never_reads_is_dropped_and_the_box_goes_on(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A phone walking away with the page open: the kernel cuts its connection off
    (TCP_USER_TIMEOUT) while the box goes on, and the log says at most a line about it,
    never a traceback."""
    import logging

    monkeypatch.setattr(web, "STALL_MS", 2000)  # the kernel gives up on it sooner here
    caplog.set_level(logging.DEBUG)
    box = Box(tmp_path)
    assert box.phone.server is not None
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", box.port))
    sock.sendall(f"GET {box.page('events')} HTTP/1.1\r\nHost: box\r\n\r\n".encode())
    box.open_game("quick-lemmings")
    h = box.harness
    started = time.monotonic()
    for _ in range(300):  # each press publishes a snapshot of a few kilobytes
        h.press("down")
    pressing = time.monotonic() - started
    try:
        deadline = time.monotonic() + web.STALL_MS / 1000 + 20
        while box.phone.server.hub.pages() and time.monotonic() < deadline:
            time.sleep(0.5)
            h.press("up")
        assert box.phone.server.hub.pages() == 0  # the stalled page was dropped
    finally:
        sock.close()
    assert pressing < 30  # liveness: no press waited for the stalled page
    assert box.get(box.page())[0] == 200
    box.close()
    noisy = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert noisy == [], [r.getMessage() for r in noisy]
    about = [r for r in caplog.records
             if r.levelno >= logging.INFO and r.name.startswith(("waitress", "companion.web"))]
    assert len(about) <= 1, [r.getMessage() for r in about]


# --- under systemd ---

ROOT = pathlib.Path(__file__).parent.parent


def test_the_real_daemon_serves_on_the_socket_systemd_hands_it(tmp_path: pathlib.Path) -> None:
    import os
    import subprocess
    import sys

    config = tmp_path / "companion.toml"
    config.write_text('[phone]\nenabled = true\naddress = "127.0.0.1"\nport = 1\n')  # port 1: not ours
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    fd = listener.fileno()
    # What systemd does: the socket as descriptor 3, and LISTEN_PID naming the daemon.
    handover = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.environ['LISTEN_PID'] = str(os.getpid()); "
                "os.environ['LISTEN_FDS'] = '1'; os.execv(sys.argv[2], sys.argv[2:])")
    daemon = subprocess.Popen(
        [sys.executable, "-c", handover, str(fd), sys.executable, "-m", "companion", "run", "--emulator", "none",
         "--config", str(config), "--state", str(tmp_path)],
        pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"})
    listener.close()
    try:
        token = ""
        deadline = time.monotonic() + 30
        while not token and time.monotonic() < deadline:
            time.sleep(0.1)
            with contextlib.suppress(OSError, ValueError, KeyError):  # not written yet
                token = json.loads((tmp_path / "phone.json").read_text())["token"]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", f"/{token}/")
            status = conn.getresponse().status
        except OSError as err:
            status = str(err)
        conn.close()
    finally:
        daemon.terminate()
        out = daemon.communicate(timeout=20)[0].decode()
    assert status == 200, out
    assert "Traceback" not in out, out


def test_the_unit_with_the_phone_view_drop_in_stays_below_one_in_systemd_analyze(tmp_path: pathlib.Path) -> None:
    import os
    import re
    import shutil
    import subprocess

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI"):
            pytest.fail("systemd-analyze is missing: .ci/run installs the systemd package")
        pytest.skip("systemd-analyze is not installed here (CI installs it)")
    # A drop-in's lines add to the unit's sections: the analyzer reads the unit as merged.
    unit = (ROOT / "systemd" / "companion.service").read_text()
    sections: dict[str, list[str]] = {}
    current = ""
    for line in (ROOT / "systemd" / "phone-view.conf").read_text().splitlines():
        if line.startswith("["):
            current = line
        elif line and not line.startswith("#"):
            sections.setdefault(current, []).append(line)
    for section, lines in sections.items():
        unit = unit.replace(section, section + "\n" + "\n".join(lines), 1)
    merged = tmp_path / "companion.service"
    merged.write_text(unit)
    run = subprocess.run([analyze, "security", "--offline=yes", str(merged)],
                         capture_output=True, text=True, timeout=120)
    found = re.search(r"Overall exposure level for companion\.service: (\d+\.\d+)", run.stdout)
    assert found and float(found.group(1)) < 1.0, run.stdout[-800:]
    assert "Sockets=companion-phone.socket" in unit and "PrivateNetwork=yes" in unit
    socket_unit = (ROOT / "systemd" / "companion-phone.socket").read_text()
    assert "IPAddressDeny=any" in socket_unit and "192.168.0.0/16" in socket_unit


def test_stopping_the_view_after_its_loop_lost_its_wake_up_pipe_still_stops_it(tmp_path: pathlib.Path) -> None:
    """The server's loop can close its own wake-up pipe (on an error of its own) before the
    view is stopped: stopping must still close every socket, at once, not fail on the
    closed pipe (seen once in a teardown, as EBADF), and end the loop's thread, freeing
    the port for the view to be turned on again."""
    served = web.PhoneServer("127.0.0.1", 0, "t" * 26, str(tmp_path / "games.sqlite"))
    port = served.port
    served.server.trigger.close()  # as the loop does when the pipe errs
    _, seconds = took(served.close)  # less any wait for a core other work held
    assert seconds < 3
    assert not served.server._map  # every socket closed
    assert not served.thread.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


# --- History for BG Stats, and who wins (issue 28) ---


def golden_games(box: Box) -> None:
    """Finished golden games stored in the box's store, as `companion import` stores them."""
    import io

    from companion.importer import import_stream
    from companion.store import Store

    for record in ("microbot-racers/lap-win", "penguin-panic/two-players-full", "leaf-climbers/all-blue-four"):
        data = (pathlib.Path(__file__).parent / "golden" / f"{record}.record").read_bytes()
        import_stream(io.BytesIO(data), lambda: Store(box.store_path))


def test_history_offers_each_finished_game_to_bg_stats(box: Box) -> None:
    import urllib.parse

    from companion.bgstats import push_data, read_play

    golden_games(box)
    games = json.loads(box.get(box.page("games"))[1])
    for game in games:
        link = game["bgstats"]
        assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
        data = json.loads(urllib.parse.unquote(link.split("?data=", 1)[1]))
        assert data == push_data(read_play(box.harness.store, game["id"]))
        status, file = box.get(box.page(f"games/{game['id']}.bgsplay"))
        assert status == 200 and [p["uuid"] for p in json.loads(file)["plays"]] == [data["sourcePlayId"]]
    status, every = box.get(box.page("games/all.bgsplay"))
    assert status == 200 and len(json.loads(every)["plays"]) == len(games) == 3
    box.open_game("quick-lemmings")  # unfinished: no play for BG Stats
    assert box.get(box.page("games/4.bgsplay"))[0] == 404
    assert box.get(box.page("games/all.record"))[0] == 404


def test_the_file_of_all_finished_games_is_not_found_before_a_game_ends(box: Box) -> None:
    """An empty share file (no plays, a location dated 1970) is nothing to keep: not found."""
    assert box.get(box.page("games/all.bgsplay"))[0] == 404


def test_the_file_of_all_finished_games_leaves_out_only_a_damaged_one(box: Box) -> None:
    """Review of issue 28: one finished game that no longer reads back (a damaged card)
    made "All finished games for BG Stats" a 404, losing every other game with it."""
    golden_games(box)
    box.harness.store.db.execute("UPDATE entries SET lines = 'Ann fly' WHERE game = 2 AND seq = 3")
    status, every = box.get(box.page("games/all.bgsplay"))
    assert status == 200 and len(json.loads(every)["plays"]) == 2
    assert box.get(box.page("games/2.bgsplay"))[0] == 404


@pytest.mark.parametrize("damage", ["winners = 'x'", "header = X'ff00'", "head = 'x'"])
def test_history_lists_every_finished_game_that_reads_when_one_does_not(box: Box, damage: str) -> None:
    """Review of issue 28: one finished game whose stored row no longer reads (a flipped
    bit on the card while the box runs) made History a 503 on the phone and "internal
    error" on the box, hiding every other game, while ``companion games``, the stats and
    BG Stats' file of all finished games leave out only that one."""
    golden_games(box)
    box.harness.store.db.execute(f"UPDATE games SET {damage} WHERE id = 2")
    status, body = box.get(box.page("games"))
    assert status == 200 and [game["id"] for game in json.loads(body)] == [3, 1]
    app = box.harness.app
    app.home.history()
    assert [item.label for item in app.top.items][2:] == ["Leaf-Climbers", "Microbot Racers"]


def test_the_stats_are_what_companion_stats_prints(box: Box) -> None:
    from companion.stats import as_json, dice, players

    golden_games(box)
    found = json.loads(box.get(box.page("stats"))[1])
    store = box.harness.store
    assert found == json.loads(json.dumps(as_json(players(store), dice(store))))
    box.open_game("leaf-climbers")  # a game changes: its dice are counted again
    again = json.loads(box.get(box.page("stats"))[1])
    assert again == json.loads(json.dumps(as_json(players(store), dice(store))))
    assert again["dice"] != found["dice"]


def test_the_new_pages_change_nothing_either(box: Box, tmp_path: pathlib.Path) -> None:
    golden_games(box)
    before = digest(tmp_path)
    for method in ("GET", "HEAD", "POST"):
        for rest in ("stats", "games/1.bgsplay", "games/all.bgsplay"):
            box.get(box.page(rest), method=method, body=b"x" if method == "POST" else None)
    assert digest(tmp_path) == before
