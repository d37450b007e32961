import mindspore
from mindspore import Tensor, nn
import numpy as np
loss = nn.L1LossExt()
logits = Tensor(np.array([1, 2, 3]), mindspore.float32)
labels = Tensor(np.array([1, 2, 2]), mindspore.float32)
output = loss(logits, labels)
print(output)
loss = nn.L1LossExt(reduction='none')
logits = Tensor(np.array([1, 2, 3]), mindspore.float32)
labels = Tensor(np.array([[1, 1, 1], [1, 2, 2]]), mindspore.float32)
output = loss(logits, labels)
print(output)
