import numpy as np
from mindspore import nn, ops, Tensor


class Square(nn.Cell):
    def __init__(self):
        super().__init__()
        self.square = ops.Square()

    def construct(self, x):
        return self.square(x)


x = np.array([1.0, 4.0, 9.0]).astype(np.float32)
output = Square()(Tensor(x))
print(output)
