"""The per-parameter settings MindSpore's ``Parameter`` carries for distributed and cached training
(``layerwise_parallel``, ``parallel_optimizer``, ``comm_fusion``, ``cache_enable``, ...): a mixin of
:class:`~opbuild.core.parameter.Parameter`. They are kept and returned with MindSpore's defaults; one CPU
process shards nothing and caches no embedding, so they change no computation."""

from __future__ import annotations

from typing import Any

_DEFAULTS: dict[str, Any] = {
    "layerwise_parallel": False, "parallel_optimizer": True, "parallel_optimizer_comm_recompute": False,
    "comm_fusion": 1, "cache_enable": False, "cache_shape": [], "key": -1, "sliced": False, "unique": False,
    "requires_aggr": True, "inited_param": None,
}


def _setting(name: str, kind: type | tuple[type, ...] | None):
    def get(self) -> Any:
        return self._parameter_settings().get(name, _DEFAULTS[name])

    def put(self, value: Any) -> None:
        if kind is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
            raise TypeError(f"Parameter.{name} must be {getattr(kind, '__name__', kind)}, got "
                            f"{type(value).__name__}")
        self._parameter_settings()[name] = value

    return property(get, put, doc=f"MindSpore's ``Parameter.{name}`` (default {_DEFAULTS[name]!r}).")


class ParameterSettings:
    """MindSpore's distributed/cache settings of a Parameter, stored in the ``_settings`` slot."""

    __slots__ = ()

    def _parameter_settings(self) -> dict[str, Any]:
        try:
            return self._settings  # type: ignore[attr-defined]
        except AttributeError:
            object.__setattr__(self, "_settings", {})
            return self._settings  # type: ignore[attr-defined]

    layerwise_parallel = _setting("layerwise_parallel", bool)
    parallel_optimizer = _setting("parallel_optimizer", bool)
    parallel_optimizer_comm_recompute = _setting("parallel_optimizer_comm_recompute", bool)
    comm_fusion = _setting("comm_fusion", int)
    cache_enable = _setting("cache_enable", bool)
    cache_shape = _setting("cache_shape", (list, tuple))
    key = _setting("key", int)
    sliced = _setting("sliced", bool)
    unique = _setting("unique", bool)
    requires_aggr = _setting("requires_aggr", bool)
    inited_param = _setting("inited_param", None)
