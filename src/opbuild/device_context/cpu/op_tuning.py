"""``mindspore.device_context.cpu.op_tuning``: the CPU kernels' thread count."""

from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["threads_num"]

_lock = threading.Lock()
_threads: list[int] = []  # the count set by threads_num, once (process state: OpenMP's pool is the process's)


def _set_loaded_pool(num: int) -> None:
    """Tell an already loaded libgomp: its ``OMP_NUM_THREADS`` was read when it was loaded."""
    try:
        gomp = ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOW | os.RTLD_NOLOAD)
    except OSError:
        return  # not loaded yet: it reads OMP_NUM_THREADS (set below) when the first OpenMP kernel loads it
    gomp.omp_set_num_threads(ctypes.c_int(num))


def threads_num(num: int) -> None:
    """Set how many threads opbuild's CPU kernels use for their parallel loops (OpenMP's pool), once per process.

    opbuild's parallel loops run on OpenMP's pool (docs/threads.md), so this sets ``OMP_NUM_THREADS`` for an
    OpenMP runtime not loaded yet and ``omp_set_num_threads`` on one already loaded (it applies to the loops
    started from the calling thread and the threads it starts afterwards). The BLAS keeps its own pool. As in
    MindSpore, ``num`` must be a positive int and a second call raises a RuntimeError.
    """
    if isinstance(num, bool) or not isinstance(num, int):
        kind = "bool" if isinstance(num, bool) else type(num).__name__
        raise TypeError(f"device_context.cpu.threads_num: num must be a positive int, got {num!r} ({kind})")
    if num <= 0:
        raise ValueError(f"device_context.cpu.threads_num: num must be a positive int, got {num}")
    with _lock:
        if _threads:
            raise RuntimeError(f"device_context.cpu.threads_num: the thread count was already set to {_threads[0]} "
                               "and can be set only once per process")
        _threads.append(num)
        os.environ["OMP_NUM_THREADS"] = str(num)
        _set_loaded_pool(num)
