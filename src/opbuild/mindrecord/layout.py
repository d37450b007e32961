"""How MindSpore places rows on the pages of a shard, reproduced so that the files match byte for byte.

Each ``write_raw_data`` batch is cut into row groups: a group is closed when the next row's blob would
overflow the current blob page, or its raw map would overflow the raw page space of the group. The first
group continues the shard's last blob page; every other group opens a new blob page. A group's raw maps stay
together on one raw page: when the continued group no longer fits its raw page, its raw bytes are copied to
a new raw page (the old copy stays on disk, past the old page's size). The blob pages of the batch are
numbered before its raw pages. A group's id is its blob page's ``page_type_id``; raw pages list the groups
they hold with their offsets."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from .errors import MRMCommitError


@dataclass
class Page:
    """One page being written."""

    page_id: int
    kind: str  # "BLOB_DATA" or "RAW_DATA"
    type_id: int
    data: bytearray = field(default_factory=bytearray)
    groups: list[dict[str, int]] = field(default_factory=list)
    start_row: int = 0
    end_row: int = 0
    # The size the header gives when it is less than the bytes on disk (a raw page a group moved away from).
    size: int | None = None

    def meta(self, shard_id: int) -> dict[str, Any]:
        """The page's entry in the header. Blob pages list one group with id 0, as MindSpore writes them."""
        groups = [{"id": 0, "offset": 0}] if self.kind == "BLOB_DATA" else self.groups
        size = len(self.data) if self.size is None else self.size
        return {"end_row_id": self.end_row, "page_id": self.page_id, "page_size": size,
                "page_type": self.kind, "page_type_id": self.type_id, "row_group_ids": groups,
                "shard_id": shard_id, "start_row_id": self.start_row}


def _framed(payload: bytes) -> bytes:
    return struct.pack("<Q", len(payload)) + payload


class ShardLayout:
    """The pages of one shard, filled batch by batch; :meth:`positions` gives each row's place for the
    ``.db``."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size
        self.pages: list[Page] = []
        self.index_values: list[list[Any]] = []
        self._blob: Page | None = None
        self._raw: Page | None = None

    def _add_page(self, kind: str, type_id: int, **kw: Any) -> Page:
        page = Page(len(self.pages), kind, type_id, **kw)
        self.pages.append(page)
        return page

    def _cut(self, blobs: list[bytes], raws: list[bytes]) -> list[tuple[int, int]]:
        """The batch's row groups (first: rows that continue the last blob page; may be empty)."""
        n_blob = len(self._blob.data) if self._blob else 0
        n_raw = len(self._raw.data) - self._raw.groups[-1]["offset"] if self._raw and self._raw.groups else 0
        groups, start = [], 0
        for i, (blob, raw) in enumerate(zip(blobs, raws)):
            b, r = 8 + len(blob), 8 + len(raw)
            if n_blob == 0 or n_blob + b > self.page_size or n_raw + r > self.page_size:
                groups.append((start, i))
                start, n_blob, n_raw = i, b, r
            else:
                n_blob += b
                n_raw += r
        groups.append((start, len(blobs)))
        return groups

    def add_batch(self, rows: list[tuple[bytes, bytes, list[Any]]]) -> None:
        """Append the rows of one ``write_raw_data`` call (packed raw map, blob, index values each)."""
        first = len(self.index_values)
        raws, blobs = [r[0] for r in rows], [r[1] for r in rows]
        for k, (raw, blob) in enumerate(zip(raws, blobs)):
            for what, payload in (("blob", blob), ("raw", raw)):
                if 8 + len(payload) > self.page_size:
                    raise MRMCommitError(f"row {first + k}: its {what} data needs {8 + len(payload)} bytes, more "
                                         f"than a page ({self.page_size}); call set_page_size with a larger size")
        groups = self._cut(blobs, raws)
        # Blobs: the first group continues the last blob page, every other group opens one.
        for k, (s, e) in enumerate(groups):
            if s == e:
                continue
            if k > 0:
                type_id = self._blob.type_id + 1 if self._blob else 0
                row = self._blob.end_row if self._blob else 0
                self._blob = self._add_page("BLOB_DATA", type_id, start_row=row, end_row=row)
            assert self._blob is not None
            for blob in blobs[s:e]:
                self._blob.data += _framed(blob)
            self._blob.end_row += e - s
        # Raw maps: a continued group that outgrows its raw page moves to a new one.
        s0, e0 = groups[0]
        head = sum(8 + len(r) for r in raws[s0:e0])
        if s0 < e0 and self._raw is not None and len(self._raw.data) + head > self.page_size:
            last = self._raw.groups.pop()
            moved = self._raw.data[last["offset"]:]
            self._raw.size = last["offset"]  # the moved bytes stay on disk, outside the page's size
            self._raw = self._add_page("RAW_DATA", self._raw.page_id + 1, data=bytearray(moved),
                                       groups=[{"id": last["id"], "offset": 0}])
        last_id = self._raw.groups[-1]["id"] if self._raw and self._raw.groups else -1
        for k, (s, e) in enumerate(groups):
            if s == e:
                continue
            size = sum(8 + len(r) for r in raws[s:e])
            if self._raw is None or len(self._raw.data) + size > self.page_size:
                self._raw = self._add_page("RAW_DATA", self._raw.page_id + 1 if self._raw else 0)
            if k > 0:
                last_id += 1
                self._raw.groups.append({"id": last_id, "offset": len(self._raw.data)})
            for raw in raws[s:e]:
                self._raw.data += _framed(raw)
        self.index_values.extend(r[2] for r in rows)

    def positions(self) -> list[tuple[int, ...]]:
        """Per row: row id, raw page id, raw start, raw end, row group, blob page id, blob start, blob end."""
        blob_of: dict[int, Page] = {p.type_id: p for p in self.pages if p.kind == "BLOB_DATA"}
        out: dict[int, tuple[int, ...]] = {}
        for page in self.pages:
            if page.kind != "RAW_DATA":
                continue
            for group in page.groups:
                blob_page = blob_of[group["id"]]
                raw_at, blob_at = group["offset"], 0
                for row in range(blob_page.start_row, blob_page.end_row):
                    raw_len = 8 + struct.unpack_from("<Q", page.data, raw_at)[0]
                    blob_len = 8 + struct.unpack_from("<Q", blob_page.data, blob_at)[0]
                    out[row] = (row, page.page_id, raw_at, raw_at + raw_len, group["id"], blob_page.page_id,
                                blob_at, blob_at + blob_len)
                    raw_at += raw_len
                    blob_at += blob_len
        return [out[r] for r in sorted(out)]
