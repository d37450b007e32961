"""``SummaryRecord``: write scalars, tensors, histograms, images (and loss landscapes) to a MindInsight summary
file, from ``add_value`` and from the summary operators (``ops.ScalarSummary``...) the network ran.

Unlike MindSpore, which packs and writes events in a pool of worker processes, opbuild writes each step's event
in the calling process when ``record`` is called: the file is complete once ``record``/``flush`` return. The
events are MindSpore 2.10's (tests/train/test_summary_record.py compares the bytes with recorded files, wall
times aside). The computational graph (``network=``, the ``graph`` plugin) and lineage records are not written:
opbuild's graphs are not MindSpore's ANF IR, and MindInsight's lineage needs MindSpore's own records.
"""

from __future__ import annotations

import atexit
import logging
import os
import platform
import re
import stat
import time
from collections import defaultdict
from collections.abc import Callable
from shutil import disk_usage
from typing import Any
from urllib.parse import quote

import numpy as np

from ...core import config
from ...core.tensor import Tensor
from ...nn.cell import Cell
from ...ops.printing import take_summaries
from ._events import frame, summary_event, version_event
from ._proto import DATA_TYPES

log = logging.getLogger("opbuild.summary")

_VALUE_PLUGINS = ("scalar", "tensor", "histogram", "image")
_NOT_WRITTEN = ("graph", "train_lineage", "eval_lineage", "dataset_graph", "custom_lineage_data")
_NAME_RE = re.compile(r"^[\w\-.]*$")  # what MindSpore accepts in a file prefix or suffix
_RECORD_OVERHEAD = 16  # the length, its CRC and the payload's CRC
_FREE_SPACE_FACTOR = 32


def _check_file_part(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"SummaryRecord: {what} must be a str, got {type(value).__name__}")
    if not _NAME_RE.match(value):
        raise ValueError(f"SummaryRecord: {what} {value!r} may hold only letters, digits, '_', '-' and '.'")
    return value


def _check_export_options(options: Any) -> dict | None:
    if options is None:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"SummaryRecord: export_options must be a dict or None, got {type(options).__name__}")
    for key, fmt in options.items():
        if key != "tensor_format":
            raise ValueError(f"SummaryRecord: export_options has the unsupported key {key!r}; the only key is "
                             "'tensor_format'")
        if fmt not in ("npy", None):
            raise ValueError(f"SummaryRecord: export_options['tensor_format'] must be 'npy' or None, got {fmt!r}")
    return dict(options)


def _tensor_value(plugin: str, name: Any, value: Any) -> np.ndarray:
    """``value`` as a NumPy array, checked for ``plugin`` as MindSpore checks it."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"SummaryRecord.add_value: name must be a non-empty str, got {name!r}")
    if not isinstance(value, Tensor):
        raise TypeError(f"SummaryRecord.add_value: value must be a Tensor for the {plugin!r} plugin, got "
                        f"{type(value).__name__}")
    array = np.array(value.asnumpy(), copy=True)
    # Refused now: at record time the failure would lose the step's other values. A scalar is written as a float
    # (so bfloat16 is fine); tensors and histograms keep their dtype.
    if array.dtype.name not in DATA_TYPES and (plugin != "scalar" or array.dtype.name != "bfloat16"):
        raise TypeError(f"SummaryRecord.add_value: {name!r} has dtype {array.dtype.name}, which a summary cannot "
                        f"hold ({', '.join(DATA_TYPES)}); cast the value first")
    if plugin == "scalar" and array.size != 1:
        raise ValueError(f"SummaryRecord.add_value: a scalar must hold one element, got shape {list(array.shape)}")
    if plugin == "image" and array.ndim != 4:
        raise ValueError(f"SummaryRecord.add_value: an image must be 4-D (N, C, H, W), got shape "
                         f"{list(array.shape)}")
    if plugin in ("tensor", "histogram") and array.ndim == 0:
        raise ValueError(f"SummaryRecord.add_value: a {plugin} value must have at least one dimension")
    return array


class _EventFile:
    """The summary file: created with its version event, one framed record per write, read-only once closed."""

    def __init__(self, path: str, max_file_size: int | None, raise_exception: bool) -> None:
        self.path, self._left, self._raise = path, max_file_size, raise_exception
        with open(path, "xb"):  # never truncates: FileExistsError when an earlier record holds the name
            os.chmod(path, stat.S_IWUSR | stat.S_IRUSR)
        self._file: Any = open(path, "ab")  # noqa: SIM115 (open until close())
        self.write(version_event(time.time()).SerializeToString())

    def write(self, payload: bytes) -> None:
        if self._file is None:
            return
        needed = len(payload) + _RECORD_OVERHEAD
        try:
            if disk_usage(os.path.dirname(self.path) or ".").free < needed * _FREE_SPACE_FACTOR:
                raise RuntimeError(f"SummaryRecord: the disk holding {self.path!r} is almost full")
            if self._left is not None:
                if self._left < needed:
                    log.warning("SummaryRecord: max_file_size reached: %d bytes left, %d needed; %r is closed "
                                "and nothing more is written", self._left, needed, self.path)
                    self.close()
                    return
                self._left -= needed
            self._file.write(frame(payload))
        except (RuntimeError, OSError) as err:
            log.error("%s", err)
            self.close()
            if self._raise:
                raise

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            try:
                os.chmod(self.path, stat.S_IRUSR)
            except FileNotFoundError:
                pass


class SummaryRecord:
    """``SummaryRecord(log_dir, file_prefix='events', file_suffix='_MS', num_process=32, network=None,
    max_file_size=None, raise_exception=False, export_options=None)``: a summary file in ``log_dir`` named
    ``<prefix>.out.events.summary.<seconds>.<device id>.<host><suffix>``. ``add_value`` queues a value and
    ``record(step)`` writes the queued values and those of the summary operators run since the last record
    as one event. Only one may be open at a time; close it (or use ``with``). ``num_process`` is accepted
    and unused (opbuild writes in the calling process); ``network`` is accepted but no graph is written."""

    count = 0

    def __init__(self, log_dir: str, file_prefix: str = "events", file_suffix: str = "_MS", num_process: int = 32,
                 network: Cell | None = None, max_file_size: int | None = None, raise_exception: bool = False,
                 export_options: dict | None = None) -> None:
        if SummaryRecord.count > 0:
            raise RuntimeError("SummaryRecord: only one SummaryRecord may be open in a process and one is "
                               f"already open ({SummaryRecord.count}); close it first")
        if not isinstance(log_dir, str) or not log_dir:
            raise TypeError(f"SummaryRecord: log_dir must be a non-empty str, got {log_dir!r}")
        if max_file_size is not None and (isinstance(max_file_size, bool) or not isinstance(max_file_size, int)):
            raise TypeError(f"SummaryRecord: max_file_size must be an int or None, got {max_file_size!r}")
        _check_file_part("file_prefix", file_prefix)
        _check_file_part("file_suffix", file_suffix)
        if not isinstance(raise_exception, bool):
            raise TypeError(f"SummaryRecord: raise_exception must be a bool, got {raise_exception!r}")
        if network is not None and not isinstance(network, Cell):
            raise TypeError(f"SummaryRecord: network must be a Cell or None, got {type(network).__name__}")
        self._export_options = _check_export_options(export_options)
        if max_file_size is not None and max_file_size < 0:
            log.warning("SummaryRecord: max_file_size %d is negative; the file size is not limited", max_file_size)
            max_file_size = None
        os.makedirs(log_dir, exist_ok=True)
        device = config.get_context("device_id") or 0
        self.base_log_dir, self.file_prefix, self.file_suffix = log_dir, file_prefix, file_suffix
        self.network, self.max_file_size, self.raise_exception = network, max_file_size, raise_exception
        seconds = int(time.time())
        while True:
            # Unlike MindSpore, which truncates the file of an earlier record opened in the same second, the
            # name's time moves on to the next free second: no summary file is ever overwritten.
            name = f"{file_prefix}.out.events.summary.{seconds}.{device}.{platform.node()}{file_suffix}"
            self.file_info = {"file_name": name, "file_path": os.path.join(os.path.realpath(log_dir), name)}
            try:
                self._file = _EventFile(self.file_info["file_path"], max_file_size, raise_exception)
                break
            except FileExistsError:
                seconds += 1
        self._export_dir = os.path.join(log_dir, f"export_{seconds}")
        self._mode, self._closed = "train", False
        self._pool: dict[str, list[dict]] = defaultdict(list)
        take_summaries()  # values from before this record are not its own
        SummaryRecord.count += 1
        atexit.register(self.close)

    def __enter__(self) -> SummaryRecord:
        if self._closed:
            raise ValueError("SummaryRecord: this SummaryRecord is closed; create a new one")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def log_dir(self) -> str:
        """The full path of the summary file."""
        return self.file_info["file_path"]

    def set_mode(self, mode: str) -> None:
        """``'train'`` or ``'eval'``; in ``'eval'``, ``record`` leaves the summary operators' values out."""
        if mode not in ("train", "eval"):
            raise ValueError(f"SummaryRecord.set_mode: mode must be 'train' or 'eval', got {mode!r}")
        self._mode = mode

    def add_value(self, plugin: str, name: str, value: Any) -> None:
        """Queue ``value`` (a Tensor) under ``name`` for the next ``record``; ``plugin`` is ``'scalar'``,
        ``'tensor'``, ``'histogram'``, ``'image'`` or ``'landscape'`` (a LossLandscape message or its bytes)."""
        if plugin in _VALUE_PLUGINS:
            array = _tensor_value(plugin, name, value)
            if any(item["tag"] == name for item in self._pool[plugin]):
                log.warning("SummaryRecord.add_value: %r has two values for one step", f"{name}/{plugin}")
            self._pool[plugin].append({"tag": name, "value": array})
        elif plugin in ("landscape", "LANDSCAPE"):
            data = value if isinstance(value, bytes) else getattr(value, "SerializeToString", None)
            if data is None:
                raise TypeError(f"SummaryRecord.add_value: a landscape value must be a LossLandscape message or "
                                f"its bytes, got {type(value).__name__}")
            self._pool["landscape"].append({"tag": name, "value": data if isinstance(data, bytes) else data()})
        elif plugin in _NOT_WRITTEN:
            raise NotImplementedError(f"SummaryRecord.add_value: opbuild does not write the {plugin!r} plugin "
                                      "(MindSpore's graph and lineage records); write scalars, tensors, "
                                      "histograms and images")
        else:
            raise ValueError(f"SummaryRecord.add_value: unknown plugin {plugin!r}; use one of "
                             f"{', '.join(_VALUE_PLUGINS)}, landscape")

    def record(self, step: int, train_network: Cell | None = None,
               plugin_filter: Callable[[str], bool] | None = None) -> bool:
        """Write the queued values and (in ``'train'`` mode) the summary operators' values as the event of
        ``step``; ``plugin_filter(plugin)`` picks the plugins written (the others are dropped). Returns False
        when closed."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"SummaryRecord.record: step must be an int, got {type(step).__name__}")
        if not -(1 << 63) <= step < 1 << 63:  # the event's step field is an int64
            raise ValueError(f"SummaryRecord.record: step must fit in int64, got {step}")
        if train_network is not None and not isinstance(train_network, Cell):
            raise TypeError(f"SummaryRecord.record: train_network must be a Cell or None, got "
                            f"{type(train_network).__name__}")
        if self._closed:
            log.error("SummaryRecord.record: this SummaryRecord is closed")
            return False
        if self._mode == "train":
            for name, value in take_summaries():
                match = re.match(r"(.+)\[:(.+)\]", name)
                if match:
                    self.add_value(match.group(2).lower(), match.group(1), Tensor(value))
        pool, self._pool = self._pool, defaultdict(list)
        values = [(plugin, item["tag"], item["value"]) for plugin, items in pool.items()
                  if plugin_filter is None or plugin_filter(plugin) for item in items]
        if values:
            self._file.write(summary_event(values, step, time.time()).SerializeToString())
        if self._export_options and self._export_options.get("tensor_format") == "npy":
            for plugin, tag, value in values:
                if plugin == "tensor":
                    self._export_npy(tag, step, value)
        return True

    def _export_npy(self, tag: str, step: int, value: np.ndarray) -> None:
        folder = os.path.join(self._export_dir, "tensor")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{quote(tag, safe='')}_{step}.npy")
        np.save(path, value)
        os.chmod(path, stat.S_IRUSR)

    def flush(self) -> None:
        """Write what is buffered to disk."""
        if self._closed:
            log.error("SummaryRecord.flush: this SummaryRecord is closed")
        else:
            self._file.flush()

    def close(self) -> None:
        """Flush and close the file (it becomes read-only); another SummaryRecord may then be created."""
        if not self._closed:
            atexit.unregister(self.close)
            self._file.close()
            self._closed = True
            SummaryRecord.count -= 1
