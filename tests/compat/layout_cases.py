"""Cases of ``mindspore.parallel.Layout`` (shared by scripts/record_parallel_layout.py, which runs them on
MindSpore 2.10, and tests/compat/test_parallel_layout.py): ``label -> (constructor args, tensor map or None)``;
a None map records ``to_dict()`` of the uncalled layout."""

DP_SP_MP = ((2, 2, 2), ("dp", "sp", "mp"))

CASES = {
    "documented": (DP_SP_MP, ("dp", "mp")),
    "tuple dim": (DP_SP_MP, (("dp", "sp"), "mp")),
    "None dim": (DP_SP_MP, ("None", "dp")),
    "one dim": (DP_SP_MP, ("mp",)),
    "three dims": (DP_SP_MP, ("dp", ("sp", "mp"), "None")),
    "empty map": (DP_SP_MP, ()),
    "alias twice": (DP_SP_MP, ("dp", "dp")),
    "alias twice in a tuple": (DP_SP_MP, (("dp", "sp"), "sp")),
    "unknown alias": (DP_SP_MP, ("xx",)),
    "int entry": (DP_SP_MP, (1,)),
    "interleaved used": (((2, 2, 2), ("dp", "sp", "interleaved_parallel")), (("dp", "interleaved_parallel"), "sp")),
    "interleaved unused": (((2, 2, 2), ("dp", "sp", "interleaved_parallel")), ("dp", "sp")),
    "rank list": (((2, 4), ("a", "b"), [7, 6, 5, 4, 3, 2, 1, 0]), ("b", "a")),
    "uncalled": (DP_SP_MP, None),
    "lengths differ": (((2, 2), ("a",)), ("a",)),
    "matrix a list": (([2, 2], ("a", "b")), ("a",)),
    "names a list": (((2, 2), ["a", "b"]), ("a",)),
    "float in matrix": (((2, 2.0), ("a", "b")), ("a",)),
    "empty name": (((2, 2), ("a", "")), ("a",)),
    "name None": (((2, 2), ("a", "None")), ("a",)),
    "repeated name": (((2, 2), ("a", "a")), ("a",)),
    "int name": (((2, 2), ("a", 3)), ("a",)),
    "rank tuple": (((2, 2), ("a", "b"), (0, 1, 2, 3)), ("a",)),
    "short rank list": (((2, 2), ("a", "b"), [0, 1, 2]), ("a",)),
}


def run(layout_cls, ctor, tensor_map) -> str:
    """``repr`` of the case's ``to_dict()``, or ``"<ErrorType>: <message>"`` for a refusal."""
    try:
        layout = layout_cls(*ctor)
        result = layout.to_dict() if tensor_map is None else layout(*tensor_map).to_dict()
        return repr(result)
    except Exception as e:  # noqa: BLE001 -- the refusal is the case's result
        return f"{type(e).__name__}: {e}"
