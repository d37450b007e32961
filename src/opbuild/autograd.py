"""Gradients, MindSpore's way: ``grad``, ``value_and_grad`` and ``ops.GradOperation``.

Every form traces ``fn`` (a Cell or a Python function of Tensors) once per input signature, runs the
autodiff pass (passes/autodiff.py) over the traced graph so that ONE graph computes the outputs and the
gradients, and compiles it through the incremental build like a Cell's graph (same kernels, same cache: a
forward kernel used by inference and by training is one cache entry). Later calls with the same signature
run the compiled graph without tracing or building. PyNative mode traces the same way (the gradient needs
the whole computation anyway), so both modes give the same numbers from the same kernels.

Return conventions (MindSpore 2.x ``mindspore.grad`` / ``value_and_grad``):
  * ``grad_position`` an int -> that input's gradient; a tuple -> a tuple of gradients (even of length 1);
  * ``grad_position=None`` with ``weights`` -> the weights' gradients only (a tuple in their order; one
    Tensor for a single Parameter); both -> ``(inputs_grads, weights_grads)``; neither -> ValueError;
  * several outputs and ``has_aux=False``: the gradient of their sum (each seeded with ones);
    ``has_aux=True``: only the first output is differentiated; ``grad`` returns ``(gradients, aux)`` with
    ``aux`` the tuple of the other outputs, ``value_and_grad`` returns ``(outputs, gradients)``;
  * ``return_ids=True`` replaces each gradient by ``(position, gradient)`` / ``(parameter name, gradient)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .core import config, deferred_hooks, forward_share, pynative_sites, tensor_hooks, trace
from .core.concrete_trace import ConcreteTracer, guard_holds
from .core.graph_breaks import decision_key
from .core.parameter import Parameter
from .core.tensor import PYTHON_VALUE, Tensor
from .passes.autodiff import Autodiff


def _weights_list(weights: Any) -> tuple[list[Parameter], bool]:
    """(the Parameters, whether a single Parameter was given)."""
    if weights is None:
        return [], False
    if isinstance(weights, Parameter):
        return [weights], True
    if isinstance(weights, (list, tuple)) and all(isinstance(w, Parameter) for w in weights):
        return list(weights), False
    raise TypeError(f"weights must be a Parameter, a ParameterTuple or a list of Parameters, got "
                    f"{type(weights).__name__}")


@dataclass(eq=False)
class _Entry:
    """One traced gradient graph (compiled once it is kept): its output layout is fn's ``n_out`` outputs, the
    ``n_hook`` tensors of deferred forward hooks (``templates`` replays them), one tensor per guard
    (``guards``: (conversion, value) of each condition the trace answered), then the gradients."""

    graph: Any
    rebuild: Callable
    n_out: int
    n_hook: int
    templates: list
    guards: list
    compiled: Any = None
    volatile: bool = False
    decisions: tuple = ()  # the guards' decision keys (core/graph_breaks.py decision_key)
    steps: list = field(default_factory=list)  # core/pynative_sites.py's (before, after) host steps
    n_forward: int = 0  # the graph's first nodes that are fn's forward (the backward's follow)
    written: list = field(default_factory=list)  # the captured objects the graph updates in place


class _Differentiated:
    """The compiled forward+backward function behind every public form. Calls return
    ``(outputs structure, input grads list, weight grads list)``; the public wrappers arrange them."""

    def __init__(self, fn: Callable[..., Any], positions: tuple[int, ...], weights: list[Parameter],
                 has_aux: bool, sens_param: bool):
        if not callable(fn):
            raise TypeError(f"fn must be a Cell or a function, got {type(fn).__name__}")
        self.fn = fn
        self.positions = positions
        self.weights = weights
        self.has_aux = has_aux
        self.sens_param = sens_param
        self._graphs: dict[tuple, dict] = {}  # signature -> {decisions: _Entry, "last": the last used}

    def _state(self) -> tuple:
        state = getattr(self.fn, "_state_signature", None)
        return state() if state is not None else ()

    def __call__(self, *args: Any) -> tuple[Any, list[Tensor], list[Tensor]]:
        args = tuple(Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
        n_sens = 0
        if self.sens_param:
            if not args:
                raise TypeError("sens_param=True: the sensitivity (the gradient of the outputs) must be the last "
                                "argument")
            sens = args[-1]
            sens = tuple(sens) if isinstance(sens, (tuple, list)) else (sens,)
            args, n_sens = (*args[:-1], *sens), len(sens)
        n_args = len(args) - n_sens
        for p in self.positions:
            if not -n_args <= p < n_args or not isinstance(args[p], Tensor):
                raise ValueError(f"grad_position {p} does not name a Tensor argument (the function got {n_args} "
                                 "arguments)")
        n_in = len(self.positions)
        outer = trace.current()
        tensors = [a for a in args if isinstance(a, Tensor)]
        if outer is not None:
            # Called while tracing (a train step in TrainOneStepCell or @jit): the forward and backward
            # nodes join the enclosing graph, so forward, backward and update compile as one graph. Inside a
            # trace that knows values (an outer gradient), conditions are answered and guarded there too.
            inner = (ConcreteTracer([outer.array_of(t) for t in tensors]) if isinstance(outer, ConcreteTracer)
                     else None)
            e = self._graph(args, n_args, n_sens, tracer=inner)
            outs = outer.inline(e.graph, tensors, self._shared(outer, e, args[:n_args], tensors))
            if isinstance(outer, ConcreteTracer):
                first = e.n_out + e.n_hook
                outer.guards.extend((outs[first + k], kind, value) for k, (kind, value) in enumerate(e.guards))
            n_all = e.n_out + e.n_hook + len(e.guards)
            return e.rebuild(outs[:e.n_out]), outs[n_all:n_all + n_in], outs[n_all + n_in:]
        key = (self._state(), trace.arg_signature(args, "a differentiated function"),
               tuple(id(w) for w in self.weights), _hook_count(self.fn), tensor_hooks.key_of(args))
        arrays = [a.asnumpy() for a in tensors]
        paths = self._graphs.setdefault(key, {})
        entry, tried, traced = paths.get("last"), set(), False
        # after the recorded PyNative forward of fn on these inputs, the state it wrote is written once
        # (core/forward_share.py): what this graph writes is put back after it runs
        kept: dict[int, tuple] | None = {} if forward_share.pynative_forward_ran(self.fn, args[:n_args]) else None
        while True:
            if entry is None:
                if traced:
                    raise RuntimeError("a differentiated function's conditions over tensor values came out "
                                       "differently when traced and when its compiled graph ran (a condition on "
                                       "random values?); compute the condition outside the function")
                entry, traced = self._entry(paths, args, n_args, n_sens, arrays), True
            for before, _ in entry.steps if not traced else ():  # the trace seeded the first call's state
                if before is not None:
                    before()
            for t in entry.written if kept is not None else ():
                kept.setdefault(id(t), (t, t.asnumpy().copy()))
            outs = entry.compiled(arrays)
            for _, after in entry.steps:
                if after is not None:
                    after()
            k = _first_failed_guard(entry, outs)
            if k is None:
                break
            # This call took another path. The guards before k held, so the graph computed guard k as this
            # call's Python would: a compiled path agreeing with those decisions is tried before tracing again.
            tried.add(id(entry))
            entry = None if traced else _agreeing_path(paths, entry, k, outs, tried)
        for t, data in (kept or {}).values():
            t.asnumpy()[...] = data
        if not entry.volatile:
            paths["last"] = entry
        outs = [Tensor(o) for o in outs]
        if entry.templates:
            deferred_hooks.replay(entry.templates, outs[entry.n_out:entry.n_out + entry.n_hook])
        n_all = entry.n_out + entry.n_hook + len(entry.guards)
        return entry.rebuild(outs[:entry.n_out]), outs[n_all:n_all + n_in], outs[n_all + n_in:]

    def _shared(self, outer: trace.Tracer, e: _Entry, args: tuple, tensors: list[Tensor]) -> tuple[int, dict]:
        """The forward of ``e`` shared with the one earlier call of fn on the same values in ``outer``, as
        MindSpore's graph mode shares it (core/forward_share.py): (its node count, the earlier values), or
        (0, {}) when there is none to share."""
        earlier = forward_share.earlier_call(outer, self.fn, args)
        if earlier is None:
            return 0, {}
        values = forward_share.shared_forward(outer, e.graph, e.n_forward, earlier,
                                              [outer.value_of(t) for t in tensors])
        return (0, {}) if values is None else (e.n_forward, values)

    def _entry(self, paths: dict, args: tuple, n_args: int, n_sens: int, arrays: list) -> _Entry:
        """Trace ``fn`` on this call's values and compile its gradient graph, unless the path its conditions
        took was compiled before (``paths``: the compiled graphs of one signature by their decisions)."""
        tracer = ConcreteTracer(arrays)
        pynative = config.get_context("mode") == config.PYNATIVE_MODE
        with deferred_hooks.deferring() as calls, pynative_sites.collecting(pynative) as steps:
            # forward hooks see values once the graph has run; in PyNative random ops keep its seeding rules
            e = self._graph(args, n_args, n_sens, calls, tracer)
        e.steps = steps
        e.written = forward_share.written_captures(e.graph)
        if tracer.volatile:  # the graph holds values of this call (saved-tensor hooks): used once
            e.compiled, e.graph, e.volatile = trace.engine().compile_graph(e.graph), None, True
            return e
        e.decisions = tuple(decision_key(kind, value) for kind, value in e.guards)
        known = paths.get(e.decisions)
        if known is not None:
            return known
        e.compiled = trace.engine().compile_graph(e.graph)
        e.graph = None
        paths[e.decisions] = e
        return e

    def _graph(self, args: tuple, n_args: int, n_sens: int, hook_calls: list | None = None,
               tracer: trace.Tracer | None = None) -> _Entry:
        """Trace ``fn`` on ``args`` (with ``tracer``) and append the gradients. The graph's outputs are fn's,
        then the tensors of the forward-hook calls recorded into ``hook_calls`` (core/deferred_hooks.py),
        then the guards' tensors (core/concrete_trace.py), then the gradients."""
        fn = self.fn
        hooks: dict[str, Any] = {"n": 0, "templates": [], "guards": []}

        def traced(*a: Any) -> Any:
            for arg, sym in zip(args, a):  # Tensor.register_hook on an argument: its gradient through the hooks
                if tensor_hooks.hooks_of(arg):
                    tensor_hooks.apply_hooks(sym, tensor_hooks.hooks_of(arg))
            out = fn(*a[:n_args])
            leaves: list = []
            if hook_calls:
                leaves, hooks["templates"] = deferred_hooks.tensors_of(hook_calls)
            hooks["n"] = len(leaves)
            current = trace.current()
            if isinstance(current, ConcreteTracer):
                hooks["guards"] = [(kind, value) for _, kind, value in current.guards]
                leaves = [*leaves, *(t for t, _, _ in current.guards)]
            return (out, tuple(leaves)) if leaves else out

        graph, rebuild = trace.trace(traced, args, tracer)
        n_hidden = hooks["n"] + len(hooks["guards"])
        if n_hidden:
            # The outputs are (fn's outputs, hidden tensors); only fn's are returned and differentiated.
            whole = rebuild

            def rebuild(leaves: list) -> Any:
                return whole(list(leaves) + [None] * n_hidden)[0]
        n_out = len(graph.outputs) - n_hidden
        if self.has_aux and n_out < 2:
            raise ValueError("has_aux=True needs a function with more than one output (the first is "
                             "differentiated, the others are returned as they are)")
        n_diff = 1 if self.has_aux else n_out
        if n_sens and n_sens != n_diff:
            raise ValueError(f"sens_param: got {n_sens} sensitivities for {n_diff} differentiated outputs")
        # Positions are of the Tensor arguments among all arguments: the graph's inputs are the Tensors only.
        tensor_index = {i: k for k, i in enumerate(i for i, a in enumerate(args) if isinstance(a, Tensor))}
        positions = [tensor_index[p % n_args] for p in self.positions]
        n_forward = len(graph.nodes)
        graph = Autodiff(positions, self.weights, n_outputs=n_diff, sens_inputs=bool(n_sens)).run(graph)
        return _Entry(graph, rebuild, n_out, hooks["n"], hooks["templates"], hooks["guards"], n_forward=n_forward)


def _first_failed_guard(entry: _Entry, outs: list) -> int | None:
    """The index of the first guard of ``entry`` that this run's outputs ``outs`` contradict, or None."""
    first = entry.n_out + entry.n_hook
    for k, (kind, value) in enumerate(entry.guards):
        if not guard_holds(kind, value, outs[first + k]):
            return k
    return None


def _agreeing_path(paths: dict, entry: _Entry, k: int, outs: list, tried: set) -> _Entry | None:
    """A compiled path (not yet tried on this call) whose first k+1 decisions are those this call took: the
    first k of ``entry`` and guard k's value in ``outs``; None when none is known."""
    kind = entry.guards[k][0]
    actual = PYTHON_VALUE[kind](np.asarray(outs[entry.n_out + entry.n_hook + k]))
    prefix = (*entry.decisions[:k], decision_key(kind, actual))
    for d, e in paths.items():
        if d != "last" and id(e) not in tried and d[:k + 1] == prefix:
            return e
    return None


def _hook_count(fn: Any) -> int:
    """How many forward and backward hooks ``fn``'s cells have (part of a gradient graph's key: a hook added
    later must be recorded by a new trace)."""
    cells = fn.cells_and_names() if hasattr(fn, "cells_and_names") else ()
    kinds = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")
    return sum(len(c.__dict__.get(k, {})) for _, c in cells for k in kinds)


def _positions(grad_position: Any) -> tuple[tuple[int, ...], bool]:
    """(positions, whether a single int was given)."""
    if grad_position is None:
        return (), False
    if isinstance(grad_position, int) and not isinstance(grad_position, bool):
        return (grad_position,), True
    if isinstance(grad_position, tuple) and grad_position and all(
            isinstance(p, int) and not isinstance(p, bool) for p in grad_position):
        return grad_position, False
    raise TypeError(f"grad_position must be None, an int or a non-empty tuple of ints, got {grad_position!r}")


def _is_tensor_arg(a: Any) -> bool:
    return isinstance(a, (Tensor, np.ndarray))


def _arrange(positions: tuple[int, ...], single_pos: bool, weights: list[Parameter], single_w: bool,
             in_grads: list[Tensor], w_grads: list[Tensor], return_ids: bool) -> Any:
    if return_ids:
        in_part: Any = tuple((p, g) for p, g in zip(positions, in_grads, strict=True))
        w_part: Any = tuple((w.name, g) for w, g in zip(weights, w_grads, strict=True))
    else:
        in_part, w_part = tuple(in_grads), tuple(w_grads)
    if single_pos:
        in_part = in_part[0] if in_part else ()  # an int position naming a non-Tensor: () as in MindSpore
    if single_w:
        w_part = w_part[0]
    if positions and weights:
        return in_part, w_part
    return in_part if positions else w_part


def _make(fn: Callable, grad_position: Any, weights: Any, has_aux: bool, return_ids: bool,
          with_value: bool, sens_param: bool = False) -> Callable[..., Any]:
    positions, single_pos = _positions(grad_position)
    params, single_w = _weights_list(weights)
    if not positions and weights is None:
        raise ValueError("grad_position and weights cannot both be None: there is nothing to differentiate")
    diffs: dict[tuple[int, ...], _Differentiated] = {}

    def grad_fn(*args: Any) -> Any:
        # MindSpore differentiates the named arguments that are Tensors and leaves out the others (a Python
        # number at a grad_position has no gradient); out-of-range positions are still refused.
        n_args = len(args) - (1 if sens_param else 0)
        used = tuple(p for p in positions if not -n_args <= p < n_args or _is_tensor_arg(args[p]))
        diff = diffs.get(used)
        if diff is None:
            diff = diffs[used] = _Differentiated(fn, used, params, has_aux, sens_param=bool(sens_param))
        if not used and weights is None:  # nothing left to differentiate: MindSpore gives ()
            return (diff.fn(*args), ()) if with_value else ()
        out, in_grads, w_grads = diff(*args)
        grads = _arrange(used, single_pos, params, single_w, in_grads, w_grads, return_ids)
        if with_value:
            return out, grads
        if has_aux:
            return grads, tuple(out[1:])
        return grads

    grad_fn.__name__ = f"{'value_and_grad' if with_value else 'grad'}_{getattr(fn, '__name__', type(fn).__name__)}"
    return grad_fn


def grad(fn: Callable[..., Any], grad_position: int | tuple[int, ...] | None = 0, weights: Any = None,
         has_aux: bool = False, return_ids: bool = False, sens_param: bool = False) -> Callable[..., Any]:
    """A function computing the gradients of ``fn`` (a Cell or a function of Tensors) with respect to the
    inputs at ``grad_position`` and/or the Parameters ``weights`` (see the module docstring for the
    return conventions, MindSpore's). ``sens_param=True``: the call's last argument is the sensitivity (the
    cotangent of the outputs, a tuple of them for several) instead of ones."""
    return _make(fn, grad_position, weights, has_aux, return_ids, with_value=False, sens_param=sens_param)


def value_and_grad(fn: Callable[..., Any], grad_position: int | tuple[int, ...] | None = 0, weights: Any = None,
                   has_aux: bool = False, return_ids: bool = False, sens_param: bool = False) -> Callable[..., Any]:
    """Like :func:`grad`, but the returned function gives ``(outputs of fn, gradients)``."""
    return _make(fn, grad_position, weights, has_aux, return_ids, with_value=True, sens_param=sens_param)


def get_grad(gradients: Any, identifier: int | str | Parameter) -> Tensor:
    """The gradient of ``identifier`` (an input position or a Parameter) in ``gradients``, the result of a
    ``grad``/``value_and_grad`` made with ``return_ids=True``."""
    if isinstance(identifier, Parameter):
        identifier = identifier.name
    elif isinstance(identifier, bool) or not isinstance(identifier, int):
        raise TypeError(f"get_grad: identifier must be an int position or a Parameter, got "
                        f"{type(identifier).__name__} {identifier!r}")
    stack = [gradients]
    while stack:
        g = stack.pop()
        if isinstance(g, tuple) and len(g) == 2 and isinstance(g[1], Tensor) and isinstance(g[0], (int, str)) \
                and not isinstance(g[0], bool):
            if g[0] == identifier and type(g[0]) is type(identifier):
                return g[1]
        elif isinstance(g, (tuple, list)):
            stack.extend(reversed(g))
    raise ValueError(f"get_grad: no gradient with identifier {identifier!r} (make the gradient function with "
                     "return_ids=True and differentiate that input or Parameter)")


class GradOperation:
    """MindSpore 1.x's higher-order gradient: ``GradOperation(get_all=False, get_by_list=False,
    sens_param=False)(net)(*inputs)``, or ``(net, weights)`` with ``get_by_list``.

    * neither flag: the gradient of the first input (one Tensor);
    * ``get_all``: a tuple with the gradient of every input;
    * ``get_by_list``: a tuple with the gradients of ``weights`` (a ParameterTuple or list), in order;
    * both: ``(inputs' gradients, weights' gradients)``;
    * ``sens_param``: the last argument of the call is the sensitivity (the output's cotangent; a tuple of
      them for several outputs) instead of ones.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False):
        self.get_all = bool(get_all)
        self.get_by_list = bool(get_by_list)
        self.sens_param = bool(sens_param)

    def __call__(self, fn: Callable[..., Any], weights: Any = None) -> Callable[..., Any]:
        if self.get_by_list and weights is None:
            raise TypeError("GradOperation(get_by_list=True) needs the weights: GradOperation(...)(net, weights)")
        params = _weights_list(weights)[0] if self.get_by_list else []
        cache: dict[tuple, _Differentiated] = {}

        def grad_fn(*args: Any) -> Any:
            n_in = len(args) - (1 if self.sens_param else 0)
            # A tuple/list of Tensors (``mutable((x, y))``) is differentiated member by member: it is passed
            # flattened, and its members' gradients come back as a tuple in its place.
            layout = tuple(len(a) if _is_tensor_seq(a) else None for a in args[:n_in])
            flat_args = tuple(x for a, n in zip(args[:n_in], layout) for x in (a if n is not None else (a,)))
            flat_args += tuple(args[n_in:])
            n_flat = len(flat_args) - (len(args) - n_in)
            tensors = [i for i in range(n_flat) if isinstance(flat_args[i], (Tensor, np.ndarray))]
            if self.get_all:
                positions = tuple(tensors)
            elif self.get_by_list:
                # only the weights' gradients are returned: no input is differentiated (int token ids may
                # come first, as in BERT's train step)
                positions = ()
            else:
                first = layout[0] if layout and layout[0] is not None else 1
                positions = tuple(tensors[:first])
            diff = cache.get((positions, n_in, layout))
            if diff is None:
                target = fn if not any(n is not None for n in layout) else _regrouped(fn, layout)
                diff = _Differentiated(target, positions, params, has_aux=False, sens_param=self.sens_param)
                cache[(positions, n_in, layout)] = diff
            _, in_grads, w_grads = diff(*flat_args)
            if any(n is not None for n in layout):
                in_grads = _group_grads(in_grads, layout, self.get_all)
            if self.get_all and self.get_by_list:
                return tuple(in_grads), tuple(w_grads)
            if self.get_by_list:
                return tuple(w_grads)
            if self.get_all:
                return tuple(in_grads)
            if not in_grads:
                raise ValueError("GradOperation(): the function has no Tensor input to differentiate")
            return in_grads[0]

        return grad_fn


def _is_tensor_seq(a: Any) -> bool:
    return isinstance(a, (tuple, list)) and bool(a) and all(isinstance(x, (Tensor, np.ndarray)) for x in a)


def _regrouped(fn: Callable[..., Any], layout: tuple) -> Callable[..., Any]:
    """``fn`` taking its tuple arguments flattened (``layout``: per argument its length, or None)."""
    def flat_fn(*xs: Any) -> Any:
        it = iter(xs)
        args = [next(it) if n is None else tuple(next(it) for _ in range(n)) for n in layout]
        return fn(*args, *it)

    state = getattr(fn, "_state_signature", None)
    if state is not None:  # a Cell's training flag and structure stay part of the graph's key
        flat_fn._state_signature = state  # type: ignore[attr-defined]
    return flat_fn


def _group_grads(grads: list, layout: tuple, get_all: bool) -> list:
    """The flattened inputs' gradients regrouped: a tuple argument's members' gradients as one tuple."""
    it = iter(grads)
    out = []
    for n in layout if get_all else layout[:1]:
        out.append(next(it) if n is None else tuple(next(it) for _ in range(n)))
    return out
