"""Kernel requests: the cache identity of one kernel (canonical descriptor, entry name, symbol)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._version import __version__
from ..cache import key as cache_key
from ..core.ir import KernelSpec

if TYPE_CHECKING:
    from ..targets.base import Target


@dataclass
class KernelRequest:
    """One distinct kernel to get: its spec, entry name ``<op>_<hash>``, ``.info`` bytes and exported symbol."""

    spec: KernelSpec
    name: str
    info: bytes
    symbol: str
    needs_blas: bool


class Namer:
    """Names kernels for one toolchain: the toolchain part of every descriptor is encoded once per toolchain
    identity (``cache.key.InfoEncoder``), each kernel then adds only its own fields."""

    def __init__(self) -> None:
        self._encoder: cache_key.InfoEncoder | None = None

    def request(self, spec: KernelSpec, compiler: dict, target: Target, digest: Callable[[str], str]) -> KernelRequest:
        """The request of ``spec`` under toolchain identity ``compiler`` for ``target`` (its identity, ABI,
        code-generator hash and optimisation class); ``digest`` hashes generator source files (the store's
        memo)."""
        encoder = self._encoder
        # Invariant: an identity dict is never mutated once resolved, so identity (``is``) means equality.
        if encoder is None or encoder.compiler is not compiler:
            encoder = self._encoder = cache_key.InfoEncoder(abi=target.abi_version, compiler=compiler,
                                                            target=target.identity(), version=__version__)
        info = encoder.encode(spec.op, spec.attrs, spec.inputs, spec.outputs, target.codegen_hash(spec.op, digest),
                              target.opt_class(spec))
        name = cache_key.kernel_name(spec.op, info)
        return KernelRequest(spec, name, info, cache_key.kernel_symbol(name), target.needs_blas(spec.op))


__all__ = ["KernelRequest", "Namer"]
