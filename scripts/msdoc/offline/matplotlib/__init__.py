"""A no-op stand-in for matplotlib for the tutorials harness (scripts/ms_tutorials.py): the tutorials' plots
draw nothing and print nothing, so both frameworks' blocks that plot run without a display or the package.
Every attribute is a callable that accepts anything and returns another such object."""

from __future__ import annotations


class _Anything:
    def __call__(self, *args, **kwargs) -> _Anything:
        return self

    def __getattr__(self, name: str) -> _Anything:
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __iter__(self):
        return iter(())

    def __getitem__(self, key) -> _Anything:
        return self


def __getattr__(name: str) -> _Anything:
    return _Anything()
