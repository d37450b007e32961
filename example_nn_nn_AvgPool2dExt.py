import mindspore
input = mindspore.tensor(mindspore.mint.arange(1 * 3 * 3 * 4).reshape(1, 3, 3, 4), mindspore.float32)
net = mindspore.nn.AvgPool2dExt(kernel_size=2, stride=1)
output = net(input)
print(output.shape)
