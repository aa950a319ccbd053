"""Link previews and app icons drawn as PNG (stdlib only: rectangles into rows, zlib, CRC).

A preview shows the table as a newcomer sees it before the deal: seven columns of card backs and the stock,
and for a race one bar per racer (cards removed out of 35). Never a card's face: a link to a ranked race must
not tell anyone its deal.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

from .glyphs import text_rects, text_width

RGB = tuple[int, int, int]
Rect = tuple[int, int, int, int, RGB]  # x, y, width, height, colour

FELT: RGB = (13, 59, 42)
FELT_LIGHT: RGB = (21, 82, 58)
CREAM: RGB = (255, 253, 246)
BACK: RGB = (178, 47, 38)
BACK_LINE: RGB = (214, 86, 70)
GOLD: RGB = (241, 199, 91)
GREEN: RGB = (96, 200, 120)
GREY: RGB = (150, 160, 155)
TRACK: RGB = (8, 38, 27)
WIDTH, HEIGHT = 1200, 630
TABLEAU = 35
MAX_BARS = 8


def png(width: int, height: int, background: RGB, rects: Sequence[Rect]) -> bytes:
    """An RGB PNG: ``background``, then ``rects`` painted in order (later ones on top), clipped."""
    rows = [bytearray(bytes(background) * width) for _ in range(height)]
    for x, y, w, h, colour in rects:
        x0, x1 = max(0, x), min(width, x + w)
        if x1 <= x0:
            continue
        span = bytes(colour) * (x1 - x0)
        for row in rows[max(0, y) : max(0, min(height, y + h))]:
            row[3 * x0 : 3 * x1] = span
    raw = b"".join(b"\x00" + bytes(row) for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def card_back(x: int, y: int, w: int, h: int) -> list[Rect]:
    """A face-down card: a cream border, the red back and a few lighter stripes."""
    border = max(2, w // 14)
    out: list[Rect] = [
        (x + 2, y, w - 4, h, CREAM),
        (x, y + 2, w, h - 4, CREAM),
        (x + border, y + border, w - 2 * border, h - 2 * border, BACK),
    ]
    step = max(6, h // 8)
    for sy in range(y + border + step // 2, y + h - border - 2, step):
        out.append((x + border + 3, sy, w - 2 * border - 6, max(1, step // 4), BACK_LINE))
    return out


TITLE = "Golf Race"
TEXT_X = 820
"""Where the words and the bars start: the table of card backs is on the left."""


def words(line: str) -> list[Rect]:
    """The app's name, and under it what the link is (``line``: "join the race", "results"…), in capitals
    of the 5×7 font, as large as the right-hand side holds them."""
    room = WIDTH - 48 - TEXT_X
    title_scale = max(1, min(7, room // max(1, text_width(TITLE, 1))))
    line_scale = max(1, min(4, room // max(1, text_width(line, 1))))
    rects = text_rects(TITLE, TEXT_X, 80, title_scale, GOLD)
    return rects + text_rects(line, TEXT_X, 80 + 7 * title_scale + 24, line_scale, CREAM)


def table(racers: Sequence[tuple[int, str]] | None, line: str = "solitaire") -> bytes:
    """The preview: the table of card backs, the app's name and ``line``; with ``racers`` ((removed, status)
    per seat), their bars."""
    rects: list[Rect] = [(24, 24, WIDTH - 48, HEIGHT - 48, FELT_LIGHT)]
    rects.append((32, 32, WIDTH - 64, HEIGHT - 64, FELT))
    rects += words(line)
    bars = list(racers or [])[:MAX_BARS]
    left = 80
    area = 680
    card_w = min(110, (area - 6 * 14) // 7)
    card_h = card_w * 7 // 5
    gap = (area - 7 * card_w) // 6
    for col in range(7):
        x = left + col * (card_w + gap)
        for row in range(5):
            rects += card_back(x, 70 + row * (card_h // 3), card_w, card_h)
    stock_y = 70 + 4 * (card_h // 3) + card_h + 40
    for i in range(4):
        rects += card_back(left + i * 5, stock_y - i * 3, card_w, card_h)
    rects += [(left + card_w + 60, stock_y, card_w, card_h, CREAM)]
    rects += [(left + card_w + 64, stock_y + 4, card_w - 8, card_h - 8, FELT_LIGHT)]
    if bars:
        x0, bar_w = TEXT_X, 320
        bar_h = min(40, (HEIGHT - 300) // len(bars) - 12)
        y = 250
        for removed, status in bars:
            fill = GREEN if status == "won" else GOLD if status == "playing" else GREY
            rects.append((x0, y, bar_w, bar_h, TRACK))
            done = bar_w * max(0, min(TABLEAU, removed)) // TABLEAU
            rects.append((x0, y, done, bar_h, fill))
            y += bar_h + 12
    return png(WIDTH, HEIGHT, FELT, rects)


def icon(size: int) -> bytes:
    """The app's icon: one card back on the felt (maskable: the card stays inside the middle 80 %)."""
    w = size * 44 // 100
    h = w * 7 // 5
    return png(size, size, FELT, card_back((size - w) // 2, (size - h) // 2, w, h))
