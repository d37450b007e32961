import mindspore as ms
import numpy as np
pool = ms.mint.nn.MaxPool2d(kernel_size=3, stride=1)
input = ms.Tensor(np.random.randint(0, 10, [1, 2, 4, 4]), ms.float32)
output = pool(input)
print(output.shape)
