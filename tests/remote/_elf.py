"""Real shared objects for shared-tier tests: an entry is accepted only if its binary is a loadable object
exporting the kernel's symbol (cache/elf.py), so placeholder bytes no longer pass."""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

from opbuild.cache.key import kernel_symbol


@functools.cache
def shared_object(*names: str) -> bytes:
    """A tiny shared object exporting the kernel symbol of every entry name in ``names``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "k.c", Path(d) / "k.so"
        src.write_text("".join(f'__attribute__((visibility("default"))) void {kernel_symbol(n)}(void *const *a)'
                               " { (void)a; }\n" for n in names))
        subprocess.run([cc, "-fPIC", "-shared", "-fvisibility=hidden", "-o", str(out), str(src)], check=True)
        return out.read_bytes()
