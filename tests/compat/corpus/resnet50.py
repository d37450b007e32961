import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore.common.initializer import HeNormal

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")


def conv(in_channel, out_channel, kernel_size, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size, stride=stride, pad_mode="same",
                     weight_init=HeNormal(mode="fan_out", nonlinearity="relu"))


class ResidualBlock(nn.Cell):
    expansion = 4

    def __init__(self, in_channel, out_channel, stride=1):
        super(ResidualBlock, self).__init__()
        channel = out_channel // self.expansion
        self.conv1 = conv(in_channel, channel, 1)
        self.bn1 = nn.BatchNorm2d(channel)
        self.conv2 = conv(channel, channel, 3, stride)
        self.bn2 = nn.BatchNorm2d(channel)
        self.conv3 = conv(channel, out_channel, 1)
        self.bn3 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([conv(in_channel, out_channel, 1, stride),
                                                        nn.BatchNorm2d(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    def __init__(self, layer_nums, in_channels, out_channels, strides, num_classes):
        super(ResNet, self).__init__()
        self.conv1 = conv(3, 64, 7, stride=2)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = ops.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        layers = []
        for n, cin, cout, s in zip(layer_nums, in_channels, out_channels, strides):
            blocks = [ResidualBlock(cin, cout, stride=s)]
            blocks += [ResidualBlock(cout, cout, stride=1) for _ in range(1, n)]
            layers.append(nn.SequentialCell(blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(out_channels[-1], num_classes)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.mean(x, (2, 3))
        return self.end_point(self.flatten(x))


def resnet50(class_num=10):
    return ResNet([3, 4, 6, 3], [64, 256, 512, 1024], [256, 512, 1024, 2048], [1, 2, 2, 2], class_num)


net = resnet50(10)
net.set_train(False)
x = ms.Tensor(np.random.randn(1, 3, 32, 32).astype(np.float32))
logits = net(x)
probs = ops.softmax(logits, axis=-1)
print(logits.shape, probs.sum())
