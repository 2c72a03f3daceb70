"""The GPIO character device: who holds each line, asked of the kernel with its uAPI v2
ioctls (linux/gpio.h), and the structures they fill."""

from __future__ import annotations

import fcntl
import struct
from typing import Protocol


class LineSource(Protocol):
    """GPIO chips and lines, as the kernel's character device reports them."""

    def label(self, chip: str) -> str: ...
    def consumer(self, chip: str, offset: int) -> str | None:
        """Who holds the line (``""`` when it is held but unnamed), or None when it is free."""


# linux/gpio.h (uAPI v2): struct gpiochip_info is 68 bytes, struct gpio_v2_line_info 256.
GPIO_GET_CHIPINFO_IOCTL = 0x8044B401
GPIO_V2_GET_LINEINFO_IOCTL = 0xC100B405
GPIO_V2_LINE_FLAG_USED = 1
LINE_INFO_SIZE = 256  # name[32], consumer[32], offset, num_attrs, flags (u64), attrs[10], padding
FLAGS_AT = 72  # the u64 flags field follows name, consumer, offset and num_attrs


class KernelLines:
    """Line info from ``/dev/gpiochipN`` with the kernel's uAPI ioctls (no library needed:
    libgpiod's Python bindings are not installed on Raspberry Pi OS Lite by default)."""

    def label(self, chip: str) -> str:
        with open(chip, "rb") as handle:
            info = bytearray(68)
            fcntl.ioctl(handle, GPIO_GET_CHIPINFO_IOCTL, info)
        return bytes(info[32:64]).split(b"\0")[0].decode(errors="replace")

    def consumer(self, chip: str, offset: int) -> str | None:
        with open(chip, "rb") as handle:
            info = bytearray(LINE_INFO_SIZE)
            struct.pack_into("=I", info, 64, offset)
            fcntl.ioctl(handle, GPIO_V2_GET_LINEINFO_IOCTL, info)
        return decode_line(bytes(info))


def decode_line(info: bytes) -> str | None:
    """A struct gpio_v2_line_info's consumer, or None when the line is not in use."""
    if not struct.unpack_from("=Q", info, FLAGS_AT)[0] & GPIO_V2_LINE_FLAG_USED:
        return None
    return info[32:64].split(b"\0")[0].decode(errors="replace")
