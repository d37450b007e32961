"""``mindspore.utils``: exchanging Tensors with other libraries through DLPack (``to_dlpack``,
``from_dlpack``), without copying. The rest of MindSpore's module (Ascend fault detection and recovery:
``stress_detect``, ``sdc_detect_*``, ``ExitByRequest``, ...) has no meaning on opbuild's targets and is not
provided."""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.tensor import Tensor

_CPU = 1  # DLPack's kDLCPU


class _Capsule:
    """A bare DLPack capsule (what ``torch.utils.dlpack.to_dlpack`` returns) in the protocol NumPy reads."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_CPU, 0)


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of ``tensor``'s data (shared, not copied): ``torch.utils.dlpack.from_dlpack`` and other
    libraries read it. A tensor on the GPU is downloaded first (opbuild's DLPack tensors live on the CPU)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: tensor must be a Tensor, got {type(tensor).__name__}")
    return tensor.asnumpy().__dlpack__()


def from_dlpack(dlpack: Any) -> Tensor:
    """A Tensor sharing the memory of a DLPack capsule or of an object with ``__dlpack__`` (a torch tensor, a
    NumPy array, ...) on the CPU. Memory on another device is refused: copy it to the host first."""
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    if hasattr(source, "__dlpack_device__") and source.__dlpack_device__()[0] != _CPU:
        raise ValueError(f"from_dlpack: the data is on DLPack device {source.__dlpack_device__()}, not the CPU; "
                         "copy it to the host first (e.g. tensor.cpu())")
    try:
        array = np.from_dlpack(source)
    except (TypeError, ValueError, BufferError, RuntimeError) as e:
        raise TypeError(f"from_dlpack: cannot read {type(dlpack).__name__} as DLPack ({e}); pass a DLPack capsule "
                        "or an object with __dlpack__") from None
    if not array.flags.c_contiguous:  # a strided view (e.g. a transposed torch tensor): Tensors are contiguous
        array = np.ascontiguousarray(array)
    return Tensor.from_numpy(array)


__all__ = ["to_dlpack", "from_dlpack"]
