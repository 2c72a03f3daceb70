"""A model of an SSD1306 or SH1106 controller's memory, fed by the bytes a luma device sends.

It stands in for luma's serial interface (``command``, ``data``, ``cleanup``), so any luma
device can drive it. It counts every byte, and it rebuilds the picture the glass would show
from the addressing commands and data alone: the benchmark uses the counts, and the tests
use the picture to prove that sending only changes leaves the glass exactly as a full
redraw would.
"""

from __future__ import annotations

from PIL import Image

from companion.io.pages import COLUMNS, I2C_BLOCK, I2C_FRAMING, PAGES, SMBUS_BLOCK, transfers

# Commands followed by argument bytes; every other byte is a command on its own.
SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA3: 2, 0xA8: 1, 0xD3: 1,
                0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
SH1106_ARGS = {0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
SH1106_RAM_COLUMNS = 132


class Counter:
    """A luma serial interface that only counts what it is sent (the bus, for timing).

    Besides the bytes handed to it, it counts I2C transfers as luma's ``i2c`` interface makes
    them: one per ``command()``, and one per ``data()`` block of up to
    :data:`~companion.io.pages.I2C_BLOCK` bytes (luma opens the bus itself, so it writes
    whole blocks with ``i2c_rdwr``; only a bus handed in from outside is written in SMBus
    blocks of 32). Each transfer adds the address byte and a control byte on the wire.

    >>> bus = Counter()
    >>> bus.command(0x21, 0, 127, 0x22, 0, 7); bus.data([0] * 1024)
    >>> bus.total, bus.wire, bus.wire_smbus
    (1030, 1034, 1096)
    """

    def __init__(self) -> None:
        self.command_bytes = 0
        self.data_bytes = 0
        self.calls = 0
        self.transfers = 0
        self.transfers_smbus = 0

    @property
    def total(self) -> int:
        """Command and data bytes so far, as a counting serial interface sees them."""
        return self.command_bytes + self.data_bytes

    @property
    def wire(self) -> int:
        """Bytes on the I2C wire so far: with each transfer's address and control byte."""
        return self.total + I2C_FRAMING * self.transfers

    @property
    def wire_smbus(self) -> int:
        """The same, had the bus been handed to luma (data in SMBus blocks of 32 bytes)."""
        return self.total + I2C_FRAMING * self.transfers_smbus

    def command(self, *cmd: int) -> None:
        self.calls += 1
        self.command_bytes += len(cmd)
        self.transfers += 1
        self.transfers_smbus += 1

    def data(self, data: list[int] | bytes) -> None:
        self.calls += 1
        self.data_bytes += len(data)
        self.transfers += transfers(len(data), I2C_BLOCK)
        self.transfers_smbus += transfers(len(data), SMBUS_BLOCK)

    def cleanup(self) -> None:
        pass


class Controller(Counter):
    """Counts bytes and keeps the display memory they would build."""

    def __init__(self, kind: str, sh1106_offset: int = 2) -> None:
        if kind not in ("ssd1306", "sh1106"):
            raise ValueError(kind)
        super().__init__()
        self.kind = kind
        self.offset = sh1106_offset
        width = COLUMNS if kind == "ssd1306" else SH1106_RAM_COLUMNS
        self.ram = [bytearray(width) for _ in range(PAGES)]
        self.horizontal = False  # ssd1306 memory mode 0 (luma's set-up)
        self.columns = (0, COLUMNS - 1)
        self.pages = (0, PAGES - 1)
        self.column = 0
        self.page = 0

    # --- the luma serial interface ---

    def command(self, *cmd: int) -> None:
        super().command(*cmd)
        args = SSD1306_ARGS if self.kind == "ssd1306" else SH1106_ARGS
        i = 0
        while i < len(cmd):
            op = cmd[i]
            count = args.get(op, 0)
            self._command(op, cmd[i + 1:i + 1 + count])
            i += 1 + count

    def data(self, data: list[int] | bytes) -> None:
        super().data(data)
        for byte in data:
            self._write(byte)

    # --- what the glass shows ---

    def image(self) -> Image.Image:
        """The picture the controller's memory holds (128x64, 1-bit)."""
        first = 0 if self.kind == "ssd1306" else self.offset
        picture = Image.new("1", (COLUMNS, PAGES * 8), 0)
        pixels = picture.load()
        assert pixels is not None
        for page in range(PAGES):
            row = self.ram[page]
            for x in range(COLUMNS):
                byte = row[first + x]
                for bit in range(8):
                    if byte >> bit & 1:
                        pixels[x, page * 8 + bit] = 1
        return picture

    def _command(self, op: int, args: tuple[int, ...]) -> None:
        if self.kind == "ssd1306":
            if op == 0x20:
                self.horizontal = args[0] == 0
            elif op == 0x21:
                self.columns, self.column = (args[0], args[1]), args[0]
            elif op == 0x22:
                self.pages, self.page = (args[0], args[1]), args[0]
            elif 0xB0 <= op <= 0xB7 and not self.horizontal:
                self.page = op - 0xB0
            return
        if 0xB0 <= op <= 0xB7:
            self.page = op - 0xB0
        elif op <= 0x0F:
            self.column = (self.column & 0xF0) | op
        elif op <= 0x1F:
            self.column = (self.column & 0x0F) | (op & 0x0F) << 4

    def _write(self, byte: int) -> None:
        row = self.ram[self.page]
        if self.column < len(row):
            row[self.column] = byte
        self.column += 1
        if self.kind == "ssd1306" and self.horizontal and self.column > self.columns[1]:
            self.column = self.columns[0]
            self.page = self.pages[0] if self.page >= self.pages[1] else self.page + 1
