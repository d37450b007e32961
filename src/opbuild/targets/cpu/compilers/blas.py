"""Which BLAS the GEMM and convolution kernels link, and how its gemm functions are named.

Preferred: the OpenBLAS that NumPy's wheel bundles (``numpy.libs/libscipy_openblas64_-<hash>.so``, or
``libopenblas64_p-...`` in NumPy 1.x wheels). NumPy has already loaded it when opbuild runs, so kernels that
link it add no library to the process: no second 25 MB OpenBLAS to map, relocate and initialise on
every warm start, and no second BLAS thread pool competing with NumPy's for the cores. It is
an ILP64 build: matrix sizes are 64-bit integers and the functions carry a ``64_`` suffix.

Fallback: the ``scipy-openblas32`` package (``pip install 'opbuild[blas]'``), for a NumPy that bundles no
OpenBLAS (conda, distribution packages linked against a system BLAS). ``OPBUILD_BLAS`` picks one explicitly.

The chosen provider is part of every GEMM/conv kernel's descriptor (via the compiler identity), so switching
providers, or upgrading NumPy (which replaces its library file: its size and mtime change), makes new keys.
The kernels' C code names the functions through macros (``OB_BLAS_SGEMM``, ``OB_BLAS_DGEMM``, ``OB_BLAS_INT``)
that the compile command defines from the provider.
"""

from __future__ import annotations

import importlib.util
import os
import sys

from ....core import config
from ....core.errors import CompilerNotFoundError

# (file name prefix in numpy.libs, symbol prefix, symbol suffix) of NumPy wheels' ILP64 OpenBLAS, newest first.
_NUMPY_FLAVOURS = (("libscipy_openblas64_", "scipy_", "64_"), ("libopenblas64_", "", "64_"))
PROVIDERS = ("numpy", "scipy-openblas32")


def package_dir(name: str) -> str | None:
    """The directory of the regular top-level package ``name``: the first ``sys.path`` entry holding
    ``name/__init__.py``, as the path finder would pick it, else whatever the import system finds.

    The direct scan costs a few stats; ``importlib.util.find_spec`` first lists every directory on the path
    (site-packages holds hundreds of entries) on every warm start.
    """
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), name)
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return candidate
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _identity(provider: str, path: str, prefix: str, suffix: str, int_type: str) -> dict:
    st = os.stat(path)
    return {"provider": provider, "lib_dir": os.path.dirname(path), "lib": os.path.basename(path),
            "sgemm": f"{prefix}cblas_sgemm{suffix}", "dgemm": f"{prefix}cblas_dgemm{suffix}", "int": int_type,
            # OpenBLAS >= 0.3.27's hook for running its threads on the caller's pool (targets/cpu/blas_threads.py)
            "threads_callback": f"{prefix}openblas_set_threads_callback_function{suffix}",
            "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _numpy_blas() -> dict | None:
    """NumPy's bundled ILP64 OpenBLAS, or None when its wheel bundles none."""
    module = sys.modules.get("numpy")
    numpy_dir = os.path.dirname(module.__file__) if getattr(module, "__file__", None) else package_dir("numpy")
    if numpy_dir is None:
        return None
    libs = numpy_dir + ".libs"  # auditwheel's folder beside the package
    try:
        names = sorted(os.listdir(libs))
    except OSError:
        return None
    for file_prefix, prefix, suffix in _NUMPY_FLAVOURS:
        for name in names:
            if name.startswith(file_prefix) and ".so" in name:
                return _identity("numpy", os.path.join(libs, name), prefix, suffix, "int64_t")
    return None


def _scipy_openblas32() -> dict | None:
    """The scipy-openblas32 package's LP64 OpenBLAS (found without importing it: its import costs more than a
    warm start)."""
    package = package_dir("scipy_openblas32")
    if package is None:
        return None
    path = os.path.join(package, "lib", "libscipy_openblas.so")
    return _identity("scipy-openblas32", path, "scipy_", "", "int") if os.path.exists(path) else None


def find_blas() -> dict:
    """The BLAS that GEMM/conv kernels link (``OPBUILD_BLAS``: ``auto``, ``numpy`` or ``scipy-openblas32``),
    as a dict that goes into the compiler identity. CompilerNotFoundError, saying how to get one, if none."""
    choice = config.blas_choice()
    finders = {"numpy": _numpy_blas, "scipy-openblas32": _scipy_openblas32}
    for provider in (PROVIDERS if choice == "auto" else (choice,)):
        found = finders[provider]()
        if found is not None:
            return found
    wanted = {
        "numpy": "NumPy's bundled OpenBLAS (numpy.libs/libscipy_openblas64_*.so, as in NumPy's PyPI wheels)",
        "scipy-openblas32": "scipy-openblas32 (pip install 'opbuild[blas]'; MatMul/Conv kernels link it)",
    }
    raise CompilerNotFoundError([wanted[p] for p in (PROVIDERS if choice == "auto" else (choice,))])


def known_libraries() -> set[str]:
    """The shared objects of every provider found here, whatever ``OPBUILD_BLAS`` says: the only BLAS paths
    a graph manifest may name (``opbuild cache verify``; a build compares with :func:`find_blas` itself)."""
    found = (_numpy_blas(), _scipy_openblas32())
    return {library_path(b) for b in found if b is not None}


def loaded_by_numpy(blas: dict) -> bool:
    """Whether the library of a :func:`find_blas` identity is NumPy's own, loaded with NumPy (which opbuild
    imports): nothing to preload, and preloading it anyway would cost a dlopen call."""
    return blas.get("provider") == "numpy"


def library_path(blas: dict) -> str:
    """The shared object of a :func:`find_blas` identity."""
    return os.path.join(blas["lib_dir"], blas["lib"])


def gemv_name(gemm: str) -> str:
    """The provider's cblas gemv symbol beside its gemm symbol ``gemm`` (``scipy_cblas_sgemm64_`` ->
    ``scipy_cblas_sgemv64_``)."""
    return gemm.replace("cblas_sgemm", "cblas_sgemv").replace("cblas_dgemm", "cblas_dgemv")


def defines(blas: dict) -> list[str]:
    """Compiler flags naming the provider's gemm and gemv functions and integer type for the kernels' C code."""
    flags = [f"-DOB_BLAS_SGEMM={blas['sgemm']}", f"-DOB_BLAS_DGEMM={blas['dgemm']}", f"-DOB_BLAS_INT={blas['int']}"]
    # gemv (single-row and single-column products) shares gemm's prefix and suffix in every provider's naming,
    # so the identity's gemm names determine it.
    flags += [f"-DOB_BLAS_SGEMV={gemv_name(blas['sgemm'])}", f"-DOB_BLAS_DGEMV={gemv_name(blas['dgemm'])}"]
    # LAPACKE shares the cblas functions' prefix and suffix too (scipy_LAPACKE_dgetrf64_): the linear-algebra
    # kernels name a routine as OB_LAPACKE(dgetrf) (targets/cpu/kernels/linalg.py).
    prefix, _, suffix = blas["sgemm"].partition("cblas_sgemm")
    flags.append(f"-DOB_LAPACKE(f)={prefix}LAPACKE_##f" + (f"##{suffix}" if suffix else ""))  # no trailing ##
    if blas.get("threads_callback"):  # identities recorded before the bridge existed have none
        flags.append(f"-DOB_BLAS_THREADS_CALLBACK={blas['threads_callback']}")
        # The thread-count getter and setter share the callback setter's prefix and suffix (small calls
        # run on the calling thread alone: prelude.py ob_blas_serial_begin).
        for verb in ("set", "get"):
            name = blas["threads_callback"].replace("set_threads_callback_function", f"{verb}_num_threads")
            flags.append(f"-DOB_BLAS_{verb.upper()}_THREADS={name}")
    return flags


def link_flags(blas: dict) -> list[str]:
    """Linker flags (after the sources) that link the provider's library and find it again at load time."""
    return [f"-L{blas['lib_dir']}", f"-Wl,-rpath,{blas['lib_dir']}", f"-l:{blas['lib']}"]


__all__ = ["PROVIDERS", "defines", "find_blas", "known_libraries", "library_path", "link_flags", "loaded_by_numpy",
           "package_dir"]
