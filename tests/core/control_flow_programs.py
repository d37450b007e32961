"""Graph-mode programs with control flow over tensor values, written once for both frameworks: ``build(ms)``
takes the framework module (``mindspore`` in scripts/record_control_flow.py, ``opbuild`` in the tests) and
returns the programs with their inputs. Imports no framework itself."""

from __future__ import annotations

import numpy as np


def inputs() -> dict[str, list[np.ndarray]]:
    """Named inputs: each program runs on every one of them (they take different branches)."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal((3, 4)).astype(np.float32)
    return {"pos": [np.abs(base) + 0.5], "neg": [-np.abs(base) - 0.5], "mixed": [base]}


def build(ms) -> dict:
    """name -> callable taking one float32 (3, 4) Tensor (Cells in GRAPH_MODE and @jit functions)."""
    nn, ops = ms.nn, ms.ops

    class IfElse(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:  # noqa: SIM108 - an if statement is what is tested
                y = x * 2.0
            else:
                y = x - 1.0
            return y + 1.0

    class While(nn.Cell):
        def construct(self, x):
            y = ops.abs(x)
            while y.sum() < 100.0:
                y = y * 2.0 + 1.0
            return y

    class IfInFor(nn.Cell):
        def construct(self, x):
            out = x
            for i in range(3):
                if out.mean() > 0.0:  # noqa: SIM108 - an if statement is what is tested
                    out = out - float(i)
                else:
                    out = out + 1.0
            return out

    class NestedWhileIf(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(4, 4, weight_init="ones", bias_init="zeros")

        def construct(self, x):
            y = x
            while ops.abs(y).max() < 50.0:
                if y.sum() > 0:  # noqa: SIM108 - an if statement is what is tested
                    y = self.dense(y)
                else:
                    y = y * -2.0
            return y, y.max()

    class TwoOutputsIf(nn.Cell):
        def construct(self, x):
            a = x * 3.0
            b = x.max()
            if b > 1.0:
                return a, b
            return a - 1.0, b + 1.0

    @ms.jit
    def jit_if(x):
        m = x.max()
        if m > 0.5:
            return x - m
        return x + m

    @ms.jit
    def jit_while(x):
        s = x.sum()
        y = x
        while s > -10.0 and s < 10.0:
            y = y * 1.5 + 0.25
            s = y.sum()
        return y

    class WhileCounter(nn.Cell):
        """Returns Python values beside Tensors: a loop counter and a shape's length (MindSpore returns them as
        Python ints), and a dict."""

        def construct(self, x):
            steps = 0
            y = ops.abs(x)
            while y.sum() < 50.0:
                y = y * 2.0 + 1.0
                steps += 1
            return y, steps, {"rows": x.shape[0], "y": y + 1.0}

    return {"if_else": IfElse(), "while": While(), "if_in_for": IfInFor(), "nested_while_if": NestedWhileIf(),
            "two_outputs_if": TwoOutputsIf(), "jit_if": jit_if, "jit_while": jit_while,
            "while_counter": WhileCounter()}


def leaves(result) -> list:
    """The leaves of a program's result in order: tuples, lists and dict values flattened."""
    if isinstance(result, (tuple, list)):
        return [leaf for item in result for leaf in leaves(item)]
    if isinstance(result, dict):
        return [leaf for item in result.values() for leaf in leaves(item)]
    return [result]
