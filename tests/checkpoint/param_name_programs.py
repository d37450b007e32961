"""Networks whose parameter names depend on MindSpore's naming rules (cells in a CellList, a cell shared
between an attribute and a SequentialCell, ...), written once for both frameworks: ``build(ms)`` takes the
framework module (``mindspore`` in scripts/record_param_names.py, ``opbuild`` in the tests). Imports no
framework itself."""

from __future__ import annotations

import numpy as np


def build(ms) -> dict:
    """name -> a function making the network (a fresh one per call)."""
    nn = ms.nn

    def dense(i=2, o=2):
        return nn.Dense(i, o)

    class ListNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([dense(), dense()])
            self.head = dense(2, 1)

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return self.head(x)

    class AppendListNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList()
            for _ in range(2):
                self.blocks.append(nn.SequentialCell([dense(), nn.ReLU()]))

        def construct(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    class SharedAttrFirst(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = dense()
            self.seq = nn.SequentialCell([self.fc, nn.ReLU(), dense()])

        def construct(self, x):
            return self.seq(x) + self.fc(x)

    class SharedSeqFirst(nn.Cell):
        def __init__(self):
            super().__init__()
            fc = dense()
            self.seq = nn.SequentialCell([fc, nn.ReLU()])
            self.fc = fc

        def construct(self, x):
            return self.seq(x) + self.fc(x)

    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.convs = nn.CellList([nn.Conv2d(1, 1, 1), nn.Conv2d(1, 1, 1)])
            self.bn = nn.BatchNorm2d(1)

        def construct(self, x):
            for c in self.convs:
                x = c(x)
            return self.bn(x)

    class NestedNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.stages = nn.SequentialCell([Inner(), Inner()])
            self.extra = nn.CellList([nn.SequentialCell([Inner()])])

        def construct(self, x):
            return self.extra[0](self.stages(x))

    class SameCellTwiceInList(nn.Cell):
        def __init__(self):
            super().__init__()
            fc = dense()
            self.layers = nn.CellList([fc, fc, dense()])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    class Custom(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="custom_w")
            self.fc = dense()

        def construct(self, x):
            return self.fc(x) * self.w

    class CustomOuter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Custom()

        def construct(self, x):
            return self.inner(x)

    def edited_list():
        layers = nn.CellList([dense(), dense(), dense()])
        layers.insert(1, dense())
        del layers[0]
        layers[2] = dense()
        layers.append(nn.SequentialCell([dense()]))
        return layers

    def edited_in_net():
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.layers = nn.CellList([dense(), dense()])
                self.layers.append(dense())
                self.layers.insert(0, dense())
                del self.layers[1]
                self.seq = nn.SequentialCell([dense()])
                self.seq.append(dense())

            def construct(self, x):
                return x

        return Net()

    def with_loss():
        return nn.WithLossCell(ListNet(), nn.MSELoss())

    def bare_sequential():
        return nn.SequentialCell([dense(), nn.ReLU(), dense()])

    # A ParameterTuple attribute registers its Parameters under their own names (optimizers hold the network's
    # Parameters that way, and TrainOneStepCell its optimizer's); a list of Parameters registers nothing.
    def momentum():
        return nn.Momentum(bare_sequential().trainable_params(), learning_rate=0.1, momentum=0.9)

    def adam_groups():
        net = ListNet()
        head = [p for p in net.trainable_params() if p.name.startswith("head")]
        rest = [p for p in net.trainable_params() if not p.name.startswith("head")]
        return nn.Adam([{"params": rest, "weight_decay": 0.01}, {"params": head, "lr": 0.01}], learning_rate=0.1)

    def train_one_step():
        net = with_loss()
        return nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))

    class TupleAttr(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = dense()
            self.extra = ms.ParameterTuple([ms.Parameter(np.ones(2, np.float32), name="scale"),
                                            ms.Parameter(np.zeros(2, np.float32), name="fc.weight.shadow")])
            self.plain = [ms.Parameter(np.ones(1, np.float32), name="in_a_list")]

        def construct(self, x):
            return self.fc(x) * self.extra[0]

    def optimizer(make):
        return lambda: make(bare_sequential().trainable_params())

    # Every optimizer both frameworks have, on one network: names, order, shapes, requires_grad.
    optimizers = {
        "opt_sgd": optimizer(lambda p: nn.SGD(p, momentum=0.9)),
        "opt_adagrad": optimizer(lambda p: nn.Adagrad(p)),
        "opt_rmsprop_centered": optimizer(lambda p: nn.RMSProp(p, centered=True)),
        "opt_adamax": optimizer(lambda p: nn.AdaMax(p)),
        "opt_adadelta": optimizer(lambda p: nn.Adadelta(p)),
        "opt_adam_weight_decay": optimizer(lambda p: nn.AdamWeightDecay(p)),
        "opt_ftrl": optimizer(lambda p: nn.FTRL(p)),
        "opt_proximal_adagrad": optimizer(lambda p: nn.ProximalAdagrad(p)),
        "opt_rprop": optimizer(lambda p: nn.Rprop(p)),
        "opt_asgd": optimizer(lambda p: nn.ASGD(p)),
        "opt_adafactor": optimizer(lambda p: nn.AdaFactor(p)),
        "opt_lazy_adam": optimizer(lambda p: nn.LazyAdam(p)),
        "opt_adam_offload": optimizer(lambda p: nn.AdamOffload(p)),
        "opt_adam_amsgrad": optimizer(lambda p: nn.Adam(p, use_amsgrad=True)),
    }

    return {**optimizers, "list": ListNet, "append_list": AppendListNet, "shared_attr_first": SharedAttrFirst,
            "shared_seq_first": SharedSeqFirst, "nested": NestedNet, "same_cell_twice": SameCellTwiceInList,
            "with_loss": with_loss, "bare_sequential": bare_sequential, "custom_name": CustomOuter,
            "edited_list": edited_list, "edited_in_net": edited_in_net, "momentum": momentum,
            "adam_groups": adam_groups, "train_one_step": train_one_step, "tuple_attr": TupleAttr}
