"""The parts of MindSpore's primitive-authoring API around :class:`~opbuild.ops.primitive.Primitive`:
``prim_attr_register`` (a primitive's ``__init__`` arguments become its attributes), ``PrimitiveWithInfer`` and
``PrimitiveWithCheck`` (user primitives that describe their output shape and dtype, or check their inputs), and
``constexpr`` (a function of constant arguments evaluated while a graph is traced).

opbuild traces a graph by running the Python of ``construct``, so every Python value is already a constant at
trace time: ``constexpr`` calls its function as it is. A user primitive with no registered operator can be
built and inspected (attributes, ``infer_shape``/``infer_dtype``, ``check_*``) but not executed, as in
MindSpore where such a primitive needs a kernel registered for it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .primitive import Primitive


def prim_attr_register(fn: Callable) -> Callable:
    """Decorate a Primitive subclass' ``__init__``: its arguments (defaults filled in) are recorded as the
    primitive's attributes, and the primitive is named after its class, before the body runs."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def init(self: Primitive, *args: Any, **kwargs: Any) -> None:
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        attrs = {k: v for k, v in list(bound.arguments.items())[1:]
                 if sig.parameters[k].kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)}
        Primitive.__init__(self, type(self).__name__, **attrs)
        fn(self, *args, **kwargs)

    return init


def prim_arg_register(fn: Callable) -> Callable:
    """Decorate a Primitive subclass' ``__init__`` as MindSpore's ``prim_arg_register``: as
    :func:`prim_attr_register`, and each argument is also an attribute of the primitive (``m.transpose_b``);
    the undecorated function stays reachable as ``decorated_func``."""
    sig = inspect.signature(fn)
    registered = prim_attr_register(fn)

    @functools.wraps(fn)
    def init(self: Primitive, *args: Any, **kwargs: Any) -> None:
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for k, v in list(bound.arguments.items())[1:]:
            if sig.parameters[k].kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                object.__setattr__(self, k, v)
        registered(self, *args, **kwargs)

    init.decorated_func = fn  # type: ignore[attr-defined]
    return init


class PrimitiveWithInfer(Primitive):
    """A primitive that describes its outputs in Python: subclasses define ``infer_shape(*shapes)`` and
    ``infer_dtype(*dtypes)`` (and optionally ``infer_value(*values)``); :meth:`__infer__` combines them."""

    def infer_shape(self, *args: Any) -> Any:
        """The output shape from the input shapes (default: none)."""
        return None

    def infer_dtype(self, *args: Any) -> Any:
        """The output dtype from the input dtypes (default: none)."""
        return None

    def infer_value(self, *args: Any) -> Any:
        """The output value when every input is constant (default: unknown)."""
        return None

    def __infer__(self, *args: dict) -> dict:
        """``{"shape", "dtype", "value"}`` of the output from the same entries of each input."""
        return {"shape": self.infer_shape(*(a["shape"] for a in args)),
                "dtype": self.infer_dtype(*(a["dtype"] for a in args)),
                "value": self.infer_value(*(a.get("value") for a in args))}


class PrimitiveWithCheck(Primitive):
    """A primitive that checks its inputs in Python: subclasses define ``check_shape(*shapes)`` and
    ``check_dtype(*dtypes)``, which raise on bad inputs; :meth:`__check__` runs both."""

    def check_shape(self, *args: Any) -> None:
        """Raise if the input shapes are invalid (default: accept)."""

    def check_dtype(self, *args: Any) -> None:
        """Raise if the input dtypes are invalid (default: accept)."""

    def __check__(self, *args: dict) -> None:
        """Run both checks on ``{"shape", "dtype"}`` entries of the inputs."""
        self.check_shape(*(a["shape"] for a in args))
        self.check_dtype(*(a["dtype"] for a in args))


def constexpr(fn: Callable | None = None, *, get_instance: bool = True, reuse_result: bool = True,
              check: bool = True) -> Any:
    """Mark ``fn`` as computed from constants while a graph compiles. Every Python value is a constant when
    opbuild traces, so the function is called as it is; the decorator exists so MindSpore code runs
    unchanged (``@constexpr`` and ``@constexpr(...)`` both work)."""
    if fn is None:
        return lambda f: constexpr(f, get_instance=get_instance, reuse_result=reuse_result, check=check)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return call


PRIMITIVES: dict[str, type[Primitive]] = {"PrimitiveWithInfer": PrimitiveWithInfer,
                                          "PrimitiveWithCheck": PrimitiveWithCheck}
