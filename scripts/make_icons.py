"""Draws the app icons (client/icons/*.png) with the standard library only: a white card
with a red diamond on the green felt, as icon.svg. Run again after changing the drawing:
``python scripts/make_icons.py``."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "client" / "icons"
FELT = (13, 92, 58)
WHITE = (255, 255, 255)
RED = (179, 0, 27)
SIZES = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "icon-maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),
}


def inside_rounded(
    x: float, y: float, x0: float, y0: float, x1: float, y1: float, r: float
) -> bool:
    if not (x0 <= x <= x1 and y0 <= y <= y1):
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def pixel(u: float, v: float, full_bleed: bool) -> tuple[int, int, int, int]:
    """Colour at (u, v) in [0, 1]²; ``full_bleed`` (maskable, Apple) fills the square."""
    scale = 0.72 if full_bleed else 0.86  # keep the card inside the maskable safe zone
    x = (u - 0.5) / scale + 0.5
    y = (v - 0.5) / scale + 0.5
    if not full_bleed and not inside_rounded(u, v, 0, 0, 1, 1, 0.19):
        return (0, 0, 0, 0)
    if inside_rounded(x, y, 0.22, 0.12, 0.78, 0.88, 0.08):
        if abs(x - 0.5) / 0.19 + abs(y - 0.5) / 0.25 <= 1:
            return (*RED, 255)
        return (*WHITE, 255)
    return (*FELT, 255)


def png(size: int, full_bleed: bool) -> bytes:
    rows = []
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            # 2×2 supersampling for smooth edges
            acc = [0, 0, 0, 0]
            for dx in (0.25, 0.75):
                for dy in (0.25, 0.75):
                    px = pixel((i + dx) / size, (j + dy) / size, full_bleed)
                    for k in range(4):
                        acc[k] += px[k]
            row += bytes(c // 4 for c in acc)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (size, full_bleed) in SIZES.items():
        (OUT / name).write_bytes(png(size, full_bleed))
        print(name, size)


if __name__ == "__main__":
    main()
