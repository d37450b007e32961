import mindspore as ms
from mindspore import nn
net = LeNet5()
loss_fn = nn.SoftmaxCrossEntropyWithLogits()
grad_net = nn.WithGradCell(net, loss_fn)
net = Net()
net_with_criterion = nn.WithLossCell(net, loss_fn)
grad_net = nn.WithGradCell(net_with_criterion)
