#pragma once
// The few element-wise kernels the GPU proxy models need besides cuBLAS. Matrices are column-major (cuBLAS's
// convention); a batch of n samples is stored as dim x n (the host's row-major n x dim, unchanged in memory).
#include <cuda_runtime.h>

namespace quorum::gpu {

// m[r + c * rows] += bias[r]
void add_bias_columns(float* m, const float* bias, int rows, int cols, cudaStream_t stream);
// h = max(h, 0)
void relu_forward(float* h, int n, cudaStream_t stream);
// dh = h > 0 ? dh : 0
void relu_backward(float* dh, const float* h, int n, cudaStream_t stream);
// Each column of logits (classes x n) becomes (softmax - onehot(label)) / n; loss[j] = -log(max(p_label, 1e-30)).
void softmax_cross_entropy_backward(float* logits, const int* labels, int classes, int n, double* loss,
                                    cudaStream_t stream);
// r[i] += b - y[i]
void residual(float* r, float b, const float* y, int n, cudaStream_t stream);
// out[i] = value
void fill(float* out, float value, int n, cudaStream_t stream);

}  // namespace quorum::gpu
