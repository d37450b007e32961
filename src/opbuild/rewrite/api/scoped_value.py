"""``ScopedValue`` and ``ValueType``: the values a rewrite node reads and writes (a variable name such as ``x`` or
``self.conv``, a constant, a tuple/list/dict of values, or any other Python object)."""

from __future__ import annotations

from enum import Enum
from typing import Any


class ValueType(Enum):
    """The kinds of :class:`ScopedValue` (MindSpore's numbering)."""

    ConstantValue = 0
    TupleValue = 20
    ListValue = 21
    DictValue = 22
    NamingValue = 40
    CustomObjValue = 41
    UnsupportedValue = 50


_CONSTANTS = (int, float, str, bool, complex, bytes, type(None))


def _check(value: Any, types: tuple, label: str) -> None:
    if not isinstance(value, types):
        names = [t.__name__ for t in types]
        expect = f"'{names[0]}'" if len(names) == 1 else f"one of {names}"
        raise TypeError(f"For 'ScopedValue', the type of '{label}' should be {expect}, but got type "
                        f"'{type(value).__name__}'.")


class ScopedValue:
    """A value in a rewritten network's code: a name (``x``, or ``self.conv`` with scope ``self``), a constant,
    a tuple/list/dict of values, or an object the generated code refers to (``CustomObjValue``)."""

    def __init__(self, arg_type: ValueType, scope: str = "", value: Any = None):
        if not isinstance(arg_type, ValueType):
            raise TypeError(f"ScopedValue: arg_type must be a ValueType, got {type(arg_type).__name__}")
        _check(scope, (str,), "scope")
        self.type = arg_type
        self.scope = scope
        self.value = value

    @classmethod
    def create_variable_value(cls, value: Any) -> ScopedValue | None:
        """A value for the Python object ``value``: a constant for numbers/strings/bool/None, a tuple, list or
        dict value whose items are values, else an object value (``CustomObjValue``)."""
        if isinstance(value, ScopedValue):
            return value
        if isinstance(value, _CONSTANTS):
            return cls(ValueType.ConstantValue, "", value)
        if isinstance(value, tuple):
            return cls(ValueType.TupleValue, "", tuple(cls.create_variable_value(v) for v in value))
        if isinstance(value, list):
            return cls(ValueType.ListValue, "", [cls.create_variable_value(v) for v in value])
        if isinstance(value, dict):
            return cls(ValueType.DictValue, "", {cls.create_variable_value(k): cls.create_variable_value(v)
                                                 for k, v in value.items()})
        return cls(ValueType.CustomObjValue, "", value)

    @classmethod
    def create_naming_value(cls, name: str, scope: str = "") -> ScopedValue:
        """A variable: ``name`` (``scope.name`` when ``scope`` is given, e.g. ``self.conv``)."""
        _check(name, (str,), "name")
        _check(scope, (str,), "scope")
        return cls(ValueType.NamingValue, scope, name)

    @staticmethod
    def create_name_values(names: list | tuple, scopes: list | tuple | None = None) -> list:
        """Variables for ``names`` (each with the scope at the same position of ``scopes``, if given)."""
        _check(names, (list, tuple), "names")
        if scopes is not None:
            _check(scopes, (list, tuple), "scopes")
            if len(scopes) != len(names):
                raise ValueError("Length of names should be equal to length of scopes")
        else:
            scopes = [""] * len(names)
        return [ScopedValue.create_naming_value(n, s) for n, s in zip(names, scopes)]

    def __str__(self) -> str:
        if self.type == ValueType.NamingValue:
            return f"{self.scope}.{self.value}" if self.scope else str(self.value)
        if self.type == ValueType.CustomObjValue:
            return f"CustomObj: {self.value}"
        if self.type == ValueType.TupleValue and len(self.value) == 1:
            return f"({self.value[0]},)"
        if self.type in (ValueType.TupleValue, ValueType.ListValue):
            inner = ", ".join(str(v) for v in self.value)
            return f"({inner})" if self.type == ValueType.TupleValue else f"[{inner}]"
        if self.type == ValueType.DictValue:
            return "{" + ", ".join(f"{k}: {v}" for k, v in self.value.items()) + "}"
        return str(self.value)

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScopedValue):
            return False
        if self.type != other.type or self.scope != other.scope:
            return False
        if self.type == ValueType.CustomObjValue:
            return self.value is other.value
        return type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((self.type, self.scope, str(self)))

    def names(self) -> list[str]:
        """The local variable names this value reads (a scoped name such as ``self.x`` reads none)."""
        if self.type == ValueType.NamingValue:
            return [] if self.scope else [self.value]
        if self.type in (ValueType.TupleValue, ValueType.ListValue):
            return [n for v in self.value for n in v.names()]
        if self.type == ValueType.DictValue:
            return [n for v in self.value.values() for n in v.names()]
        return []


def as_value(arg: Any, what: str) -> ScopedValue:
    """``arg`` as a value: a ScopedValue as it is, a str as a variable name (``set_arg``'s rule)."""
    if isinstance(arg, ScopedValue):
        return arg
    if isinstance(arg, str):
        return ScopedValue.create_naming_value(arg)
    raise TypeError(f"For 'Node', the type of '{what}' should be one of ['ScopedValue', 'str'], but got type "
                    f"'{type(arg).__name__}'.")
