"""``MindPage``: rows of MindRecord files grouped by the values of an index field ("categories") and read
page by page (``mindspore.mindrecord.MindPage``). The categories come from the ``.db`` indexes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from .errors import MindRecordException, ParamValueError
from .filereader import open_shards, output_order


class MRMDefineCategoryError(MindRecordException, ValueError):
    """The category field is not an index field of the files."""


class MindPage:
    """Read rows by category: set ``category_field`` (one of ``candidate_fields``, the index fields), then
    ``read_category_info()`` lists the categories (JSON: id, name, count; names in text order) and
    ``read_at_page_by_id`` / ``read_at_page_by_name`` return page ``page`` of ``num_row`` rows of one
    category, in file order. ``num_consumer`` is accepted."""

    def __init__(self, file_name: str | Sequence[str], num_consumer: int = 4) -> None:
        if not isinstance(num_consumer, int) or num_consumer < 1:
            raise ParamValueError(f"num_consumer must be a positive int, got {num_consumer!r}")
        self._shards = open_shards(file_name)
        header = self._shards[0].header
        self._candidates = [f["index_field"] for f in header.get("index_fields") or []]
        self._names = output_order(self._shards[0].schema)
        self._category_field: str | None = None
        self._categories: list[tuple[str, list[tuple[int, int]]]] = []

    @property
    def candidate_fields(self) -> list[str]:
        """The fields rows can be grouped by (the index fields)."""
        return list(self._candidates)

    @property
    def category_field(self) -> str | None:
        """The field rows are grouped by."""
        return self._category_field

    @category_field.setter
    def category_field(self, category_field: str) -> None:
        if not isinstance(category_field, str) or category_field not in self._candidates:
            raise MRMDefineCategoryError(f"Field {category_field!r} is not a candidate category field (one of "
                                         f"{self._candidates})")
        # Categories are the field's values as SQLite writes them as text (1.0e-07 for a REAL), in text order
        # (so -1 comes before -2), as MindSpore lists them.
        groups: dict[str, list[tuple[int, int]]] = {}
        for s, shard in enumerate(self._shards):
            db = sqlite3.connect(f"file:{shard.path}.db?mode=ro", uri=True)
            try:
                found = db.execute(f'SELECT DISTINCT ROW_ID, CAST("{category_field}_0" AS TEXT) FROM INDEXES '
                                   "ORDER BY ROW_ID")
                for row_id, value in found:
                    groups.setdefault(value, []).append((s, row_id))
            finally:
                db.close()
        self._categories = sorted(groups.items(), key=lambda kv: kv[0])
        self._category_field = category_field

    def _checked(self) -> list[tuple[str, list[tuple[int, int]]]]:
        if self._category_field is None:
            raise RuntimeError("set MindPage.category_field (one of candidate_fields) first")
        return self._categories

    def read_category_info(self) -> str:
        """The categories as JSON: ``{"categories": [{"count", "id", "name"}, ...], "key": "<field>_0"}``."""
        categories = [{"count": len(rows), "id": k, "name": value}
                      for k, (value, rows) in enumerate(self._checked())]
        return json.dumps({"categories": categories, "key": f"{self._category_field}_0"}, separators=(",", ":"),
                          ensure_ascii=False)

    def _page(self, rows: list[tuple[int, int]], page: int, num_row: int) -> list[dict[str, Any]]:
        if page * num_row >= len(rows):
            raise RuntimeError(f"Invalid data, page no: {page} or page size: {num_row} is invalid: the category "
                               f"has {len(rows)} rows")
        out = []
        for s, row_id in rows[page * num_row:(page + 1) * num_row]:
            shard = self._shards[s]
            with open(shard.path, "rb") as f:
                row = shard.read_row(f, row_id)
            out.append({n: row[n] for n in self._names})
        return out

    @staticmethod
    def _check_page(page: Any, num_row: Any) -> None:
        if not isinstance(page, int) or page < 0:
            raise ParamValueError("Page should be int and greater than or equal to 0.")
        if not isinstance(num_row, int) or num_row <= 0:
            raise ParamValueError("num_row should be int and greater than 0.")

    def read_at_page_by_id(self, category_id: int, page: int, num_row: int) -> list[dict[str, Any]]:
        """Rows ``page * num_row`` to ``(page + 1) * num_row`` of category ``category_id``."""
        if not isinstance(category_id, int) or category_id < 0:
            raise ParamValueError("Category id should be int and greater than or equal to 0.")
        self._check_page(page, num_row)
        categories = self._checked()
        if category_id >= len(categories):
            raise RuntimeError(f"category_id: {category_id} could not found: there are {len(categories)} "
                               "categories")
        return self._page(categories[category_id][1], page, num_row)

    def read_at_page_by_name(self, category_name: str, page: int, num_row: int) -> list[dict[str, Any]]:
        """Rows ``page * num_row`` to ``(page + 1) * num_row`` of the category named ``category_name``."""
        if not isinstance(category_name, str):
            raise ParamValueError("Category name should be str.")
        self._check_page(page, num_row)
        for value, rows in self._checked():
            if value == category_name:
                return self._page(rows, page, num_row)
        raise RuntimeError(f"category_name: {category_name} could not found.")

