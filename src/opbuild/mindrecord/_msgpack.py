"""The subset of MessagePack that MindRecord raw pages hold: one map per row from field names to ints, floats
and strings. Encoding follows the C++ JSON library MindSpore packs rows with, so the bytes match MindSpore's:
keys sorted, the smallest integer encoding, and floats packed as float32 when that is exact."""

from __future__ import annotations

import math
import struct
from typing import Any


def _pack_int(n: int) -> bytes:
    if n >= 0:
        if n < 0x80:
            return bytes((n,))
        for code, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 0xFFFFFFFF)):
            if n <= top:
                return bytes((code,)) + struct.pack(fmt, n)
        return b"\xcf" + struct.pack(">Q", n)
    if n >= -32:
        return struct.pack(">b", n)
    for code, fmt, low in ((0xD0, ">b", -0x80), (0xD1, ">h", -0x8000), (0xD2, ">i", -0x80000000)):
        if n >= low:
            return bytes((code,)) + struct.pack(fmt, n)
    return b"\xd3" + struct.pack(">q", n)


def _pack_float(x: float) -> bytes:
    single = struct.unpack(">f", struct.pack(">f", x))[0] if abs(x) <= 3.4028234663852886e38 or not \
        math.isfinite(x) else None
    if not math.isfinite(x) or single == x:
        return b"\xca" + struct.pack(">f", x)
    return b"\xcb" + struct.pack(">d", x)


def _pack_str(s: str) -> bytes:
    raw = s.encode("utf-8")
    n = len(raw)
    if n < 32:
        head = bytes((0xA0 | n,))
    elif n <= 0xFF:
        head = b"\xd9" + struct.pack(">B", n)
    elif n <= 0xFFFF:
        head = b"\xda" + struct.pack(">H", n)
    else:
        head = b"\xdb" + struct.pack(">I", n)
    return head + raw


def pack_row(row: dict[str, Any]) -> bytes:
    """One row (field name -> int, float or str) as a MessagePack map, keys in byte order."""
    n = len(row)
    parts = [bytes((0x80 | n,)) if n < 16 else b"\xde" + struct.pack(">H", n)]
    for key in sorted(row, key=lambda k: k.encode("utf-8")):
        value = row[key]
        parts.append(_pack_str(key))
        if isinstance(value, str):
            parts.append(_pack_str(value))
        elif isinstance(value, float):
            parts.append(_pack_float(value))
        else:
            parts.append(_pack_int(int(value)))
    return b"".join(parts)


_FIXED = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
          0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}


def _unpack(buf: bytes, pos: int) -> tuple[Any, int]:
    code = buf[pos]
    pos += 1
    if code < 0x80:
        return code, pos
    if code >= 0xE0:
        return code - 0x100, pos
    if 0xA0 <= code <= 0xBF or code in (0xD9, 0xDA, 0xDB):
        if code <= 0xBF:
            n = code & 0x1F
        else:
            width = {0xD9: 1, 0xDA: 2, 0xDB: 4}[code]
            n = int.from_bytes(buf[pos:pos + width], "big")
            pos += width
        return buf[pos:pos + n].decode("utf-8"), pos + n
    if 0x80 <= code <= 0x8F or code in (0xDE, 0xDF):
        if code <= 0x8F:
            n = code & 0x0F
        else:
            width = 2 if code == 0xDE else 4
            n = int.from_bytes(buf[pos:pos + width], "big")
            pos += width
        out = {}
        for _ in range(n):
            key, pos = _unpack(buf, pos)
            out[key], pos = _unpack(buf, pos)
        return out, pos
    if code in _FIXED:
        fmt = _FIXED[code]
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, buf[pos:pos + size])[0], pos + size
    if code in (0xC0, 0xC2, 0xC3):
        return (None, False, True)[(0xC0, 0xC2, 0xC3).index(code)], pos
    raise ValueError(f"unsupported MessagePack type byte 0x{code:02x} at offset {pos - 1}")


def unpack_row(buf: bytes) -> dict[str, Any]:
    """The map :func:`pack_row` wrote (or MindSpore did)."""
    value, end = _unpack(buf, 0)
    if not isinstance(value, dict) or end != len(buf):
        raise ValueError("a raw page row is not one MessagePack map")
    return value
