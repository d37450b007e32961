import mindspore.nn as nn
net = LeNet5()
net = nn.VirtualDatasetCellTriple(net)
