"""TFRecord files read record by record: one pass over the headers indexes the records, and a record's
payload is read (and its data checksum checked) only when its row is asked for, so a dataset of many
gigabytes costs its index in memory, not its contents.

A record is the payload length (uint64 little-endian), a masked CRC-32C of those 8 bytes, the payload and a
masked CRC-32C of the payload. A GZIP or ZLIB file cannot be read at an offset, so it is decompressed once,
in a stream, into a temporary file that lives as long as the dataset; its records are indexed as they stream
by, so a stream that is not TFRecord is refused at its first bad header rather than after all of it is out."""

from __future__ import annotations

import gzip
import os
import shutil
import struct
import tempfile
import weakref
import zlib

import numpy as np

from ..core.crc32c import crc32c, mask, masked_crc32c

_CHUNK = 1 << 18


class _StreamIndex:
    """The record index of a byte stream read once (a decompressed file as it is written): each header is
    checked as soon as its 12 bytes have gone by, so a stream that is not TFRecord (a gzip bomb of zeros
    among them) is refused at its first bad header, not after the whole stream was written out."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offsets: list[int] = []
        self.lengths: list[int] = []
        self._seen = 0  # bytes fed so far
        self._next = 0  # stream offset of the next header
        self._head = bytearray()  # the start of a header that straddles two chunks

    def feed(self, chunk: bytes) -> None:
        view, base = memoryview(chunk), self._seen
        self._seen += len(chunk)
        while True:
            if self._head:  # this chunk continues the header begun at the end of the last one
                take = 12 - len(self._head)
                self._head += view[:take]
                if len(self._head) < 12:
                    return
                head, self._head = bytes(self._head), bytearray()
                self._header(head)
                continue
            at = self._next - base
            if at >= len(chunk):
                return
            if at + 12 > len(chunk):
                self._head = bytearray(view[at:])
                return
            self._header(bytes(view[at:at + 12]))

    def _header(self, head: bytes) -> None:
        (length,) = struct.unpack("<Q", head[:8])
        if struct.unpack("<I", head[8:])[0] != masked_crc32c(head[:8]):
            raise ValueError(f"TFRecordDataset: {self.path} is not a TFRecord file once decompressed (bad length "
                             f"checksum at byte {self._next} of its decompressed data)")
        self.offsets.append(self._next + 12)
        self.lengths.append(length)
        self._next += 12 + length + 4

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """The index once the whole stream was fed; a ValueError if it ends inside a record."""
        if self._head:
            raise ValueError(f"TFRecordDataset: {self.path} ends inside a record header at byte "
                             f"{self._seen - len(self._head)} of its decompressed data (truncated?)")
        if self._next > self._seen:
            raise ValueError(f"TFRecordDataset: {self.path} is truncated (a record at byte {self.offsets[-1] - 12} of "
                             f"its decompressed data needs {self.lengths[-1]} bytes)")
        return np.array(self.offsets, np.int64), np.array(self.lengths, np.int64)


def _decompress(path: str, kind: str, out: str) -> tuple[np.ndarray, np.ndarray]:
    """Write the decompressed bytes of ``path`` (``kind`` 'GZIP' or 'ZLIB') to ``out``, a chunk at a time,
    indexing the records as they go by; return the index (offsets, lengths). Concatenated streams (gzip
    members, zlib streams) are read one after the other, as gzip does: nothing after the first is dropped."""
    index = _StreamIndex(path)

    def put(data: bytes) -> None:
        try:
            dst.write(data)
        except OSError as err:  # ENOSPC: the folder of temporary files is full, not the file damaged
            raise OSError(err.errno, f"TFRecordDataset: cannot write the decompressed copy of {path} to "
                          f"{os.path.dirname(out)} ({err.strerror or err}): set TMPDIR to a folder with room "
                          "for it") from None
        index.feed(data)

    try:
        with open(path, "rb") as src, open(out, "wb") as dst:
            if kind == "GZIP":
                with gzip.GzipFile(fileobj=src) as unzipped:
                    while chunk := unzipped.read(_CHUNK):
                        put(chunk)
            else:
                pending = src.read(_CHUNK)
                while True:  # one zlib stream after another (an empty file is one that ends early)
                    inflate = zlib.decompressobj()
                    while pending and not inflate.eof:
                        while pending and not inflate.eof:  # a chunk out per step: records compress very well
                            put(inflate.decompress(pending, _CHUNK))
                            pending = inflate.unconsumed_tail
                        if not inflate.eof:
                            pending = src.read(_CHUNK)
                    if not inflate.eof:
                        raise zlib.error("the compressed stream ends early (truncated?)")
                    # At its end a stream has given all its output; what followed it (read along with it) is
                    # in unused_data, the rest is unread. (No flush(): after the end it appends the unconsumed
                    # tail to unused_data a second time.)
                    pending = inflate.unused_data or src.read(_CHUNK)
                    if not pending:
                        break
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise ValueError(f"TFRecordDataset: {path} is not {kind}-compressed ({err})") from None
    return index.finish()


class RecordFile:
    """The records of one TFRecord file (``compression_type`` None, 'GZIP' or 'ZLIB'): ``len()`` of them,
    ``read(i)`` the payload of record ``i`` after checking its data checksum. Construction reads every
    header and checks its length checksum, so a file that is not TFRecord, or is truncated, is refused
    at once."""

    def __init__(self, path: str, compression_type: str | None = None) -> None:
        self.path = path
        self._file = path
        if compression_type:
            scratch = tempfile.mkdtemp(prefix="opbuild-tfrecord-")
            # The decompressed copy goes when this object does (or at exit), whichever comes first.
            weakref.finalize(self, shutil.rmtree, scratch, True)
            self._file = os.path.join(scratch, "records")
            self.offsets, self.lengths = _decompress(path, compression_type, self._file)
        else:
            self.offsets, self.lengths = self._index()

    def _index(self) -> tuple[np.ndarray, np.ndarray]:
        offsets, lengths = [], []
        size = os.path.getsize(self._file)
        with open(self._file, "rb") as f:
            pos = 0
            while pos < size:
                head = f.read(12)
                if len(head) < 12:
                    raise ValueError(f"TFRecordDataset: {self.path} ends inside a record header at byte {pos} "
                                     "(truncated?)")
                (length,) = struct.unpack("<Q", head[:8])
                if struct.unpack("<I", head[8:])[0] != masked_crc32c(head[:8]):
                    raise ValueError(f"TFRecordDataset: {self.path} is not a TFRecord file (bad length checksum "
                                     f"at byte {pos}); if it is compressed, pass compression_type='GZIP' or 'ZLIB'")
                end = pos + 12 + length + 4
                if end > size:
                    raise ValueError(f"TFRecordDataset: {self.path} is truncated (a record at byte {pos} needs "
                                     f"{length} bytes)")
                offsets.append(pos + 12)
                lengths.append(length)
                pos = end
                f.seek(pos)
        return np.array(offsets, np.int64), np.array(lengths, np.int64)

    def __len__(self) -> int:
        return len(self.offsets)

    def read(self, i: int) -> bytes:
        """The payload of record ``i``; a ValueError when its header no longer matches the index or its data
        checksum fails (a file changed or damaged since it was indexed must not read as other values)."""
        offset, length = int(self.offsets[i]), int(self.lengths[i])
        fd = os.open(self._file, os.O_RDONLY)
        try:
            blob = os.pread(fd, 12 + length + 4, offset - 12)
        finally:
            os.close(fd)
        head = blob[:8]
        if len(blob) < 12 + length + 4 or struct.unpack("<Q", head)[0] != length \
                or struct.unpack("<I", blob[8:12])[0] != masked_crc32c(head):
            raise ValueError(f"TFRecordDataset: {self.path} changed after the dataset was built: record {i} at "
                             f"byte {offset - 12} is no longer the {length}-byte record indexed there")
        payload = blob[12:12 + length]
        if int(mask(crc32c(payload))) != struct.unpack("<I", blob[12 + length:])[0]:
            raise ValueError(f"TFRecordDataset: {self.path} is damaged: record {i} (data at byte {offset}, "
                             f"{length} bytes) fails its checksum")
        return payload
