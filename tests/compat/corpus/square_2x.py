import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.square = ops.Square()

    def construct(self, data):
        return self.square(data)


x = np.array([1.0, 4.0, 9.0]).astype(np.float32)
output = Net()(ms.Tensor(x))
print("x: ", x)
print("output: ", output)
