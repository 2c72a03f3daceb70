"""Rows read straight from a damaged SQLite file and its write-ahead log, past a damaged index.

SQLite finds a row by walking its b-tree from the root: one garbled interior page, or a
garbled log header, hides every row below or after it, although the leaf pages that hold the
rows are intact. This reader skips the walk. It reads every page of the main file and every
frame of the log, keeps the pages that parse as b-tree leaves, and decodes their cells (the
file format is public: sqlite.org/fileformat2.html). Overflow chains are followed through the
same pages.

Why our own reader: Python's ``sqlite3`` has no binding of ``sqlite3_recover``, nor has apsw
(3.54); the ``sqlite3`` shell's ``.recover`` is a separate package, and the one Debian and
Raspberry Pi OS bookworm ship (3.40.1) stops with "SQL logic error" on any WITHOUT ROWID
table, so on every companion store, sound or not; and it reads the log only through SQLite
(a log with a garbled header or checksum counts as empty). Here a log frame is read whatever
its checksum says: the rules engine, not the checksum, decides what is kept (salvage replays
every candidate line and keeps only legal ones).

>>> varint(bytes([0x81, 0x00]), 0)
(128, 2)
"""

from __future__ import annotations

import pathlib
import struct
from collections.abc import Iterator
from dataclasses import dataclass

#: A value as SQLite stores it in a record.
Value = int | float | str | bytes | None

WAL_HEADER = 32
FRAME_HEADER = 24
WAL_MAGIC = (0x377F0682, 0x377F0683)
TABLE_LEAF, INDEX_LEAF = 0x0D, 0x0A  # b-tree page types holding rows (rowid / WITHOUT ROWID)
INDEX_INTERIOR = 0x02  # a WITHOUT ROWID table's interior pages hold whole rows too
DEFAULT_PAGE = 4096


@dataclass(frozen=True)
class Cell:
    """One row as found on a leaf page: the page's kind, its rowid (rowid tables) and values."""

    kind: int
    rowid: int | None
    values: tuple[Value, ...]


@dataclass(frozen=True)
class Frame:
    """One write-ahead log frame: the page it holds, its commit mark, salts and checksum."""

    number: int  # 1-based position in the log
    head: bytes  # the first 8 bytes of its header, which the checksum covers
    pgno: int
    commit: int  # the database size in pages after a commit; 0 inside a transaction
    salts: tuple[int, int]
    checksum: tuple[int, int]
    data: bytes


def varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian variable-length integer at ``at``: (value, position after it)."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def record(payload: bytes) -> tuple[Value, ...]:
    """The values of one record (ValueError or IndexError when it does not parse)."""
    size, at = varint(payload, 0)
    if not 0 < size <= len(payload):
        raise ValueError("record header out of range")
    types = []
    while at < size:
        kind, at = varint(payload, at)
        types.append(kind)
    values: list[Value] = []
    body = size
    for kind in types:
        width = serial_width(kind)
        chunk = payload[body:body + width]
        if len(chunk) != width:
            raise ValueError("record shorter than its header says")
        values.append(serial_value(kind, chunk))
        body += width
    return tuple(values)


def serial_width(kind: int) -> int:
    if kind >= 12:
        return (kind - 12) // 2
    if kind in (10, 11):
        raise ValueError("reserved serial type")
    return (0, 1, 2, 3, 4, 6, 8, 8, 0, 0)[kind]


def serial_value(kind: int, chunk: bytes) -> Value:
    if kind == 0:
        return None
    if 1 <= kind <= 6:
        return int.from_bytes(chunk, "big", signed=True)
    if kind == 7:
        return float(struct.unpack(">d", chunk)[0])
    if kind in (8, 9):
        return kind - 8
    if kind % 2:
        return chunk.decode("utf-8")  # UnicodeDecodeError is a ValueError: cell skipped
    return bytes(chunk)


class Pages:
    """The pages of one file set: the main file's, overlaid by later log frames."""

    def __init__(self, size: int, usable: int) -> None:
        self.size = size
        self.usable = usable
        self.pages: dict[int, bytes] = {}

    def cells(self, data: bytes, pgno: int) -> Iterator[Cell]:
        """Every cell of a page holding rows that decodes; nothing for any other page.
        An index interior page's rows count as an index leaf's (same kind of row)."""
        start = 100 if pgno == 1 else 0
        if len(data) < start + 8 or data[start] not in (TABLE_LEAF, INDEX_LEAF, INDEX_INTERIOR):
            return
        interior = data[start] == INDEX_INTERIOR
        kind = INDEX_LEAF if interior else data[start]
        count = int.from_bytes(data[start + 3:start + 5], "big")
        pointers = start + (12 if interior else 8)
        for i in range(count):
            at = pointers + 2 * i
            try:
                offset = int.from_bytes(data[at:at + 2], "big") + (4 if interior else 0)
                yield self.cell(kind, data, offset)
            except (ValueError, IndexError):
                continue  # a garbled cell: the rest of the page may still be good

    def cell(self, kind: int, data: bytes, offset: int) -> Cell:
        if not 4 < offset < self.usable:
            raise ValueError("cell pointer out of the page")
        size, at = varint(data, offset)
        rowid = None
        if kind == TABLE_LEAF:
            rowid, at = varint(data, at)
        local = self.local_size(kind, size)
        payload = data[at:at + local]
        if local < size:
            payload += self.overflow(int.from_bytes(data[at + local:at + local + 4], "big"),
                                     size - local)
        if len(payload) != size:
            raise ValueError("payload cut short")
        return Cell(kind, rowid, record(payload))

    def local_size(self, kind: int, size: int) -> int:
        """How much of a payload sits on the leaf itself (the rest overflows)."""
        usable = self.usable
        most = usable - 35 if kind == TABLE_LEAF else (usable - 12) * 64 // 255 - 23
        least = (usable - 12) * 32 // 255 - 23
        if size <= most:
            return size
        local = least + (size - least) % (usable - 4)
        return local if local <= most else least

    def overflow(self, pgno: int, missing: int) -> bytes:
        out = b""
        seen = set()
        while missing > 0:
            page = self.pages.get(pgno)
            if page is None or pgno in seen:
                raise ValueError("overflow chain broken")
            seen.add(pgno)
            chunk = page[4:min(self.usable, 4 + missing)]
            out += chunk
            missing -= len(chunk)
            pgno = int.from_bytes(page[:4], "big")
        return out


def page_size(main: bytes) -> int:
    """The page size the file's header names, else SQLite's default."""
    if len(main) >= 100 and main[:16] == b"SQLite format 3\x00":
        size = int.from_bytes(main[16:18], "big")
        size = 65536 if size == 1 else size
        if size >= 512 and size & (size - 1) == 0:
            return size
    return DEFAULT_PAGE


def wal_frames(log: bytes, size: int) -> list[Frame]:
    """Every whole frame of a log, valid or not (the header may be garbled)."""
    frames = []
    step = FRAME_HEADER + size
    for number, at in enumerate(range(WAL_HEADER, len(log) - step + 1, step), start=1):
        pgno, commit, s1, s2, c1, c2 = struct.unpack(">6I", log[at:at + FRAME_HEADER])
        frames.append(Frame(number, log[at:at + 8], pgno, commit, (s1, s2), (c1, c2),
                            log[at + FRAME_HEADER:at + step]))
    return frames


def wal_page_size(log: bytes, fallback: int) -> int:
    if len(log) >= WAL_HEADER and struct.unpack(">I", log[:4])[0] in WAL_MAGIC:
        size = int.from_bytes(log[8:12], "big")
        if size >= 512 and size & (size - 1) == 0 and size <= 65536:
            return size
    return fallback


def checksum(data: bytes, seed: tuple[int, int], big_endian: bool) -> tuple[int, int]:
    """The log's running checksum (fileformat2 section 4.1) over ``data`` from ``seed``."""
    s0, s1 = seed
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def log_findings(log: bytes, size: int) -> tuple[int, int]:
    """(frames SQLite will use, frames of committed transactions it will not reach).

    SQLite reads the log up to its first frame with a bad checksum or stale salts and takes
    that as the end. A torn last transaction (a power cut mid-commit) ends the log that way
    too, and was never acknowledged; but a commit mark *followed by more frames* with the
    current salts shows a transaction that finished before the next one began: with
    ``synchronous=FULL`` that one was acknowledged, and damage, not a cut, hid it.
    """
    frames = wal_frames(log, size)
    if not frames:
        return 0, 0
    magic = struct.unpack(">I", log[:4])[0]
    big_endian = magic & 1 == 1 if magic in WAL_MAGIC else True
    salts = current_salts(log, frames)
    used = 0
    if header_sound(log):
        seed: tuple[int, int] = struct.unpack(">2I", log[24:32])
        for frame in frames:
            if frame.salts != salts:
                break
            seed = checksum(frame.head + frame.data, seed, big_endian)
            if seed != frame.checksum:
                break
            if frame.commit:
                used = frame.number
    beyond = [f for f in frames[used:] if f.salts == salts]
    followed = [i for i, f in enumerate(beyond[:-1]) if f.commit]
    return used, followed[-1] + 1 if followed else 0


def header_sound(log: bytes) -> bool:
    """Whether the log's header is as SQLite wrote it: its magic, and its own checksum."""
    magic = struct.unpack(">I", log[:4])[0] if len(log) >= WAL_HEADER else 0
    return magic in WAL_MAGIC and \
        checksum(log[:24], (0, 0), magic & 1 == 1) == struct.unpack(">2I", log[24:32])


def current_salts(log: bytes, frames: list[Frame]) -> tuple[int, int]:
    """The salts of the log's current round: its header's when the header is sound, else
    its first frame's (the round SQLite wrote last starts at the beginning of the file)."""
    return struct.unpack(">2I", log[16:24]) if header_sound(log) else frames[0].salts


def current_round(log: bytes, frames: list[Frame]) -> int:
    """How many frames, from the log's beginning, its current round holds: up to the last
    one with its salts (a frame among them whose salts a flipped bit changed is still of
    it). Each reset of the log starts writing at the beginning again, with salt-1 one
    higher, and leaves the frames of the round before beyond its own."""
    salts = current_salts(log, frames)
    return max((f.number for f in frames if f.salts == salts), default=0)


def newest_first(log: bytes, frames: list[Frame]) -> list[Frame]:
    """A log's frames, newest first: the current round's from its end, then the earlier
    rounds', the later round (salt-1) first, each from its end."""
    if not frames:
        return []
    end = current_round(log, frames)
    return sorted(frames, key=lambda f: (f.number <= end, f.salts[0], f.number), reverse=True)


def read_pages(main: bytes, log: bytes) -> Pages:
    """The main file's pages, then the log's current round of frames in order over them
    (later wins). An earlier round's frames left beyond it are older than the main file:
    they were all copied into it before the log was reset."""
    size = page_size(main)
    size = wal_page_size(log, size) if len(main) < 100 else size
    reserved = main[20] if len(main) >= 100 and main[:16] == b"SQLite format 3\x00" else 0
    pages = Pages(size, size - reserved)
    for number, at in enumerate(range(0, len(main) - size + 1, size), start=1):
        pages.pages[number] = main[at:at + size]
    frames = wal_frames(log, size)
    end = current_round(log, frames) if frames else 0
    for frame in frames[:end]:
        if frame.pgno:
            pages.pages[frame.pgno] = frame.data
    return pages


def cells(main: bytes, log: bytes) -> Iterator[Cell]:
    """Every decodable row on the file's leaf pages and in its log's frames: the newest
    view of the pages first, then each log frame on its own, newest first.

    Each log frame is read on its own too (not only the newest copy of its page): an older
    frame may hold an entry that a newer, garbled copy of the same page lost. Where a row
    comes in several versions, the newest comes first (salvage takes the first that replays:
    an older one may be an entry an undo replaced).
    """
    pages = read_pages(main, log)
    seen = set()
    for pgno, data in sorted(pages.pages.items()):
        seen.add(data)
        yield from pages.cells(data, pgno)
    for frame in newest_first(log, wal_frames(log, pages.size)):
        if frame.data not in seen and frame.pgno:
            seen.add(frame.data)
            yield from pages.cells(frame.data, frame.pgno)
    # the main file's own copy of a page that a log frame replaced
    for number, at in enumerate(range(0, len(main) - pages.size + 1, pages.size), start=1):
        data = main[at:at + pages.size]
        if data not in seen:
            seen.add(data)
            yield from pages.cells(data, number)


def read_files(path: pathlib.Path) -> tuple[bytes, bytes]:
    """A set-aside file and its log, whatever is left of them."""
    def read(name: str) -> bytes:
        try:
            return pathlib.Path(name).read_bytes()
        except OSError:
            return b""
    return read(str(path)), read(f"{path}-wal")
