"""The documented-examples harness's comparison of printed values (scripts/msdoc/compare.py): what counts
as the same value, what is a difference, and how a failure is classified. No MindSpore needed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from msdoc.compare import classify, missing_name, same_output, tokens  # noqa: E402

MS_REPR = "Tensor(shape=[2, 2], dtype=Float32, value=\n[[ 1.00000000e+00,  2.50000000e+00],\n [ 3.00000000e+00,  nan]])"


def test_layout_is_ignored_and_numbers_compared_with_tolerance():
    assert same_output(MS_REPR, "Tensor(shape=[2, 2], dtype=Float32, value=[[1. 2.5]\n [3. nan]])") is None
    assert same_output("[0.33333334]", "[0.3333333]") is None
    assert same_output("[0.3333]", "[0.3340]") is not None


def test_int_and_float_tokens_differ():
    # [1 2] and [1. 2.] print tensors of different dtypes.
    assert same_output("[1. 2.]", "[1 2]") is not None
    assert same_output("[1 2]", "[1 2]") is None
    assert same_output("[2]", "[3]") is not None


def test_dtype_names_compare_equivalently():
    assert same_output("Float32", "float32") is None
    assert same_output("mindspore.float32", "Float32") is None
    assert same_output("Bool", "bool_") is None
    assert same_output("Float32", "Float16") is not None
    assert same_output("mindspore.float32", "opbuild.float32") is not None


def test_structure_and_length_matter():
    assert same_output("[[1. 2.]]", "[1. 2.]") is not None
    assert same_output("(2, 3)", "(2, 3, 1)") is not None
    assert same_output("", "") is None


def test_nan_inf_complex_and_addresses():
    assert same_output("[nan -inf]", "[nan -inf]") is None
    assert same_output("[nan]", "[1.]") is not None
    assert same_output("[inf]", "[-inf]") is not None
    assert [k for k, _ in tokens("(1+2j)")] == ["punct", "complex", "punct"]
    assert same_output("(1+2j)", "(1.0000001+2j)") is None
    assert same_output("<object at 0x7f00aa>", "<object at 0x55bb01>") is None


def test_missing_name_from_error_messages():
    assert missing_name({"type": "AttributeError", "msg": "module 'mindspore.ops' has no attribute 'cummin'"}) \
        == "ops.cummin"
    assert missing_name({"type": "ImportError",
                         "msg": "cannot import name 'COOTensor' from 'mindspore' (unknown location)"}) \
        == "COOTensor"
    assert missing_name({"type": "AttributeError", "msg": "'Tensor' object has no attribute 'allclose'"}) \
        == "Tensor.allclose"
    assert missing_name({"type": "TypeError", "msg": "f() got an unexpected keyword argument 'dim'"}) is None


def _rec(*outs, exc=None):
    return {"stmts": [{"out": o, "exc": exc if i == len(outs) - 1 else None} for i, o in enumerate(outs)]}


def test_classify():
    ex = {"stmts": [{"source": "x = 1\n"}, {"source": "print(x)\n"}]}
    assert classify(ex, _rec("", "[1.]"), _rec("", "[1.]"))["status"] == "passes"
    assert classify(ex, _rec("", "[1.]"), _rec("", "[2.]"))["status"] == "value differs"
    miss = classify(ex, _rec("", "[1.]"), _rec("", "", exc={"type": "AttributeError",
                                                             "msg": "module 'mindspore' has no attribute 'tensor'"}))
    assert (miss["status"], miss["cause"]) == ("missing name", "tensor")
    err = classify(ex, _rec("", "[1.]"), _rec("", "", exc={"type": "ValueError", "msg": "bad shape"}))
    assert (err["status"], err["cause"]) == ("error", "ValueError: bad shape")
    skipped = classify(ex, _rec("", "", exc={"type": "RuntimeError", "msg": "only supported on Ascend"}), None)
    assert skipped["status"] == "skipped" and "Ascend" in skipped["reason"]
    assert classify(ex, {"stmts": [], "fail": "timeout"}, None)["status"] == "skipped"
    assert classify(ex, _rec("", "[1.]"), {"stmts": [], "fail": "timeout"})["status"] == "error"


def test_random_values_compare_layout_only():
    ex = {"stmts": [{"source": "print(ops.randn(2))\n"}]}
    first, again = _rec("[0.51 -1.2]"), _rec("[-0.33 0.8]")
    r = classify(ex, first, _rec("[1.7 0.2]"), again)
    assert (r["status"], r["random"]) == ("passes", True)
    # Still a difference: other shape, other kind of number.
    assert classify(ex, first, _rec("[1.7 0.2 0.3]"), again)["status"] == "value differs"
    assert classify(ex, first, _rec("[1 0]"), again)["status"] == "value differs"
    # A second run that agrees with the first means the values are MindSpore's, not random.
    assert classify(ex, first, _rec("[1.7 0.2]"), first)["status"] == "value differs"
    assert same_output("[1.5]", "[2.5]", numbers=False) is None


def test_opbuild_module_names_map_to_mindspore_names():
    assert missing_name({"type": "ImportError", "msg": "cannot import name 'Dice' from 'opbuild.train' (/x.py)"}) \
        == "train.Dice"
    assert missing_name({"type": "AttributeError", "msg": "module 'opbuild' has no attribute 'Generator'"}) \
        == "Generator"


def test_every_extracted_group_is_reported_and_numpy_comes_last():
    import ms_doc_examples
    from msdoc.extract import GROUPS

    names = [g for g, _ in GROUPS]
    assert sorted(names) == sorted(ms_doc_examples.GROUP_ORDER)  # the summary table shows every group
    # Extracted last, the numpy group claims no object an earlier group had: the other ids stay put.
    assert names[-1] == "numpy" and GROUPS[-1][1] == ["mindspore.numpy"]
