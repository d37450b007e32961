import mindspore as ms
import numpy as np
net = ms.nn.SSIM()
img1 = ms.Tensor(np.ones([1, 3, 16, 16]).astype(np.float32))
img2 = ms.Tensor(np.ones([1, 3, 16, 16]).astype(np.float32))
output = net(img1, img2)
print(output)
