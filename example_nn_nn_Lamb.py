import mindspore as ms
from mindspore import nn
net = LeNet5()
optim = nn.Lamb(params=net.trainable_params(), learning_rate=0.1)
poly_decay_lr = nn.PolynomialDecayLR(learning_rate=0.1, end_learning_rate=0.01,
                                                   decay_steps=4, power = 0.5)
conv_params = list(filter(lambda x: 'conv' in x.name, net.trainable_params()))
no_conv_params = list(filter(lambda x: 'conv' not in x.name, net.trainable_params()))
group_params = [{'params': conv_params, 'weight_decay': 0.01, 'grad_centralization':True},
                {'params': no_conv_params, 'lr': poly_decay_lr},
                {'order_params': net.trainable_params()}]
optim = nn.Lamb(group_params, learning_rate=0.1, weight_decay=0.0)
loss = nn.SoftmaxCrossEntropyWithLogits()
model = ms.train.Model(net, loss_fn=loss, optimizer=optim)
