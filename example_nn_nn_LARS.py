import mindspore as ms
from mindspore import nn
net = LeNet5()
loss = nn.SoftmaxCrossEntropyWithLogits()
opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
opt_lars = nn.LARS(opt, epsilon=1e-08, coefficient=0.02)
model = ms.train.Model(net, loss_fn=loss, optimizer=opt_lars, metrics=None)
