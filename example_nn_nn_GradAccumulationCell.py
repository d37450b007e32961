import mindspore.nn as nn
net = LeNet5()
net = nn.GradAccumulationCell(net, 4)
