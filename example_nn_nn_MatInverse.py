import mindspore as ms
import numpy as np
x = ms.Tensor(np.array([[4, 12, -16], [12, 37, -43], [-16, -43, 98]]).astype(np.float32))
op = ms.nn.MatInverse()
output = op(x)
print(output)
