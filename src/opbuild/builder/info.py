"""What ``opbuild info`` says about the toolchain: which one kernels are named with in this process."""

from __future__ import annotations

from pathlib import Path

from ..cache.statmemo import StatMemo
from ..core import config
from ..core.errors import CompilerNotFoundError
from ..targets import create as create_target
from .toolchain import Toolchains


def toolchain_info(store_dir: Path | None = None) -> dict:
    """The target and the toolchain identity a build would name kernels with here, and how it was matched:
    ``{"target": name, "target_identity": {...}, "compiler": identity or None, "matched": "compiler" |
    "recorded" | "none", "missing": why no compiler was found, or None}``. ``store_dir``: the kernel_meta
    whose recorded identity counts (default: the one builds use here). Builds nothing, writes no memo."""
    target = create_target(config.device_target())
    memo = StatMemo(store_dir if store_dir is not None else config.cache_dir())
    toolchains = Toolchains()
    try:
        identity = toolchains.identity(target, memo, memo, write=False)
    except CompilerNotFoundError as e:
        return {"target": target.name, "target_identity": target.identity(), "compiler": None, "matched": "none",
                "missing": str(e)}
    missing = toolchains.missing
    return {"target": target.name, "target_identity": target.identity(), "compiler": identity,
            "matched": "recorded" if missing is not None else "compiler",
            "missing": str(missing) if missing is not None else None}


__all__ = ["toolchain_info"]
