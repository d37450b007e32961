import numpy as np
from mindspore import Tensor, nn
from mindspore import dtype as mstype
input = Tensor(np.arange(1 * 3 * 4).reshape(1, 3, 4), mstype.float32)
net = nn.AvgPool1dExt(kernel_size=2, stride=1)
output = net(input)
print(output.shape)
