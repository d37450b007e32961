import mindspore as ms
from mindspore import nn, ops, load_checkpoint
from mindspore.common.initializer import initializer
from mindspore.nn.utils import no_init_parameters
class Net(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.weight = ms.Parameter(initializer("normal", [in_channels, out_channels], ms.float32))
        self.bias = ms.Parameter(initializer("normal", [out_channels], ms.float32))
        self.matmul = ops.MatMul()
        self.add = ops.Add()

    def construct(self, x):
        x = self.matmul(x, self.weight)
        x = self.add(x, self.bias)
        return x
with no_init_parameters():
    # After instantiation, all parameters in the net are not initialized
    net = Net(28*28, 64)
load_checkpoint('./checkpoint/test_net.ckpt', net=net)
net.init_parameters_data()
