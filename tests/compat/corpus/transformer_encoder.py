import numpy as np
import mindspore
from mindspore import nn, ops, Tensor


class TextEncoder(nn.Cell):
    def __init__(self, vocab_size, d_model, nhead, num_layers, num_classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=nhead, dim_feedforward=4 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=num_layers)
        self.classifier = nn.Dense(d_model, num_classes)

    def construct(self, ids):
        x = self.embedding(ids)
        x = self.encoder(x)
        return self.classifier(x.mean(axis=1))


net = TextEncoder(vocab_size=50, d_model=16, nhead=2, num_layers=2, num_classes=3)
net.set_train(False)
ids = Tensor(np.random.randint(0, 50, size=(2, 7)), mindspore.int32)
logits = net(ids)
probs = ops.softmax(logits, axis=-1)
print(probs.shape)
