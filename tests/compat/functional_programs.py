"""Programs for the function transforms, hooks, Python-calling primitives and control flow under gradients
(opbuild's transforms/, ops/python_calls.py and friends, core/concrete_trace.py), each source text run with
``ms`` (the framework module), ``np``, ``ops``, ``nn`` and ``Tensor`` in scope that sets ``result`` and may
print. scripts/record_functional.py records MindSpore 2.10's ``result`` and standard output into
tests/fixtures/mindspore/functional_programs.json; tests/compat/test_functional_programs.py runs them on opbuild
and compares. Written from MindSpore's documented behaviour; each program starts in PYNATIVE_MODE.
"""

from __future__ import annotations

CASES: dict[str, str] = {}

CASES["grad_sens_param"] = """
def f(x, y):
    return x * x * y
x = Tensor(np.array([1.0, -2.0, 3.0], np.float32)); y = Tensor(np.array([0.5, 2.0, -1.0], np.float32))
s = Tensor(np.array([1.0, 10.0, 100.0], np.float32))
result = (ms.grad(f, grad_position=(0, 1), sens_param=True)(x, y, s),
          ms.value_and_grad(f, grad_position=0, sens_param=True)(x, y, s))
"""

CASES["get_grad_ids"] = """
net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
x = Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
g = ms.grad(lambda a: net(a).sum(), grad_position=0, weights=net.trainable_params(), return_ids=True)(x)
result = (ms.get_grad(g, 0), ms.get_grad(g, net.weight), ms.get_grad(g, net.bias))
"""

CASES["get_grad_refuses_a_name"] = """
net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
g = ms.grad(lambda a: net(a).sum(), 0, net.trainable_params(), return_ids=True)(Tensor(np.ones((1, 3), np.float32)))
result = ms.get_grad(g, net.bias.name)
"""

CASES["jvp_function"] = """
def f(x, y):
    return ops.sin(x) * y, x * 2
x = Tensor(np.array([0.5, 1.0], np.float32)); y = Tensor(np.array([2.0, 3.0], np.float32))
v = (Tensor(np.array([1.0, 0.0], np.float32)), Tensor(np.array([0.5, 1.0], np.float32)))
result = ms.jvp(f, (x, y), v)
"""

CASES["vjp_weights"] = """
net = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
x = Tensor(np.array([[1.0, 2.0]], np.float32))
out, fn = ms.vjp(net, x, weights=net.trainable_params())
result = (out, fn(Tensor(np.array([[1.0, -1.0]], np.float32))))
"""

CASES["linearize_function"] = """
def f(x):
    return ops.exp(x) * x
out, jfn = ops.linearize(f, Tensor(np.array([0.0, 1.0], np.float32)))
result = (out, jfn(Tensor(np.array([1.0, 2.0], np.float32))))
"""

CASES["jacrev_two_inputs_two_outputs"] = """
def f(x, y):
    return x * y, x + y * y
x = Tensor(np.array([1.0, 2.0], np.float32)); y = Tensor(np.array([3.0, 4.0], np.float32))
result = ms.jacrev(f, grad_position=(0, 1))(x, y)
"""

CASES["jacfwd_one_input"] = """
def f(x):
    return ops.sin(x) * x.sum()
result = ms.jacfwd(f)(Tensor(np.array([0.5, 1.0, 2.0], np.float32)))
"""

CASES["vmap_nested"] = """
def f(a, b):
    return (a * b).sum()
x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)); y = Tensor(np.arange(12, dtype=np.float32).reshape(3, 2, 2))
inner = ms.vmap(f, in_axes=(None, 1))
result = ms.vmap(inner, in_axes=(0, None))(x, Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)))
"""

CASES["vmap_out_axes_tuple"] = """
def f(a, b):
    return a + b, a * 2
x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)); b = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
result = ms.vmap(f, in_axes=(1, None), out_axes=(0, 1))(x, Tensor(np.float32(1.0)))
"""

CASES["derivative_second_order"] = """
def f(x):
    return x * x * x
result = ops.derivative(f, Tensor(np.array([1.0, 2.0], np.float32)), 2)
"""

CASES["jet_cubic"] = """
def f(x):
    return x * x * x
series = Tensor(np.array([[1.0, 1.0], [1.0, 0.0]], np.float32))
result = ops.jet(f, Tensor(np.array([1.0, 2.0], np.float32)), series)
"""

CASES["stop_gradient_graph_mode"] = """
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x, y):
        return x * y + ops.stop_gradient(x * x) * y
x = Tensor(np.array([1.0, 2.0], np.float32)); y = Tensor(np.array([3.0, 4.0], np.float32))
result = ops.GradOperation(get_all=True)(Net())(x, y)
"""

CASES["hook_backward_replaces_gradient"] = """
def hook(grads):
    print("hook got", grads[0])
    return (grads[0] * 10,)
hb = ops.HookBackward(hook)
def f(x, y):
    z = hb(x * y)
    return z * y
result = ops.GradOperation(get_all=True)(f)(Tensor(np.array([1.0, 2.0], np.float32)),
                                             Tensor(np.array([3.0, 4.0], np.float32)))
"""

CASES["insert_gradient_of_scales"] = """
def halve(g):
    return g * 0.5
scale = ops.InsertGradientOf(halve)
def f(x):
    return scale(x) * x
result = ms.grad(f)(Tensor(np.array([2.0, 3.0], np.float32)))
"""

CASES["cell_backward_hooks"] = """
def pre(cell, grad_output):
    print("pre", grad_output)
def post(cell, grad_input, grad_output):
    print("post", grad_input, grad_output)
    return (grad_input[0] * 2,)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = nn.Tanh()
        self.act.register_backward_pre_hook(pre)
        self.act.register_backward_hook(post)
    def construct(self, x):
        return self.act(x * 3) * 2
result = ops.GradOperation(get_all=True)(Net())(Tensor(np.array([0.1, -0.2], np.float32)))
"""

CASES["print_graph_mode"] = """
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ops.Print()
    def construct(self, x, n):
        y = x * 2
        self.p("y:", y, "n:", n)
        return y
net = Net()
net(Tensor(np.array([[0.5, 1.25], [2.0, -3.0]], np.float32)), Tensor(np.array([3, 4], np.int32)))
result = net(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), Tensor(np.int32(7)))
"""

CASES["print_pynative"] = """
ops.print_("values", Tensor(np.array([1.5, -2.0], np.float32)), 3, Tensor(np.array([[True], [False]])))
result = ops.Print()("done")
"""

CASES["custom_pyfunc_with_bprop"] = """
def fn(x, y):
    return x * y + 1
def bprop(x, y, out, dout):
    return (dout * y * 2, dout * x)
op = ops.Custom(fn, lambda a, b: a, lambda a, b: a, "pyfunc", bprop=bprop)
x = Tensor(np.array([1.0, 2.0], np.float32)); y = Tensor(np.array([3.0, 5.0], np.float32))
result = (op(x, y), ops.GradOperation(get_all=True)(lambda a, b: op(a, b))(x, y))
"""

CASES["loops_graph_mode"] = """
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x):
        a = ops.ForiLoop()(0, 3, lambda i, v: v * 2 + i, x)
        b = ops.WhileLoop()(lambda v: v.sum() < 50, lambda v: v * 3, x)
        c, ys = ops.Scan()(lambda carry, e: (carry + e, carry * e), x, [x, x * 2])
        return a, b, c, ys[0], ys[1]
result = Net()(Tensor(np.array([1.0, 2.0], np.float32)))
"""

CASES["map_hypermap_multitype"] = """
add = ops.MultitypeFuncGraph("add")
@add.register("Number", "Number")
def add_numbers(a, b):
    return a + b
@add.register("Tensor", "Tensor")
def add_tensors(a, b):
    return a * 10 + b
t = (Tensor(np.float32(1.0)), Tensor(np.float32(2.0)))
result = (ops.Map()(add, (1, 2), (3, 4)), ops.HyperMap()(add, ((t[0],), t[1]), ((t[1],), t[0])),
          ops.Map(add, reverse=True)(t, t), ops.Partial()(add, 5)(6))
"""

CASES["grad_through_if_pynative"] = """
def f(x):
    if x.sum() > 0:
        y = x * x
    else:
        y = -3 * x
    return y.sum()
g = ms.grad(f)
result = (g(Tensor(np.array([1.0, 2.0], np.float32))), g(Tensor(np.array([-1.0, -2.0], np.float32))),
          g(Tensor(np.array([3.0, -1.0], np.float32))))
"""

CASES["grad_through_while_graph_mode"] = """
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x):
        while x.sum() < 10:
            x = x * 2
        return x.sum()
net = Net()
vg = ms.value_and_grad(net)
result = (vg(Tensor(np.array([1.0, 1.0], np.float32))), vg(Tensor(np.array([3.0, 4.0], np.float32))),
          vg(Tensor(np.array([0.5, 0.5], np.float32))))
"""

CASES["train_step_with_if_graph_mode"] = """
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    def construct(self, x, y):
        out = self.fc(x)
        if out.sum() > 2:
            out = out * 0.5
        return ((out - y) ** 2).mean()
net = Net()
step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
y = Tensor(np.ones((2, 1), np.float32))
losses = [step(Tensor(np.array([[1.0, 2.0], [0.5, -1.0]], np.float32) * s), y) for s in (1.0, 0.2, 1.5)]
result = (losses, net.fc.weight, net.fc.bias)
"""

CASES["jit_train_step_with_if"] = """
net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
opt = nn.SGD(net.trainable_params(), 0.1)
def forward(x):
    out = net(x).sum()
    if out > 0:
        return out * out
    return -out
grad_fn = ms.value_and_grad(forward, None, opt.parameters)
@ms.jit
def train_step(x):
    loss, grads = grad_fn(x)
    opt(grads)
    return loss
result = ([train_step(Tensor(np.array([[v, 1.0]], np.float32))) for v in (1.0, -3.0, 0.5)], net.weight)
"""

CASES["saved_tensors_hooks"] = """
def pack(x):
    print("pack", x)
    return x * 2
def unpack(x):
    print("unpack", x)
    return x
def f(x, y):
    with ms.saved_tensors_hooks(pack, unpack):
        out = x * y
    return out.sum()
result = ms.grad(f, grad_position=(0, 1))(Tensor(np.array([1.0, 2.0], np.float32)),
                                         Tensor(np.array([3.0, 4.0], np.float32)))
"""

CASES["recompute_gradient"] = """
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
    def construct(self, x):
        return ops.tanh(self.fc(x))
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
    def construct(self, x):
        return ms.recompute(self.block, x).sum()
result = ms.grad(Net())(Tensor(np.array([[0.1, 0.2]], np.float32)))
"""

CASES["morph_with_and_without_bprop"] = """
ms.set_context(mode=ms.GRAPH_MODE)
def times_three(x):
    return x * 3
def infer_shape(s):
    return s
def infer_dtype(d):
    return d
def bprop(x, out, dout):
    return (dout * 100,)
class Net(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op
        self.w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    def construct(self, x):
        return self.op(x * self.w) * self.w
x = Tensor(np.array([3.0, 4.0], np.float32))
plain = ops.GradOperation(get_all=True, get_by_list=True)
n1 = Net(ops.Morph(times_three, infer_shape, infer_dtype))
n2 = Net(ops.Morph(times_three, infer_shape, infer_dtype, bprop))
result = (n1(x), plain(n1, n1.trainable_params())(x), n2(x), plain(n2, n2.trainable_params())(x))
"""

CASES["asnumpy_in_jit"] = """
@ms.jit
def f(x):
    y = x * 2
    return ms.tensor(np.cumsum(y.asnumpy()), dtype=ms.float32) + 1
result = (f(Tensor(np.array([1.0, 2.0, 3.0], np.float32))), f(Tensor(np.array([0.5, 0.5, 0.5], np.float32))))
"""

CASES["print_graph_mode_layouts"] = """
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ops.Print()
    def construct(self, a, b, c, d, e, f, g):
        self.p("layouts", a, b, c, d, e, f, g)
        return d
result = Net()(Tensor(np.array([1.5, -2.25, np.nan, -np.inf], np.float16)),
               Tensor(np.arange(2000, dtype=np.float32)),
               Tensor(np.arange(24, dtype=np.int64).reshape(2, 3, 4) - 5), Tensor(np.float32(0.1)),
               Tensor(np.array([1e-8, 12345.678], np.float64)),
               Tensor(np.arange(2000, dtype=np.int32).reshape(20, 100)),
               Tensor(np.array([[True, False, True]])))
"""

CASES["cell_bprop_replaces_the_gradient"] = """
class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
    def construct(self, x, y):
        return x * y * self.w
    def bprop(self, x, y, out, dout):
        return (dout * 10, dout * y)
class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
    def construct(self, x, y):
        return self.inner(x * 2, y).sum()
x = Tensor(np.array([1.0, 2.0], np.float32)); y = Tensor(np.array([3.0, 4.0], np.float32))
net = Outer()
pyn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(x, y)
ms.set_context(mode=ms.GRAPH_MODE)
net = Outer()
result = (pyn, ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(x, y), net(x, y))
"""
