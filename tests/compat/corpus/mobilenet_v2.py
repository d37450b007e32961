import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops

ms.set_context(mode=ms.GRAPH_MODE)


class ConvBNReLU(nn.Cell):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        super(ConvBNReLU, self).__init__()
        padding = (kernel_size - 1) // 2
        conv = nn.Conv2d(in_planes, out_planes, kernel_size, stride, pad_mode="pad", padding=padding,
                         group=groups)
        self.features = nn.SequentialCell([conv, nn.BatchNorm2d(out_planes), nn.ReLU6()])

    def construct(self, x):
        return self.features(x)


class InvertedResidual(nn.Cell):
    def __init__(self, inp, oup, stride, expand_ratio):
        super(InvertedResidual, self).__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden_dim, kernel_size=1))
        layers.extend([
            ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
            nn.Conv2d(hidden_dim, oup, kernel_size=1, stride=1, has_bias=False),
            nn.BatchNorm2d(oup),
        ])
        self.conv = nn.SequentialCell(layers)

    def construct(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Cell):
    def __init__(self, num_classes=10, width_mult=0.25):
        super(MobileNetV2, self).__init__()
        input_channel = int(32 * width_mult)
        self.out_channels = 1280
        settings = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
                    [6, 160, 3, 2], [6, 320, 1, 1]]
        features = [ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in settings:
            output_channel = int(c * width_mult)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, t))
                input_channel = output_channel
        features.append(ConvBNReLU(input_channel, self.out_channels, kernel_size=1))
        self.features = nn.SequentialCell(features)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Dense(self.out_channels, num_classes)

    def construct(self, x):
        x = self.pool(self.features(x))
        x = ops.reshape(x, (x.shape[0], -1))
        return self.head(x)


net = MobileNetV2()
net.set_train(False)
images = ms.Tensor(np.random.randn(2, 3, 32, 32).astype(np.float32))
logits = net(images)
print(logits.shape)
