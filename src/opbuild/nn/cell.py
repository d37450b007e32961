"""Cell: the base class of networks. In GRAPH_MODE a call traces ``construct`` once per input signature,
builds every kernel of the graph, and runs the compiled graph; in PYNATIVE_MODE ``construct`` runs op by
op."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ..core import config, forward_share, graph_breaks, symbol, trace
from ..core import recompute as recompute_marks
from ..core.dtypes import dtype_of
from ..core.parameter import Parameter, ParameterTuple, is_generated_name
from ..core.tensor import Tensor
from ..ops.primitive import apply, compute_dtype
from . import backward_hooks, batch_chunks
from .cell_api import CellApi
from .cell_extras import CellExtras, hooked_parameters
from .cell_repr import cell_repr, extra_repr
from .cell_state import CellState


def outputs_to_float32(out: Any) -> Any:
    """``out`` (a Tensor or a tuple) with its float16/bfloat16 members cast to float32 (amp's O1 cells and
    ``auto_mixed_precision``'s output cast: a loss applied to them computes in float32)."""
    def to32(t: Any) -> Any:
        if hasattr(t, "_type") and t._type.dtype in ("float16", "bfloat16"):
            return apply("Cast", {"dtype": "float32"}, [t])
        return t

    return tuple(to32(o) for o in out) if isinstance(out, tuple) else to32(out)



# Cell._state_signature is part of every graph-mode call's key; walking the cell tree per call costs time in
# proportion to the network. The walk's result is kept per cell together with this epoch, which every change
# that the signature reads (a training flag, a structure change, a compute dtype, any attribute assignment)
# advances, so a call after no change reuses it.
_state_epoch = [0]


def state_changed() -> None:
    """Invalidate every cell's kept state signature (call after changing cell state behind Cell's back)."""
    _state_epoch[0] += 1


def restore_training(flags: Iterable[tuple[Cell, bool]]) -> None:
    """Set each cell's training flag as saved in ``flags`` (pairs of cell and flag), without walking sub-cells."""
    for cell, flag in flags:
        object.__setattr__(cell, "training", bool(flag))
    state_changed()


def _write_parameter(param: Parameter, value: Tensor) -> None:
    """``value`` written into ``param``: an in-place Assign node while a graph is traced (it runs at every call,
    in order with the graph's other updates), the new data now otherwise (in the Parameter's dtype)."""
    if trace.current() is not None:
        if value.dtype != param.dtype:
            value = apply("Cast", {"dtype": param.dtype.name}, [value])
        apply("Assign", {}, [param, value])
    else:
        param.set_data(value.asnumpy())


def _check_replacement(cell: Cell, name: str, value: Any) -> bool:
    """Refuse what MindSpore 2.10 refuses on assignment (TypeError/KeyError): a registered Parameter or sub-cell
    replaced by a value of another kind (the network would lose it from its parameters and checkpoints without
    a word; None removes it, ``del`` first to reuse the name), and a Parameter or cell under a name with a '.'
    (its parameter names could not be told from a sub-cell's). Returns whether ``name`` is registered now."""
    if isinstance(value, (Parameter, Cell)) and "." in name:
        raise KeyError(f"{type(cell).__name__}: the attribute name {name!r} holds a '.', which would mix up the "
                       "parameter names of the network (a checkpoint's 'a.b' is the parameter b of sub-cell a); "
                       "use a name without '.'")
    kind = "a Parameter" if isinstance(value, Parameter) else "a cell" if isinstance(value, Cell) else \
        f"a {type(value).__name__}"
    fix = f"assign None or `del {name}` first to remove it"
    if name in cell._params and value is not None and not isinstance(value, (Parameter, ParameterTuple, Tensor)):
        err = KeyError if isinstance(value, Cell) else TypeError
        raise err(f"{type(cell).__name__}.{name} is a Parameter of the network: assigning {kind} would drop it "
                  f"from the network's parameters; assign a Parameter or a Tensor (its new value), or {fix}")
    if name in cell._cells and value is not None and not isinstance(value, (Cell, ParameterTuple)):
        err = KeyError if isinstance(value, Parameter) else TypeError
        raise err(f"{type(cell).__name__}.{name} is a sub-cell of the network: assigning {kind} would drop it "
                  f"and its parameters from the network; assign a Cell, or {fix}")
    return name in cell._params or name in cell._cells


class Cell(CellState, CellApi, CellExtras):
    """Base class of all networks and layers. Subclasses define ``construct``.

    Attributes that are Parameters or Cells are registered (``parameters_and_names``, ``cells_and_names``);
    their names are the attribute paths (``layer1.conv.weight``).
    """

    # True for cells that are graphs by nature (an imported ONNX model): they compile and run as one graph in
    # PYNATIVE_MODE too, since running their nodes one by one would only be slower.
    _always_graph = False

    def __init__(self, auto_prefix: bool = True):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_graphs", {})
        object.__setattr__(self, "_version", 0)
        object.__setattr__(self, "training", False)
        # MindSpore: a cell created with auto_prefix=False (TrainOneStepCell, WithLossCell, optimizers) does not
        # prefix the parameter names of the cells assigned to it, so the network keeps ``conv1.weight``.
        object.__setattr__(self, "_auto_prefix", bool(auto_prefix))

    def __setattr__(self, name: str, value: Any) -> None:
        if "_params" not in self.__dict__:
            # As MindSpore's: plain attributes may be set before Cell.__init__ (model zoos store their options
            # first); parameters and cells need the registries it creates.
            if isinstance(value, (Parameter, ParameterTuple, Cell)):
                raise AttributeError(
                    f"{type(self).__name__}.__init__ must call super().__init__() before assigning the "
                    f"{type(value).__name__} {name!r}")
            object.__setattr__(self, name, value)
            return
        if (isinstance(value, Tensor) and not isinstance(value, Parameter)
                and self._params.get(name) is not None):
            # As MindSpore's: a Tensor assigned to a Parameter attribute (``self.w = expr``, ``self.step += 1``
            # in construct) writes the Parameter's value; the attribute stays that Parameter (the optimizer's).
            _write_parameter(self._params[name], value)
            return
        if (isinstance(value, (int, float, np.number)) and self._params.get(name) is not None
                and trace.current() is not None):
            # A number in a traced construct (``self.step = 0``, mindcv's gradient accumulation): MindSpore's graph
            # compiler makes it a constant of the Parameter's dtype and writes it.
            param = self._params[name]
            _write_parameter(param, Tensor(np.asarray(value, param.dtype.np_dtype)))
            return
        replaced = _check_replacement(self, name, value)
        # Assigning in place keeps a replaced parameter or cell at its position in parameters_and_names().
        if isinstance(value, Parameter):
            if is_generated_name(value.name):
                value.name = name
            self._cells.pop(name, None)
            self._params[name] = value
        elif isinstance(value, ParameterTuple):
            # As MindSpore's: each Parameter of a ParameterTuple attribute (whose names are unique) is
            # registered under its own name (an optimizer holds its network's Parameters so, a
            # TrainOneStepCell its optimizer's); the attribute itself is a plain one.
            self._params.pop(name, None)
            self._cells.pop(name, None)
            for p in value:
                self._params[p.name] = p
        elif isinstance(value, Cell):
            self._params.pop(name, None)
            self._cells[name] = value
            # As MindSpore's auto_prefix: a sub-cell's parameters are renamed to their path from here down
            # (their path inside ``value`` now, whatever names they had: a cell shared with another container
            # takes the name of its latest assignment).
            if self._auto_prefix:
                value.update_parameters_name(f"{name}.")
        else:
            self._params.pop(name, None)
            self._cells.pop(name, None)
        object.__setattr__(self, name, value)
        _state_epoch[0] += 1
        if replaced or isinstance(value, (Parameter, ParameterTuple, Cell)):
            self._structure_changed()

    def __delattr__(self, name: str) -> None:
        replaced = name in self._params or name in self._cells
        self._params.pop(name, None)
        self._cells.pop(name, None)
        object.__delattr__(self, name)
        _state_epoch[0] += 1
        if replaced:
            self._structure_changed()

    def _structure_changed(self) -> None:
        """A Parameter or sub-cell was assigned or removed. Traced graphs captured the old objects, so they
        are dropped here, and the version (part of every ancestor's graph key) makes ancestors re-trace."""
        object.__setattr__(self, "_version", self._version + 1)
        self._graphs.clear()
        _state_epoch[0] += 1

    # ---- structure ------------------------------------------------------------------------------
    def cells_and_names(self, prefix: str = "") -> Iterator[tuple[str, Cell]]:
        """Yield (path, cell) for this cell and every sub-cell, depth first; a cell held twice (a shared
        cell) is yielded once, at its first path, as in MindSpore."""
        seen: set[int] = set()

        def walk(path: str, cell: Cell) -> Iterator[tuple[str, Cell]]:
            if id(cell) in seen:
                return
            seen.add(id(cell))
            yield path, cell
            for name, sub in cell._cells.items():
                yield from walk(f"{path}.{name}" if path else name, sub)

        yield from walk(prefix, self)

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """MindSpore's ``Cell.update_parameters_name``: name every parameter ``prefix`` + its path in this
        cell (``parameters_and_names(expand=recurse)``), replacing the names it had."""
        if not isinstance(prefix, str):
            raise TypeError(f"update_parameters_name: prefix must be a str, got {type(prefix).__name__}")
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    def name_cells(self) -> OrderedDict[str, Cell]:
        return OrderedDict(self._cells)

    def cells(self):
        """The direct child cells (an ``odict_values`` view, as MindSpore returns)."""
        return self._cells.values()

    def parameters_and_names(self, name_prefix: str = "",
                             expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield (qualified name, Parameter) for this cell's parameters and, if ``expand``, its sub-cells'."""
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix) if expand else iter([(name_prefix, self)])
        for path, cell in cells:
            for pname, p in cell._params.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{path}.{pname}" if path else pname), p

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self) -> list[Parameter]:
        return [p for p in self.get_parameters() if p.requires_grad]

    def extra_repr(self) -> str:
        """The layer's settings shown inside ``repr(cell)`` (MindSpore's hook; override in a subclass)."""
        return extra_repr(self)

    def __repr__(self) -> str:
        return cell_repr(self)

    def set_train(self, mode: bool = True) -> Cell:
        """Set training mode on this cell and every sub-cell (Dropout and BatchNorm depend on it)."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        _state_epoch[0] += 1
        return self

    # ---- execution ------------------------------------------------------------------------------
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        if d.get("_forward_pre_hooks") or d.get("_forward_hooks"):
            return self._call_with_hooks(self._gated_call, args, kwargs)
        if d.get("_recompute") or d.get(backward_hooks.PRE) or d.get(backward_hooks.POST) \
                or backward_hooks.has_bprop(self):
            return self._gated_call(*args, **kwargs)
        # No gate applies (the checks of _gated_call, _gated_call_now and _call_hooked, at once): every cell of
        # a network passes here on each PyNative call.
        return self._call(*args, **kwargs)

    def _gated_call(self, *args: Any, **kwargs: Any) -> Any:
        """The call, through the backward hooks' gates when the cell has backward hooks, its nodes marked for
        recomputation after :meth:`recompute`, its gradient the cell's own ``bprop`` when it defines one."""
        if self.__dict__.get("_recompute") and trace.current() is not None:
            with recompute_marks.block():
                return self._gated_call_now(*args, **kwargs)
        return self._gated_call_now(*args, **kwargs)

    def _gated_call_now(self, *args: Any, **kwargs: Any) -> Any:
        if backward_hooks.has_bprop(self) and trace.current() is not None:
            return backward_hooks.call_with_bprop(self, self._call_hooked, args, kwargs)
        return self._call_hooked(*args, **kwargs)

    def _call_hooked(self, *args: Any, **kwargs: Any) -> Any:
        if backward_hooks.has_hooks(self):
            return backward_hooks.call(self, self._call, args, kwargs)
        return self._call(*args, **kwargs)

    def _call(self, *args: Any, **kwargs: Any) -> Any:
        tracer = trace.current()
        if tracer is not None or (config.get_context("mode") == config.PYNATIVE_MODE and not self._always_graph):
            d = self.__dict__
            run = self._construct_in_precision if d.get("_param_forward_hooks") or \
                d.get("_mixed_precision") is not None else self.construct
            return forward_share.call_cell(tracer, self, run, args, kwargs)  # a gradient may share this forward
        for a in args:
            if isinstance(a, np.ndarray):
                args = tuple(Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
                break
        who = f"{type(self).__name__} (a Cell)"
        if kwargs or any(type(a) in (tuple, list) for a in args):
            # keyword inputs and tuples/lists of Tensors: MindSpore's graph mode takes them too
            if self.__dict__.get("_declared_spec"):
                raise TypeError(f"{who}: pass Tensors positionally to a cell with set_inputs (the declaration "
                                "is positional), not by keyword nor in tuples or lists")
            kwargs = {k: Tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
            fn, inputs, layout = trace.graph_inputs(self._construct_in_precision, args, kwargs, who)
            key = (self._state_signature(), trace.arg_signature(inputs, who), layout)
            return graph_breaks.run_compiled(self._graphs, key, fn, inputs)
        dynamic = self._dynamic_batch(args)
        if dynamic is not None:
            return batch_chunks.run(self._graphs, self._state_signature(), self._construct_in_precision, args,
                                     dynamic, who)
        key = (self._state_signature(), trace.arg_signature(args, who))
        return graph_breaks.run_compiled(self._graphs, key, self._construct_in_precision, args)

    def _dynamic_batch(self, args: tuple) -> tuple[bool, ...] | None:
        """Which arguments have a dynamic batch dimension (from :meth:`set_inputs`), None when none has;
        raises when ``args`` do not match the declaration."""
        declared = self.__dict__.get("_declared_spec")
        if not declared:
            return None  # no declaration (set_inputs, nn/cell_api.py)
        name = type(self).__name__
        if len(args) != len(declared):
            raise ValueError(f"{name}: set_inputs declared {len(declared)} input(s), the call gives {len(args)}")
        flags = []
        for i, ((np_dtype, want, dynamic), a) in enumerate(zip(declared, args)):
            if not isinstance(a, Tensor):
                raise TypeError(f"{name}: input {i} must be a Tensor as declared by set_inputs, got "
                                f"{type(a).__name__}")
            got = a.shape
            if a.asnumpy().dtype != np_dtype or len(want) != len(got) or any(
                    w != g and w != -1 for w, g in zip(want, got)):
                raise ValueError(f"{name}: input {i} is {a._type.dtype}{list(got)}, but set_inputs declared "
                                 f"{dtype_of(np_dtype).name}{[None if w == -1 else w for w in want]}")
            flags.append(dynamic)
        symbol.check_dims(name, self.__dict__["_declared_inputs"], args)
        return tuple(flags) if any(flags) else None

    def _construct_in_precision(self, *args: Any, **kwargs: Any) -> Any:
        """``construct`` with this cell's ``to_float`` dtype (if any) as the compute dtype of its ops."""
        if self.__dict__.get("_param_forward_hooks"):
            with hooked_parameters(self):
                return self._construct_in_dtype(*args, **kwargs)
        return self._construct_in_dtype(*args, **kwargs)

    def _construct_in_dtype(self, *args: Any, **kwargs: Any) -> Any:
        dtype = self.__dict__.get("_mixed_precision")
        if dtype is None:
            return self.construct(*args, **kwargs)
        with compute_dtype(dtype):
            out = self.construct(*args, **kwargs)
        if self.__dict__.get("_amp_output_float32"):  # amp O1: a white-list cell's results back to float32
            out = outputs_to_float32(out)
        return out

    def to_float(self, dst_type) -> Cell:
        """MindSpore's ``Cell.to_float``: run this cell and its sub-cells in ``dst_type`` (float16, bfloat16
        or float32): the float inputs and Parameters of every op inside are cast to it (the Parameters keep
        their own dtype; their gradients flow back through the Cast). A sub-cell's own later ``to_float``
        wins inside it. Returns the cell."""
        name = dtype_of(dst_type).name
        if name not in ("float16", "bfloat16", "float32"):
            raise ValueError(f"{type(self).__name__}.to_float: dst_type must be float16, bfloat16 or float32, "
                             f"got {name}")
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_mixed_precision", name)
        _state_epoch[0] += 1
        return self

    def _state_signature(self) -> tuple:
        """What a traced graph depends on besides its inputs: every cell's training flag, structure and
        compute dtype (``to_float``)."""
        epoch = _state_epoch[0]
        kept = self.__dict__.get("_kept_signature")
        if kept is not None and kept[0] == epoch:
            return kept[1]
        # An explicit stack in cells_and_names()'s order (depth first, a shared cell once), without its
        # generators and path strings.
        out, seen, stack = [], set(), [self]
        while stack:
            c = stack.pop()
            if id(c) in seen:
                continue
            seen.add(id(c))
            d = c.__dict__
            if "_cells" not in d:
                raise RuntimeError(f"{type(c).__name__}.__init__ must call super().__init__() (Cell's registries)")
            out.append((d["training"], d["_version"], d.get("_mixed_precision")))
            stack.extend(reversed(d["_cells"].values()))
        signature = tuple(out)
        object.__setattr__(self, "_kept_signature", (epoch, signature))
        return signature

    def compile_info(self) -> list:
        """The compiled graphs of this cell, one per input signature seen (several per signature where
        control flow over tensor values broke the graph: one per piece, see core/graph_breaks.py; a dynamic batch
        built with run-time-batch kernels is one graph, nn/batch_runtime.py)."""
        return [piece.compiled for program in self._graphs.values() if isinstance(program, graph_breaks.Program)
                for piece in program.pieces()] + batch_chunks.runtime_graphs(self._graphs)
