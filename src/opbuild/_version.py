"""opbuild's version, in a module that imports nothing (so any module may import it without a cycle)."""

__version__ = "0.1.0"
