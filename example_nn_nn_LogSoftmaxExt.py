import mindspore
x = mindspore.tensor([[-1.0, 4.0, -8.0], [2.0, -5.0, 9.0]], mindspore.float32)
log_softmax = mindspore.nn.LogSoftmaxExt(dim=-1)
output = log_softmax(x)
print(output)
