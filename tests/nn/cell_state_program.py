"""A program over Cell's path access and state mapping (get_buffer, get_sub_cell, state_dict,
load_state_dict through a checkpoint, update_cell_prefix, init_parameters_data): ``run(ms, tmpdir)``
returns the lines it would print. scripts/record_cell_state.py records them from MindSpore 2.10
(tests/fixtures/mindspore/cell_state.json); tests/nn/test_cell_state.py runs it on opbuild."""

import os


def run(ms, tmpdir: str) -> list[str]:
    """The printed lines of the program under framework ``ms``."""

    class NetC(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.register_buffer("buffer_c", ms.tensor([0, 0, 0]))
            self.dense_c = ms.nn.Dense(5, 3)

        def construct(self, x):
            return x

    class NetA(ms.nn.Cell):
        def __init__(self, net_b):
            super().__init__()
            self.net_b = net_b
            self.register_buffer("buffer_a", ms.tensor([4, 5, 6]))
            self.param_a = ms.Parameter(ms.tensor([1, 2, 3]))

        def construct(self, x):
            return x

    out = []
    a = NetA(NetC())
    out.append(str(a.get_buffer("net_b.buffer_c")))
    out.append(str(a.get_sub_cell("net_b")))
    out.append(str(list(a.state_dict().keys())))
    out.append(str(a.state_dict()["buffer_a"]))
    path = os.path.join(tmpdir, "state.ckpt")
    ms.save_checkpoint(a.state_dict(), path)
    b = NetA(NetC())
    b.param_a.set_data(ms.tensor([0, 0, 0]))
    out.append(repr(b.load_state_dict(ms.load_checkpoint(path))))
    out.append(str(b.param_a.asnumpy().tolist()))
    out.append(str(b.net_b.dense_c.weight.asnumpy().tolist() == a.net_b.dense_c.weight.asnumpy().tolist()))
    b.update_cell_prefix()
    out.append(f"{b.net_b.dense_c.param_prefix}|{b.param_prefix}")
    out.append(str(len(b.init_parameters_data())))

    def add_extra(cell, prefix, keep_vars):
        cell._params["extra_param"] = ms.Parameter(ms.tensor([4, 5, 6]), name="extra_param")

    handle = b.register_state_dict_pre_hook(add_extra)
    out.append(str("extra_param" in b.state_dict()))
    handle.remove()

    class Relu(ms.nn.Cell):
        def construct(self, x):
            return ms.ops.relu(x)

    net = Relu()
    net.set_inputs(x=ms.Tensor(shape=[3, None], dtype=ms.float32))
    out.append(str(net(ms.Tensor([[-1.0, 2.0], [3.0, -4.0], [0.5, 0.0]], ms.float32))))
    return out
