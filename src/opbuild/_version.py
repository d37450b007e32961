"""opbuild's version, in a module that imports nothing (so any module may import it without a cycle)."""

__version__ = "0.1.0"

# The MindSpore release whose API opbuild follows (what ``run_check`` reports as the MindSpore version).
MINDSPORE_API_VERSION = "2.10.0"
