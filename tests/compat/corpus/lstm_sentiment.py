import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore.common.initializer import Uniform, HeUniform


class RNN(nn.Cell):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers, bidirectional, pad_idx):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                           batch_first=True)
        weight_init = HeUniform(np.sqrt(5))
        bias_init = Uniform(1 / np.sqrt(hidden_dim * 2))
        self.fc = nn.Dense(hidden_dim * 2, output_dim, weight_init=weight_init, bias_init=bias_init)

    def construct(self, inputs):
        embedded = self.embedding(inputs)
        _, (hidden, _) = self.rnn(embedded)
        hidden = ops.concat((hidden[-2, :, :], hidden[-1, :, :]), axis=1)
        output = self.fc(hidden)
        return ops.sigmoid(output)


model = RNN(vocab_size=100, embedding_dim=16, hidden_dim=8, output_dim=1, n_layers=2, bidirectional=True,
            pad_idx=0)
tokens = ms.Tensor(np.random.randint(1, 100, size=(4, 12)).astype(np.int32))
scores = model(tokens)
print(scores.shape)
