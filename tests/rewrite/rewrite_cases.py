"""Networks and edits that scripts/record_rewrite.py runs under MindSpore 2.10 (after turning the ``opbuild``
imports below into ``mindspore`` ones) and tests/rewrite/test_recorded.py under opbuild: the recorded node
lists, code and outputs must agree. The ``construct`` methods are the same text for both frameworks."""

from __future__ import annotations

import zlib

import numpy as np

from opbuild import Tensor, nn, ops
from opbuild.rewrite import Node, ScopedValue, SymbolTree


class LeNet5(nn.Cell):
    """The LeNet5 of MindSpore's rewrite documentation (its examples' node names refer to it)."""

    def __init__(self, num_class=10, num_channel=1, include_top=True):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.include_top = include_top
        if self.include_top:
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, num_class)

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.conv2(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        if not self.include_top:
            return x
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class ConvBlock(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode='same', has_bias=True)
        self.relu = nn.ReLU()
        self.head = nn.Conv2d(4, 2, 1, has_bias=True)

    def construct(self, x):
        x = self.conv(x)
        x = self.relu(x)
        x = self.head(x)
        return x


class FusedConvReLU(nn.Cell):
    """One cell doing a convolution and its ReLU (what a fusion pass puts in place of the two)."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.conv(x))


class Mixed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.add = ops.Add()
        self.abs = ops.Abs()
        self.relu = nn.ReLU()

    def construct(self, x, y):
        x = self.dense(x)
        z = self.add(x, y)
        z = z * 2 + x
        z = self.abs(z)
        out = self.relu(-z)
        return out, z


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        x = self.dense(x)
        return x


class Top(nn.Cell):
    def __init__(self):
        super().__init__()
        self.subnet = Sub()
        self.seq = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU()])

    def construct(self, x):
        x = self.subnet(x)
        y = self.seq(x)
        return x + y


class Loop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        for _ in range(2):
            x = self.dense(x)
        if self.training:  # noqa: SIM108 (the if/else statement is what is parsed)
            x = self.relu(x)
        else:
            x = -x
        return self.relu(x)


class ReLUNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, input):
        output = self.relu(input=input)
        return output


def init_weights(net) -> None:
    """Deterministic weights: each Parameter from a NumPy stream seeded by its name."""
    for name, p in net.parameters_and_names():
        rng = np.random.RandomState(zlib.crc32(name.encode()))
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.3).astype(np.float32)))


INPUTS = {
    "LeNet5": lambda: [np.random.RandomState(1).standard_normal((2, 1, 32, 32)).astype(np.float32)],
    "ConvBlock": lambda: [np.random.RandomState(2).standard_normal((2, 3, 5, 5)).astype(np.float32)],
    "Mixed": lambda: [np.random.RandomState(3).standard_normal((2, 4)).astype(np.float32),
                      np.random.RandomState(4).standard_normal((2, 3)).astype(np.float32)],
    "Top": lambda: [np.random.RandomState(5).standard_normal((3, 4)).astype(np.float32)],
    "LeNet5NoTop": lambda: [np.random.RandomState(1).standard_normal((2, 1, 32, 32)).astype(np.float32)],
    "Loop": lambda: [np.random.RandomState(7).standard_normal((2, 3)).astype(np.float32)],
    "ReLUNet": lambda: [np.random.RandomState(6).standard_normal((2, 3)).astype(np.float32)],
}

NETS = {"LeNet5": LeNet5, "LeNet5NoTop": lambda: LeNet5(include_top=False), "ConvBlock": ConvBlock,
        "Mixed": Mixed, "Top": Top, "Loop": Loop, "ReLUNet": ReLUNet}


def _x():
    return ScopedValue.create_naming_value("x")


# ---- edits: each takes a fresh SymbolTree and changes it ---------------------------------------------------
def edit_none(stree):
    return stree


def edit_insert_relu(stree):
    node = stree.get_node("conv1")
    new = Node.create_call_cell(cell=nn.ReLU(), targets=['x'], args=[_x()], name='new_relu')
    stree.insert(stree.after(node), new)
    return stree


def edit_insert_before(stree):
    new = Node.create_call_cell(nn.Tanh(), ['x'], [_x()], name='tanh')
    stree.insert(stree.before("max_pool2d"), new)
    return stree


def edit_insert_function(stree):
    new = Node.create_call_function(function=ops.abs, targets=['x'], args=[_x()])
    stree.insert(stree.after(stree.get_node("conv1")), new)
    return stree


def edit_erase_relu(stree):
    stree.erase(stree.get_node("relu"))
    return stree


def edit_fuse(stree):
    conv = stree.get_node("conv")
    fused = Node.create_call_cell(FusedConvReLU(conv.get_instance()), ['x'], [_x()], name='conv_relu')
    stree.replace(conv, [fused])
    stree.erase("relu")
    return stree


def edit_set_arg(stree):
    stree.get_node("relu_3").set_arg(0, "x")
    stree.get_node("fc3").set_arg_by_node(0, stree.get_node("fc2"), 0)
    return stree


def edit_unnamed(stree):
    stree.insert(stree.after("conv"), Node.create_call_cell(nn.Sigmoid(), ['x'], [_x()]))
    stree.insert(stree.after("relu"), Node.create_call_cell(nn.Sigmoid(), ['x'], [_x()]))
    return stree


def edit_branch(stree):
    # Into the if branch (not taken: include_top is True), before its return.
    stree.insert(stree.before(stree.get_node("return")), Node.create_call_cell(nn.ReLU(), ['x'], [_x()], name='rb'))
    return stree


def edit_replace_two(stree):
    t1 = Node.create_call_cell(nn.Tanh(), ['x'], [_x()], name='t1')
    t2 = Node.create_call_cell(nn.Sigmoid(), ['x'], [_x()], name='t2')
    stree.replace(stree.get_node("relu"), [t1, t2])
    mul = Node.create_call_function(ops.mul, ['x'], [_x(), ScopedValue.create_variable_value(2.0)])
    stree.insert(stree.before("head"), mul)
    return stree


def edit_loop_body(stree):
    # Into the loop's body, after its dense call.
    dense = stree.get_node("dense")
    stree.insert(stree.after(dense), Node.create_call_cell(nn.Tanh(), ['x'], [_x()], name='tanh'))
    return stree


def edit_flatten_if(stree):
    stree.flatten_static_if_control_flow()
    return stree


def edit_flatten_nodes(stree):
    for name in ("for_node", "if_node", "else_node"):
        stree.flatten_nodes(stree.get_node(name))
    return stree


def edit_flatten_branch(stree):
    stree.flatten_nodes(stree.get_node("if_node"), erase_nodes_after_return=True)
    return stree


def edit_flatten_if_only(stree):
    stree.flatten_nodes(stree.get_node("if_node"))
    return stree


def edit_set_output(stree):
    stree.set_output(0, "x")
    return stree


def edit_subtree(stree):
    sub = stree.get_node("subnet").get_sub_tree()
    sub.insert(sub.after("dense"), Node.create_call_cell(nn.Sigmoid(), ['x'], [_x()], name='sig'))
    return stree


def edit_kwargs(stree):
    new = Node.create_call_cell(nn.Tanh(), ['output'], [ScopedValue.create_naming_value('output')], name='tanh')
    stree.insert(stree.after("relu"), new)
    return stree


# (net, edit, whether the rewritten network runs)
CASES = [
    ("LeNet5", "edit_none", True), ("LeNet5", "edit_insert_relu", True), ("LeNet5", "edit_insert_before", True),
    ("LeNet5", "edit_insert_function", True), ("LeNet5", "edit_erase_relu", True),
    ("LeNet5", "edit_set_arg", True), ("LeNet5", "edit_branch", True),
    ("ConvBlock", "edit_none", True), ("ConvBlock", "edit_fuse", True), ("ConvBlock", "edit_unnamed", True),
    ("ConvBlock", "edit_replace_two", True),
    ("Mixed", "edit_none", True), ("Mixed", "edit_set_output", True),
    ("Top", "edit_none", True), ("Top", "edit_subtree", True),
    ("Loop", "edit_none", True), ("Loop", "edit_loop_body", True),
    ("LeNet5", "edit_flatten_if", True), ("LeNet5NoTop", "edit_flatten_if", True),
    ("Loop", "edit_flatten_if", True), ("Loop", "edit_flatten_nodes", True), ("Loop", "edit_flatten_if_only", True),
    ("LeNet5", "edit_flatten_branch", True),
    # ReLUNet calls ReLU with input=: MindSpore's parameter name, opbuild's ReLU names it x (not run).
    ("ReLUNet", "edit_none", False), ("ReLUNet", "edit_kwargs", False),
]


def run_case(net_name: str, edit: str, run: bool) -> dict:
    """The node list, construct code and outputs (original, rewritten) of one case, as JSON-able values."""
    net = NETS[net_name]()
    init_weights(net)
    inputs = [Tensor(a) for a in INPUTS[net_name]()]
    before = _outputs(net(*inputs)) if run else None
    stree = globals()[edit](SymbolTree.create(net))
    rec = {"nodes": [describe(n) for n in stree.nodes()], "construct": construct_lines(stree.get_code())}
    if run:
        new = stree.get_network()
        rec["outputs"] = _outputs(new(*inputs))
        rec["original_outputs"] = before
        rec["params"] = sorted(name for name, _ in new.parameters_and_names())
    return rec


def _outputs(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [np.asarray(o.asnumpy(), np.float64).round(5).tolist() for o in outs]


def describe(node) -> dict:
    return {"name": node.get_name(), "type": node.get_node_type().name,
            "targets": [str(t) for t in node.get_targets()], "args": [str(a) for a in node.get_args()],
            "kwargs": {k: str(v) for k, v in node.get_kwargs().items()},
            "inputs": [n.get_name() for n in node.get_inputs()], "users": [n.get_name() for n in node.get_users()]}


def construct_lines(code: str) -> list[str]:
    """The lines of the last class's ``construct`` in ``get_code``'s text (the part both frameworks write
    the same way; their imports and ``__init__`` differ)."""
    lines = code.splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip().startswith("def construct("))
    out = [lines[start].strip()]
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith("        "):
            break
        if line.strip():
            out.append(line[4:].rstrip())
    return out


def _outcome(fn) -> str:
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 (the exception's type is what is recorded)
        return "raises " + type(e).__name__
    return "returns " + (type(value).__name__ if not isinstance(value, (str, int, type(None))) else repr(value))


def bad_uses() -> dict:
    """What each wrong use does: 'raises <exception type>' or 'returns <result>'."""
    net = LeNet5()
    stree = SymbolTree.create(net)
    relu = Node.create_call_cell(nn.ReLU(), ['x'], [_x()], name='r')
    stree.insert(stree.after("conv1"), relu)
    namespace = {"nn": nn}
    exec("class NoSource(nn.Cell):\n    def construct(self, x):\n        return x\n", namespace)  # noqa: S102
    cases = {
        "create without source": lambda: SymbolTree.create(namespace["NoSource"]()),
        "get_node unknown": lambda: stree.get_node("nope"),
        "get_node not str": lambda: stree.get_node(3),
        "after unknown": lambda: stree.after("nope"),
        "before not node": lambda: stree.before(3),
        "erase unknown": lambda: stree.erase("nope"),
        "insert twice": lambda: stree.insert(stree.after("conv2"), relu),
        "insert not position": lambda: stree.insert(3, Node.create_call_cell(nn.ReLU(), ['x'], [_x()])),
        "insert not node": lambda: stree.insert(stree.after("conv2"), "relu"),
        "create not cell": lambda: SymbolTree.create(3),
        "create_call_cell not cell": lambda: Node.create_call_cell(3, ['x'], [_x()]),
        "create_call_cell targets str": lambda: Node.create_call_cell(nn.ReLU(), 'x', [_x()]),
        "create_call_cell args str": lambda: Node.create_call_cell(nn.ReLU(), ['x'], ['x']),
        "set_arg index out of range": lambda: stree.get_node("conv2").set_arg(3, "x"),
        "set_arg not value": lambda: stree.get_node("conv2").set_arg(0, 3),
        "get_sub_tree of CallCell": lambda: stree.get_node("conv2").get_sub_tree(),
        "create_name_values lengths": lambda: ScopedValue.create_name_values(["a"], ["s", "t"]),
        "create_name_values str": lambda: ScopedValue.create_name_values("a"),
        "create_naming_value int": lambda: ScopedValue.create_naming_value(1),
    }
    return {k: _outcome(f) for k, f in cases.items()}


SCOPED_VALUES = {"int": 2, "float": 2.5, "str": "ab", "bool": True, "none": None, "tuple": (1, 2),
                 "list": [1, "a"], "dict": {"k": 1}}


def scoped_values() -> dict:
    """str, type name and value's str of ScopedValue.create_variable_value of each of SCOPED_VALUES, and of the
    naming constructors."""
    out = {}
    for k, v in SCOPED_VALUES.items():
        s = ScopedValue.create_variable_value(v)
        out[k] = {"str": str(s), "type": s.type.name, "value": str(s.value)}
    out["naming"] = str(ScopedValue.create_naming_value("conv", "self"))
    out["names"] = str(ScopedValue.create_name_values(names=["z", "z_1"], scopes=["self", "self"]))
    out["naming eq"] = ScopedValue.create_naming_value("x") == ScopedValue.create_naming_value("x")
    return out


def facts() -> dict:
    """Results of calls whose outcome is not a node list: what replace returns, unique_name's names, the
    default saved file name, erasing an input."""
    stree = SymbolTree.create(ConvBlock())
    last = stree.replace(stree.get_node("relu"), [Node.create_call_cell(nn.Tanh(), ['x'], [_x()], name='t1'),
                                                  Node.create_call_cell(nn.Tanh(), ['x'], [_x()], name='t2')])
    return {"replace returns": last.get_name(),
            "unique_name": [stree.unique_name("x"), stree.unique_name("x"), stree.unique_name()],
            "saved file name": stree.get_saved_file_name(),
            "erase input": _outcome(lambda: stree.erase("input_x"))}
