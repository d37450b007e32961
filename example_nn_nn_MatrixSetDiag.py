import mindspore
from mindspore import Tensor, nn
x = Tensor([[[-1, 0], [0, 1]], [[-1, 0], [0, 1]], [[-1, 0], [0, 1]]], mindspore.float32)
diagonal = Tensor([[-1., 2.], [-1., 1.], [-1., 1.]], mindspore.float32)
matrix_set_diag = nn.MatrixSetDiag()
output = matrix_set_diag(x, diagonal)
print(output)
