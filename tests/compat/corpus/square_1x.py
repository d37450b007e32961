import numpy as np
import mindspore.context as context
import mindspore.nn as nn
from mindspore import Tensor
import mindspore.ops.operations as P

context.set_context(mode=context.GRAPH_MODE, device_target="CPU")


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.square = P.Square()

    def construct(self, data):
        return self.square(data)


x = np.array([1.0, 4.0, 9.0]).astype(np.float32)
output = Net()(Tensor(x))
print("x: ", x)
print("output: ", output)
