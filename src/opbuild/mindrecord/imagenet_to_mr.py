"""``ImageNetToMR``: a folder of JPEG images, one sub-folder per class, to MindRecord files; the image files
are stored as they are (``label`` int32, ``image`` bytes, ``file_name`` string; MindSpore's schema, index and
batches)."""

from __future__ import annotations

import os
from typing import Any

from .filewriter import SUCCESS, FileWriter


class ImageNetToMR:
    """Convert the images under ``image_dir`` to ``destination`` (``partition_number`` shards). ``map_file``
    has one line per class: ``<folder> <label>``. Files not ending in ``JPEG`` or ``jpg`` are skipped, as are
    empty ones. Classes are read in map-file order and files in name order (MindSpore: directory order)."""

    def __init__(self, map_file: str, image_dir: str, destination: str, partition_number: int = 1) -> None:
        if not isinstance(partition_number, int) or isinstance(partition_number, bool):
            raise ValueError("The parameter partition_number must be int")
        self.map_file, self.image_dir, self.destination = map_file, image_dir, destination
        self.partition_number = partition_number
        self.writer = FileWriter(destination, partition_number)

    def _rows(self) -> list[dict[str, Any]]:
        if not os.path.isfile(self.map_file):
            raise OSError(f"map file {self.map_file} not exists")
        folders: dict[str, str] = {}
        with open(self.map_file) as f:
            for line in f:
                parts = line.split(" ")
                if len(parts) >= 2:
                    folders[parts[1].strip()] = parts[0]
        dirs = {label: os.path.join(self.image_dir, folder) for label, folder in folders.items()
                if os.path.isdir(os.path.join(self.image_dir, folder))}
        if not dirs:
            raise ValueError(f"ImageNetToMR: no folder named in {self.map_file} exists under {self.image_dir}")
        rows = []
        for label, folder in dirs.items():
            for item in sorted(os.listdir(folder)):
                if not item.endswith(("JPEG", "jpg")):
                    continue
                path = os.path.join(folder, item)
                with open(path, "rb") as fh:
                    image = fh.read()
                if image:
                    rows.append({"file_name": str(path), "label": int(label), "image": image})
        return rows

    def run(self) -> int:
        """Convert; returns SUCCESS (0)."""
        rows = self._rows()
        # MindSpore's converter asks for 64 MB pages, yet its files have the default 32 MB ones (seen with
        # MindSpore 2.10): the default is kept, so that the files match.
        self.writer.set_header_size(1 << 24)
        self.writer.add_schema({"label": {"type": "int32"}, "image": {"type": "bytes"},
                                "file_name": {"type": "string"}}, "imagenet_schema")
        self.writer.add_index(["label", "file_name"])
        for start in range(0, len(rows), 256):
            self.writer.write_raw_data(rows[start:start + 256])
        self.writer.commit()
        return SUCCESS

    def transform(self) -> int:
        """Convert (as ``run``)."""
        return self.run()
