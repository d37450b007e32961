import mindspore
mindspore.set_seed(0)
input = mindspore.tensor([[1, 0, 1, 1], [0, 0, 1, 0]])
embedding = mindspore.nn.layer.embedding.EmbeddingExt(num_embeddings=10, embedding_dim=3)
output = embedding(input)
print(output)
