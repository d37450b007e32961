"""``CsvToMR``: a CSV file (first line: column names) to a MindRecord file, with the schema MindSpore's
converter infers: a column of integers is int64, of numbers float64, of True/False int32 (1/0), anything else
string; every converted column is indexed. MindSpore reads the CSV with pandas; this reads it with the csv
module and infers the same types for plain CSV (pandas' extra parsing rules, such as thousands separators or
missing values in number columns, are not reproduced: such columns become strings)."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .filewriter import SUCCESS, FileWriter


def _column_type(values: list[str]) -> str:
    def all_parse(kind: type) -> bool:
        try:
            for v in values:
                kind(v)
        except ValueError:
            return False
        return True

    if values and all(v in ("True", "False") for v in values):
        return "bool"
    if values and all_parse(int):
        return "int64"
    if values and all_parse(float):
        return "float64"
    return "string"


class CsvToMR:
    """Convert ``source`` (a CSV file) to the MindRecord file ``destination`` (``partition_number`` shards),
    keeping ``columns_list`` (default: every column)."""

    def __init__(self, source: str, destination: str, columns_list: Sequence[str] | None = None,
                 partition_number: int = 1) -> None:
        if not isinstance(source, str):
            raise ValueError("The parameter source must be str.")
        if not isinstance(destination, str):
            raise ValueError("The parameter destination must be str.")
        if columns_list is not None and (not isinstance(columns_list, list)
                                         or not all(isinstance(c, str) for c in columns_list)):
            raise ValueError("The parameter columns_list must be list of str.")
        if not isinstance(partition_number, int) or isinstance(partition_number, bool):
            raise ValueError("The parameter partition_number must be int")
        self.source, self.destination = source, destination
        self.columns_list = list(columns_list) if columns_list else None
        self.partition_number = partition_number
        self.writer = FileWriter(destination, partition_number)

    def _read(self) -> tuple[list[str], list[dict[str, str]]]:
        if not os.path.isfile(self.source):
            raise OSError(f"Csv file {self.source} do not exist.")
        with open(self.source, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            names = list(reader.fieldnames or [])
        return names, rows

    def run(self) -> int:
        """Convert; returns SUCCESS (0)."""
        names, rows = self._read()
        columns = self.columns_list or names
        for col in columns:
            if col not in names:
                raise RuntimeError(f"The parameter columns_list is illegal, column {col} does not exist.")
            if col.isdigit():
                raise ValueError(f"The first line content: {col} of the CSV file is used as a column name and "
                                 "does not allow starting with a number.")
        if not columns:
            raise RuntimeError("Failed to generate schema from csv file.")
        kinds = {c: _column_type([r[c] for r in rows]) for c in columns}
        schema = {c: {"type": "int32" if k == "bool" else k} for c, k in kinds.items()}
        self.writer.set_header_size(1 << 24)
        self.writer.set_page_size(1 << 26)
        self.writer.add_schema(schema, "csv_schema")
        self.writer.add_index(list(columns))
        convert: dict[str, Any] = {"bool": lambda v: int(v == "True"), "int64": lambda v: np.int64(int(v)),
                                   "float64": lambda v: np.float64(float(v)), "string": str}
        batch_size = 256  # MindSpore's batches: they decide how rows spread over the partitions
        for start in range(0, len(rows), batch_size):
            self.writer.write_raw_data([{c: convert[kinds[c]](r[c]) for c in columns}
                                        for r in rows[start:start + batch_size]])
        self.writer.commit()
        return SUCCESS

    def transform(self) -> int:
        """Convert (MindSpore runs ``run`` in a thread here; the result is the same)."""
        return self.run()
