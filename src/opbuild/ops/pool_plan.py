"""The band layout of the MaxPool/AvgPool CPU kernels and their per-plane buffers (targets/cpu/kernels/pooling.py
describes the passes that use them), as plain arithmetic on shapes: the kernel emits it, and the op declares
the workspace it needs (``OpDef.workspace``) from the same functions.

Each plane's buffers live on the stack while they fit in :data:`POOL_STACK_BYTES`; very wide rows (which also
run on OpenMP's threads, whose stacks are smaller) take one slot of the kernel's planned workspace per thread
instead (ops/scratch_plan.py ``slots``), never a ``malloc`` in the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.dtypes import BY_NAME
from ..core.ir import TensorType
from .scratch_plan import Part, layout_bytes, slots

# Outputs per band: the horizontal fold's flat loop length (the band's buffers stay in L1).
BAND_OUTPUTS = 256
# Per-plane buffers larger than this live in the workspace rather than on the stack.
POOL_STACK_BYTES = 64 << 10
# Windows of up to this many rows (columns) fold in registers; taller ones fold row by row into the band row,
# wider ones tap by tap over the band.
UNROLL_TAPS = 8


def band_geometry(w: int, oh: int, ow: int, kw: int, sw: int, pl: int) -> dict[str, int]:
    """The band layout of a pooling kernel: ``owp`` domain columns per output row (``ow`` real ones first),
    ``wp`` = ``owp * sw`` padded input columns per band row, ``wu`` input columns read (those a window
    reaches), ``rows`` output rows per band (about BAND_OUTPUTS outputs, the bands of a plane as even as
    they can be) and ``tail``, the elements a dropped column reads past a band's end (the buffers'
    identity-filled tail)."""
    owp = ow - 1 + -(-kw // sw)
    wp = owp * sw
    bands = -(-oh // max(1, min(oh, BAND_OUTPUTS // owp)))
    return {"owp": owp, "wp": wp, "wu": min(w, wp - pl), "rows": -(-oh // bands), "tail": (kw - 1) // sw}


def compute_dtype(dtype: str) -> str:
    """The dtype a pooling kernel folds ``dtype`` in (float32 for the half types)."""
    return "float32" if BY_NAME[dtype].is_half else dtype


def plane_buffers(avg: bool, attrs: dict, x: TensorType, out: TensorType) -> dict[str, int]:
    """The per-plane buffers of a pooling kernel: name -> elements of :func:`compute_dtype`."""
    h, w = x.shape[2:]
    oh, ow = out.shape[2:]
    (kh, kw), (_, sw), (_, _, pl, _) = attrs["kernel_size"], attrs["strides"], attrs["pad"]
    g = band_geometry(w, oh, ow, kw, sw, pl)
    owp, wp, rows, tail = g["owp"], g["wp"], g["rows"], g["tail"]
    nph = min(sw, kw) if sw > 1 else 0
    direct = not avg and not BY_NAME[x.dtype].is_half and owp == ow  # the domain is the output band itself
    sizes = {"vb": rows * wp + (tail if sw == 1 else 0), **{f"ph{m}": rows * owp + tail for m in range(nph)}}
    sizes |= {} if direct else {"dom": rows * owp}
    if x.dtype == "float16":  # converted rows (one, or a full window's), a row of results
        sizes |= {"rowv": g["wu"] * (kh if kh <= UNROLL_TAPS else 1), "res": ow}
    return sizes


def on_stack(avg: bool, attrs: dict, x: TensorType, out: TensorType) -> bool:
    """Whether a plane's buffers fit on the stack."""
    c = compute_dtype(x.dtype)
    return sum(plane_buffers(avg, attrs, x, out).values()) * BY_NAME[c].np_dtype.itemsize <= POOL_STACK_BYTES


def plane_slot(avg: bool, attrs: dict, x: TensorType, out: TensorType) -> list[Part]:
    """The parts of one plane's slot of the workspace."""
    c = compute_dtype(x.dtype)
    return [(name, c, n) for name, n in plane_buffers(avg, attrs, x, out).items()]


def plane_slots(avg: bool, attrs: dict, x: TensorType, out: TensorType) -> int:
    """Slots of a pooling kernel whose buffers leave the stack: one per thread splitting the planes."""
    return slots(x.shape[0] * x.shape[1], layout_bytes(plane_slot(avg, attrs, x, out)))


def pool_layout(avg: bool) -> Callable[[dict, Sequence[TensorType], Sequence[TensorType]], list[Part]]:
    """The workspace layout of MaxPool (``avg`` False) or AvgPool: none while a plane's buffers fit on the
    stack, else :func:`plane_slots` slots of :func:`plane_slot`."""
    def layout(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
        x, out = ins[0], outs[0]
        if out.size == 0 or on_stack(avg, attrs, x, out):
            return []
        return [("slots", "uint8", plane_slots(avg, attrs, x, out) * layout_bytes(plane_slot(avg, attrs, x, out)))]
    return layout


__all__ = ["BAND_OUTPUTS", "POOL_STACK_BYTES", "UNROLL_TAPS", "band_geometry", "compute_dtype", "on_stack",
           "plane_buffers", "plane_slot", "plane_slots", "pool_layout"]
