"""ONNX conformance: an ``onnx.backend`` Backend for opbuild, the selection of ONNX's node tests it must pass,
and the documented exceptions.

The selection is every node test of ``onnx.backend.test`` (built in memory by onnx 1.23's loader, read
from the package's data folders by earlier versions) whose
graph uses only operators of the converter table, including the ``*_expanded`` variants of ONNX functions
that decompose into supported operators. Every selected test passes, or matches one rule of
:data:`EXCEPTIONS` with the reason it cannot (docs/onnx-conformance.md lists each test under its reason;
tests/onnx/test_conformance.py checks that the list is current and that excepted tests really fail).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

from opbuild.frontends.onnx import OnnxModel
from opbuild.frontends.onnx_ops import CONVERTERS


class OpbuildRep(BackendRep):
    """A prepared model: ``run`` takes the inputs positionally and returns the outputs as a tuple."""

    def __init__(self, model: OnnxModel):
        self.model = model

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run the model on a list (or dict, or single array) of inputs."""
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        return tuple(self.model.run(inputs))


class OpbuildBackend(Backend):
    """``onnx.backend`` interface to opbuild (CPU only)."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> OpbuildRep:
        """Load ``model`` with opbuild's importer (raises UnsupportedOnnxError for unsupported models)."""
        super().prepare(model, device, **kwargs)  # onnx's checker
        return OpbuildRep(OnnxModel(model, f"'{model.graph.name}'"))

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple:
        """Prepare and run once."""
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """Only the CPU."""
        return device == "CPU"


# ---- which node tests ---------------------------------------------------------------------------------

# (regular expression matched against the whole test name, reason, regular expression the error must match)
EXCEPTIONS: list[tuple[str, str, str]] = [
    (r"test_(cast|castlike)_e8m0_.*", "FLOAT8E8M0 (the MX scale format, with its round_mode) is not an opbuild "
                                     "dtype; the importer rejects the model at load time",
     r"which opbuild does not support"),
    (r"test_.*_string(_.*)?", "STRING tensors: opbuild has numeric and bool tensors only; the importer rejects the "
                              "model at load time", r"which opbuild does not support"),
    (r"test_convtranspose_3d", "3-D transposed convolution: opbuild's convolution primitives are 2-D (1-D runs "
                               "as 2-D)", r"only 1-D and 2-D transposed convolutions"),
    (r"test_training_dropout.*", "Dropout in training mode draws random numbers: inference only",
     r"training_mode"),
    (r"test_nonzero_example", "NonZero of a run-time input: its output shape depends on the input's values, and "
                              "opbuild specialises kernels on static shapes (a NonZero of a constant folds)",
     r"output shape depends on the input's values"),
    (r"test_identity_(sequence|opt)", "sequence and optional values: opbuild has tensors only",
     r"only tensor inputs are supported"),
    (r"test_bernoulli(_double|_seed)?_expanded", "Bernoulli's expansion draws from RandomUniformLike: opbuild's "
                                                 "generator gives other numbers than the reference's (the same "
                                                 "distribution: tests/onnx/test_generators_onnx.py)",
     r"Mismatched elements"),
]


@cache
def node_tests() -> tuple[Any, ...]:
    """Every ONNX node test case (``onnx.backend.test.case.test_case.TestCase``), built once."""
    import warnings

    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return tuple(load_model_tests(kind="node"))


def case_model(case: Any) -> onnx.ModelProto | None:
    """A node test's model: built in memory by onnx >= 1.23's loader, read from its directory before."""
    if case.model is None and case.model_dir:
        path = Path(case.model_dir) / "model.onnx"
        if path.is_file():
            case.model = onnx.load(str(path))
    return case.model


def case_data(case: Any) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    """A node test's (inputs, expected outputs) data sets, in memory or from its test_data_set_* folders."""
    def arr(x: Any) -> np.ndarray:
        return onnx.numpy_helper.to_array(x) if isinstance(x, onnx.TensorProto) else x

    if case.data_sets is not None:
        return [([arr(x) for x in ins], [arr(x) for x in outs]) for ins, outs in case.data_sets]
    def read(folder: Path, kind: str) -> list[np.ndarray]:
        files = sorted(folder.glob(f"{kind}_*.pb"), key=lambda f: int(f.stem.split("_")[1]))
        return [onnx.numpy_helper.to_array(onnx.load_tensor(str(f))) for f in files]

    return [(read(folder, "input"), read(folder, "output"))
            for folder in sorted(Path(case.model_dir).glob("test_data_set_*"))]


def graph_ops(model: onnx.ModelProto) -> set[str]:
    """The op types of a model's main graph (``domain:op`` for other domains)."""
    return {n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}:{n.op_type}" for n in model.graph.node}


def selected_tests() -> list[Any]:
    """The node tests opbuild claims: every test whose graph uses only operators of the converter table."""
    return [c for c in node_tests() if case_model(c) is not None and graph_ops(c.model) <= set(CONVERTERS)]


def exception_for(name: str) -> tuple[str, str] | None:
    """(reason, regular expression its error must match) if a selected test is documented to fail, else
    None (it must pass)."""
    for pattern, reason, error in EXCEPTIONS:
        if re.fullmatch(pattern, name):
            return reason, error
    return None


def exception_reason(name: str) -> str | None:
    """The documented reason a selected test fails, or None if it must pass."""
    found = exception_for(name)
    return found[0] if found else None


_EXPANDED = re.compile(r"_expanded(_ver\d+)?$")


def case_op(case: Any, by_name: dict[str, Any] | None = None) -> str:
    """The operator a node test is about: its single node's op, or for an ``*_expanded`` test the op of the
    function it expands (shown as ``Op (expanded)``)."""
    base = _EXPANDED.sub("", case.name)
    if base != case.name:
        by_name = by_name if by_name is not None else {c.name: c for c in node_tests()}
        orig = by_name.get(base)
        model = case_model(orig) if orig is not None else None
        op = model.graph.node[0].op_type if model is not None and len(model.graph.node) == 1 else base
        return f"{op} (expanded)"
    ops = [n.op_type for n in case_model(case).graph.node]
    return ops[0] if len(set(ops)) == 1 else "+".join(sorted(set(ops)))


def run_case(case: Any) -> None:
    """Run one node test the way onnx's BackendTest runner does (prepare, run every data set, compare with
    the test's rtol/atol); raises on failure."""
    from onnx.backend.test.runner import Runner

    rep = OpbuildBackend.prepare(case_model(case), "CPU")
    for inputs, ref_outputs in case_data(case):
        Runner.assert_similar_outputs(ref_outputs, rep.run(inputs), rtol=case.rtol, atol=case.atol)


def names(cases: Sequence[Any]) -> list[str]:
    """Test names of ``cases``."""
    return [c.name for c in cases]
