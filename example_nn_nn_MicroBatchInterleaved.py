import mindspore.nn as nn
net = LeNet5()
net = nn.MicroBatchInterleaved(net, 2)
