"""Cells whose ``repr`` scripts/record_cell_repr.py records from MindSpore 2.10 and tests/nn/test_cell_repr.py
compares with opbuild's. ``build(nn)`` takes the framework's ``nn`` module; imports no framework itself."""


def build(nn) -> dict:
    """name -> cell, built with the given framework's ``nn``."""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(8)
            self.relu = nn.ReLU()
            self.seq = nn.SequentialCell([nn.Dense(4, 2), nn.Sigmoid()])
            self.lst = nn.CellList([nn.Flatten(), nn.Dropout(p=0.2)])

        def construct(self, x):
            return x

    class Empty(nn.Cell):
        def construct(self, x):
            return x

    return {
        "Net": Net(), "Empty": Empty(), "Dense": nn.Dense(3, 4),
        "Dense_act": nn.Dense(3, 4, activation="relu", has_bias=False),
        "MaxPool2d": nn.MaxPool2d(2, 2), "AvgPool2d": nn.AvgPool2d(kernel_size=3, stride=1, pad_mode="same"),
        "LayerNorm": nn.LayerNorm((4,)), "Embedding": nn.Embedding(10, 3), "Dropout": nn.Dropout(p=0.5),
        "Flatten": nn.Flatten(), "ReLU": nn.ReLU(), "Softmax": nn.Softmax(), "GELU": nn.GELU(),
        "MSELoss": nn.MSELoss(), "Sequential": nn.SequentialCell(nn.ReLU(), nn.Tanh()),
    }
