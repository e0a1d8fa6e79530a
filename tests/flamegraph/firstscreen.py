#!/usr/bin/env python3
"""Checks a 1200x800 screenshot of a flame graph (a PNG from headless
chromium): the root frame (drawn in #d0a080 across the graph's width) and
the two levels above it are inside the first screen.

usage: firstscreen.py SHOT.png
Prints what it found; exits 1 with the reason when the check fails."""
import struct
import sys
import zlib

ROOT = (0xd0, 0xa0, 0x80)
BG = (0xf8, 0xf4, 0xee)


def decode(path):
    """8-bit RGB/RGBA, non-interlaced PNG -> (width, height, rows of
    (r, g, b) tuples). The standard library has no PNG reader."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('not a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit('unsupported PNG (depth %d, type %d)' % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def main():
    w, h, rows = decode(sys.argv[1])
    if (w, h) != (1200, 800):
        sys.exit('screenshot is %dx%d, not 1200x800' % (w, h))
    xs = range(20, 1180)
    # the root: the lowest band of rows that are (almost) all root colour
    root = [y for y in range(h)
            if sum(rows[y][x] == ROOT for x in xs) > 0.9 * len(xs)]
    if not root:
        sys.exit('no root frame in the first screen')
    top = min(y for y in root if y > max(root) - 20)
    fh = max(root) - top + 2  # a frame and its 1-pixel gap
    print('root frame at y=%d..%d' % (top, max(root)))
    # each level above: the band of rows just above the previous one
    # holds frames (not background) over most of the graph's width
    for level in (1, 2):
        y = top - fh * level + fh // 2
        if y < 0:
            sys.exit('level %d above the root is above the screen' % level)
        cover = sum(rows[y][x] != BG for x in xs) / len(xs)
        print('level %d at y=%d: %.0f%% covered' % (level, y, 100 * cover))
        if cover < 0.5:
            sys.exit('level %d above the root (y=%d) is not drawn there'
                     % (level, y))


main()
