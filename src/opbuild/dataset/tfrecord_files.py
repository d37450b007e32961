"""TFRecord files read record by record: one pass over the headers indexes the records, and a record's
payload is read (and its data checksum checked) only when its row is asked for, so a dataset of many
gigabytes costs its index in memory, not its contents.

A record is the payload length (uint64 little-endian), a masked CRC-32C of those 8 bytes, the payload and a
masked CRC-32C of the payload. A GZIP or ZLIB file cannot be read at an offset, so it is decompressed once,
in a stream, into a temporary file that lives as long as the dataset."""

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


def _decompress(path: str, kind: str, out: str) -> None:
    """Write the decompressed bytes of ``path`` (``kind`` 'GZIP' or 'ZLIB') to ``out``, a chunk at a time."""
    try:
        with open(path, "rb") as src, open(out, "wb") as dst:
            if kind == "GZIP":
                with gzip.GzipFile(fileobj=src) as unzipped:
                    shutil.copyfileobj(unzipped, dst, _CHUNK)
                return
            inflate = zlib.decompressobj()
            while chunk := src.read(_CHUNK):
                while chunk:  # at most a chunk out per step: records compress very well
                    dst.write(inflate.decompress(chunk, _CHUNK))
                    chunk = inflate.unconsumed_tail
            dst.write(inflate.flush())
            if not inflate.eof:
                raise zlib.error("the compressed stream ends early (truncated?)")
    except (OSError, EOFError, zlib.error) as err:
        raise ValueError(f"TFRecordDataset: {path} is not {kind}-compressed ({err})") from None


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
            _decompress(path, compression_type, self._file)
        self.offsets, self.lengths = self._index(compression_type)

    def _index(self, compression_type: str | None) -> tuple[np.ndarray, np.ndarray]:
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
                    hint = "" if compression_type else \
                        "; if it is compressed, pass compression_type='GZIP' or 'ZLIB'"
                    raise ValueError(f"TFRecordDataset: {self.path} is not a TFRecord file (bad length checksum "
                                     f"at byte {pos})" + hint)
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
