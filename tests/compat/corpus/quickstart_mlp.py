import numpy as np
import mindspore
from mindspore import nn

mindspore.set_seed(1)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(8 * 8, 32),
            nn.ReLU(),
            nn.Dense(32, 32),
            nn.ReLU(),
            nn.Dense(32, 10),
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


model = Network()
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-1)


def forward_fn(data, label):
    logits = model(data)
    loss = loss_fn(logits, label)
    return loss, logits


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss


rng = np.random.default_rng(0)
data = mindspore.Tensor(rng.standard_normal((16, 1, 8, 8)).astype(np.float32))
label = mindspore.Tensor(rng.integers(0, 10, 16).astype(np.int32))
model.set_train()
losses = []
for step in range(20):
    loss = train_step(data, label)
    losses.append(float(loss.asnumpy()))
print("loss:", losses[0], "->", losses[-1])
