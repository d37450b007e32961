"""Run code written for MindSpore unmodified: an import hook (a ``sys.meta_path`` finder) under which
``import mindspore`` and every ``mindspore.<sub.module>`` path resolve to opbuild's modules.

Three ways to install it:

* ``opbuild.alias_mindspore()`` in a program (before its ``import mindspore``);
* ``OPBUILD_AS_MINDSPORE=1`` in the environment of a process that imports opbuild;
* ``opbuild run --as-mindspore script.py``, which also sets that variable and puts a ``sitecustomize`` on
  ``PYTHONPATH`` for the processes the script starts, so they get the hook without importing opbuild first.

``mindspore.X.Y`` is ``opbuild.X.Y`` where opbuild has that module, else the counterpart of :data:`RENAMED`
(MindSpore's internal module paths that model zoos import from, such as ``mindspore.ops.operations.nn_ops``).
A path with neither raises ModuleNotFoundError naming both, and never falls through to a real MindSpore
install: with the hook in place, every ``mindspore`` module is opbuild's.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType

ENV = "OPBUILD_AS_MINDSPORE"

# MindSpore module paths whose opbuild counterpart has another path.
RENAMED: dict[str, str] = {
    "mindspore.common.tensor": "opbuild.core.tensor",
    "mindspore.common.parameter": "opbuild.core.parameter",
    "mindspore.common.dtype": "opbuild.common.dtype",
    "mindspore.common.initializer": "opbuild.common.initializer",
    "mindspore.ops.operations.nn_ops": "opbuild.ops.operations",
    "mindspore.ops.operations.math_ops": "opbuild.ops.operations",
    "mindspore.ops.operations.array_ops": "opbuild.ops.operations",
    "mindspore.ops.operations.comm_ops": "opbuild.ops.operations",
    "mindspore.ops.operations._grad_ops": "opbuild.ops.grad_ops",
    "mindspore.nn.layer": "opbuild.nn.layers",
    "mindspore.nn.cell": "opbuild.nn.cell",
    "mindspore.nn.wrap.cell_wrapper": "opbuild.nn.wrap",
    "mindspore.nn.wrap.loss_scale": "opbuild.nn.loss_scale",
    "mindspore.nn.wrap.grad_reducer": "opbuild.nn.distributed",
    "mindspore.dataset.engine": "opbuild.dataset",
    "mindspore.dataset.vision.utils": "opbuild.dataset.vision",
    "mindspore.nn.optim.optimizer": "opbuild.nn.optim.optimizer",
    "mindspore.train.serialization": "opbuild.train.serialization",
    "mindspore.nn.loss.loss": "opbuild.nn.loss",
    "mindspore.nn.optim.sgd": "opbuild.nn.optim.momentum",
    "mindspore.common.sparse_tensor": "opbuild.sparse",
    "mindspore.common.jit_config": "opbuild.jit",
    "mindspore.train.metrics": "opbuild.train.metrics",
    "mindspore.train.train_thor": "opbuild.train.convert_utils",
    # Primitive and its registration helpers and checked bases (constexpr, PrimitiveWithInfer, ...).
    "mindspore.ops.primitive": "opbuild.ops.primitive_api",
}


def counterpart(fullname: str) -> str:
    """The opbuild module name for the MindSpore module name ``fullname``: the longest :data:`RENAMED` prefix
    rewritten (``mindspore.nn.layer.activation`` is ``opbuild.nn.layers.activation``), else the same path
    under ``opbuild``."""
    parts = fullname.split(".")
    for n in range(len(parts), 1, -1):
        prefix = ".".join(parts[:n])
        if prefix in RENAMED:
            return ".".join([RENAMED[prefix], *parts[n:]])
    return "opbuild" + fullname[len("mindspore"):]


class MindSporeAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The finder and loader: ``mindspore[.X]`` is loaded as the already imported ``opbuild[.X]`` module
    object itself, so ``mindspore.nn.Cell is opbuild.nn.Cell`` and isinstance checks hold across names."""

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname != "mindspore" and not fullname.startswith("mindspore."):
            return None
        name = counterpart(fullname)
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: opbuild (standing in for mindspore) has no {name!r}. "
                "See docs/mindspore-compat.md for what opbuild provides.", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=found.submodule_search_locations
                                              is not None or _has_renamed_children(fullname))

    def create_module(self, spec) -> ModuleType:
        module = importlib.import_module(counterpart(spec.name))
        if hasattr(module, "__path__") or not _has_renamed_children(spec.name):
            _OWN_SPECS.setdefault(module.__name__, module.__spec__)
            return module
        # MindSpore's package (mindspore.ops.operations holds nn_ops, math_ops, ...) is a plain module in
        # opbuild: a package module carrying the same objects, so its submodule paths can be imported.
        package = _PackageCopy(spec.name, module.__doc__)
        package.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        package.__path__ = []
        # The names the module resolves on first use (PEP 562 ``__getattr__``, as nn/wrap.py's) resolve here too.
        package.__getattr__ = lambda name: getattr(module, name)
        _keep_own_child(spec.name, module, package)
        return package

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the opbuild module was executed when it was imported. The import system has just
        set the module's ``__spec__`` to the ``mindspore`` one; an opbuild module gets its own back, or
        ``importlib.util.find_spec("opbuild...")``, ``reload`` and pickling by module would see a
        ``mindspore`` module with no location."""
        if module.__name__ != module.__spec__.name:
            module.__spec__ = importlib.util.find_spec(module.__name__) if module.__name__ not in sys.modules \
                else _own_spec(module)


def _own_spec(module: ModuleType):
    """The spec ``module`` was imported with (kept by create_module before the import system replaced it)."""
    return _OWN_SPECS.get(module.__name__, module.__spec__)


_OWN_SPECS: dict[str, importlib.machinery.ModuleSpec] = {}


# id of each package copy made by create_module -> the opbuild module it copies.
_COPIES: dict[int, ModuleType] = {}


class _PackageCopy(ModuleType):
    """A package copy of a plain opbuild module (see create_module). The submodules the import system sets on
    it (``mindspore.ops.operations.nn_ops``) are set on the opbuild module too: ``mindspore.ops`` is
    ``opbuild.ops``, whose ``operations`` stays opbuild's module, so that is where the attribute path
    ``mindspore.ops.operations.nn_ops`` (and ``import ... as``) looks."""

    def __setattr__(self, name: str, value: object) -> None:
        super().__setattr__(name, value)
        own = _COPIES.get(id(self))
        if isinstance(value, ModuleType) and own is not None and name not in own.__dict__:
            setattr(own, name, value)

_GUARDED: dict[type, type] = {}  # module class -> its subclass that keeps its own children


def _guarded_setattr(self: ModuleType, name: str, value: object) -> None:
    if isinstance(value, ModuleType) and _COPIES.get(id(value)) is not None \
            and _COPIES[id(value)] is self.__dict__.get(name):
        return  # the alias's package copy of this module's own child: the child stays
    object.__setattr__(self, name, value)


def _keep_own_child(fullname: str, module: ModuleType, package: ModuleType) -> None:
    """After loading ``package`` (a package copy of opbuild's ``module``) as ``fullname``, the import system
    sets it as an attribute of ``fullname``'s parent, which is opbuild's own package (``mindspore.ops`` is
    ``opbuild.ops``): that would replace ``opbuild.ops.operations`` by the copy. The parent's class becomes a
    subclass of it whose ``__setattr__`` ignores exactly that assignment (a module's class may be changed, and
    only a ModuleType subclass may be)."""
    _COPIES[id(package)] = module
    parent = sys.modules.get(fullname.rpartition(".")[0])
    if parent is None or parent.__dict__.get(fullname.rpartition(".")[2]) is not module:
        return
    cls = type(parent)
    if cls not in _GUARDED.values():
        if cls not in _GUARDED:
            _GUARDED[cls] = type(cls.__name__, (cls,), {"__setattr__": _guarded_setattr,
                                                        "__module__": cls.__module__})
        parent.__class__ = _GUARDED[cls]


def _has_renamed_children(fullname: str) -> bool:
    return any(name.startswith(fullname + ".") for name in RENAMED)


def alias_mindspore() -> None:
    """Install the hook (idempotent): from now on ``import mindspore`` in this process gives opbuild. A
    ``mindspore`` module imported before the call (a real MindSpore) is left alone; a ValueError says so."""
    if any(isinstance(f, MindSporeAlias) for f in sys.meta_path):
        return
    real = sys.modules.get("mindspore")
    if real is not None and not getattr(real, "__name__", "").startswith("opbuild"):
        raise ValueError("alias_mindspore(): a real 'mindspore' package is already imported in this process; "
                         "install the alias before anything imports mindspore")
    sys.meta_path.insert(0, MindSporeAlias())


def install_from_env() -> None:
    """Install the hook when ``OPBUILD_AS_MINDSPORE`` is 1/true/yes/on (opbuild's import calls this)."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw in ("1", "true", "yes", "on"):
        alias_mindspore()
    elif raw not in ("", "0", "false", "no", "off"):
        raise ValueError(f"{ENV}={raw!r}: expected 1 (install the mindspore import alias) or 0")


def sitecustomize_dir() -> str:
    """The folder holding the ``sitecustomize`` that installs the hook in child processes (``opbuild run
    --as-mindspore`` puts it on PYTHONPATH)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_as_mindspore")
