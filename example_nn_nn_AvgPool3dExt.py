import mindspore
pool = mindspore.nn.AvgPool3dExt(kernel_size=3, stride=1)
x = mindspore.mint.randn((1, 2, 4, 4, 5), mindspore.float32)
output = pool(x)
print(output.shape)
x1 = mindspore.mint.randn((6, 5, 7, 7, 5), mindspore.float32)
pool2 = mindspore.nn.AvgPool3dExt(4, stride=2, padding=(2, 2, 1), divisor_override=10)
output2 = pool2(x1)
print(output2.shape)
