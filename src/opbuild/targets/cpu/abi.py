"""What the CPU's generated code agrees on with the rest of the target, stated without importing the code
generators (a warm start served by a graph manifest never imports them; the compiler identity needs the
optimisation classes): the calling convention's version and the optimisation level of each kernel class.

Calling convention (``ABI_VERSION``, part of every kernel's key): ``void k(void *const *args)``, one pointer
per input, then per output, then the workspace of kernels whose op declares one, then the status words of
kernels whose op declares a status (``codegen.py`` emits it, ``loader.py`` loads it, the runtime calls it)."""

#: 2: a workspace pointer after the outputs (kernels whose op declares one). 3: the status words after it
#: (kernels whose op declares a status: ``OpDef.status``).
ABI_VERSION = 3

# Optimisation level per kernel class (kernels/__init__.py opt_class), applied per function (OB_OPT); None
# keeps the command line's -O3. The mapping is part of the compiler identity, the class part of the
# descriptor: both are in every key. glue (loops around one GEMM call) and copy (data movement) gain nothing
# measurable from -O3's unrolling and loop versioning, which cost most of their compile time; -O2 keeps
# gcc 12's cheap vectorisation of plain copies, -O1 the glue's straight loops.
CLASS_OPT: dict[str, str | None] = {"compute": None, "copy": "O2", "glue": "O1"}

__all__ = ["ABI_VERSION", "CLASS_OPT"]
