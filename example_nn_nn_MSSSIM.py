import numpy as np
import mindspore as ms
net = ms.nn.MSSSIM(power_factors=(0.033, 0.033, 0.033))
img1 = ms.Tensor(np.ones((1, 3, 128, 128)).astype(np.float32))
img2 = ms.Tensor(np.ones((1, 3, 128, 128)).astype(np.float32))
output = net(img1, img2)
print(output)
