import mindspore as ms
net = ms.nn.PSNR()
img1 = ms.Tensor([[[[1, 2, 3, 4], [1, 2, 3, 4]]]])
img2 = ms.Tensor([[[[3, 4, 5, 6], [3, 4, 5, 6]]]])
output = net(img1, img2)
print(output)
