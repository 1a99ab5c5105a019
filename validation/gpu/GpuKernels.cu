// Element-wise kernels of the GPU proxy models (see GpuKernels.hpp).
#include <cfloat>

#include "validation/gpu/GpuKernels.hpp"

namespace quorum::gpu {

namespace {

constexpr int kThreads = 256;
int blocks(int n) { return (n + kThreads - 1) / kThreads; }

__global__ void add_bias_columns_kernel(float* m, const float* bias, int rows, int cols) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<long long>(rows) * cols) m[i] += bias[i % rows];
}

__global__ void relu_forward_kernel(float* h, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && h[i] < 0.0f) h[i] = 0.0f;
}

__global__ void relu_backward_kernel(float* dh, const float* h, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !(h[i] > 0.0f)) dh[i] = 0.0f;
}

// One thread per sample (column): the proxies have 10 classes, so a column is tiny.
__global__ void softmax_cross_entropy_kernel(float* logits, const int* labels, int classes, int n, double* loss) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  float* col = logits + static_cast<long long>(j) * classes;
  float max = -FLT_MAX;
  for (int c = 0; c < classes; ++c) max = fmaxf(max, col[c]);
  float sum = 0.0f;
  for (int c = 0; c < classes; ++c) {
    col[c] = expf(col[c] - max);
    sum += col[c];
  }
  const int label = labels[j];
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int c = 0; c < classes; ++c) col[c] /= sum;
  loss[j] = -log(fmax(static_cast<double>(col[label]), 1e-30));
  for (int c = 0; c < classes; ++c) col[c] = (col[c] - (c == label ? 1.0f : 0.0f)) * inv_n;
}

__global__ void residual_kernel(float* r, float b, const float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] += b - y[i];
}

__global__ void fill_kernel(float* out, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

}  // namespace

void add_bias_columns(float* m, const float* bias, int rows, int cols, cudaStream_t stream) {
  const long long total = static_cast<long long>(rows) * cols;
  if (total == 0) return;
  add_bias_columns_kernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      m, bias, rows, cols);
}

void relu_forward(float* h, int n, cudaStream_t stream) {
  if (n > 0) relu_forward_kernel<<<blocks(n), kThreads, 0, stream>>>(h, n);
}

void relu_backward(float* dh, const float* h, int n, cudaStream_t stream) {
  if (n > 0) relu_backward_kernel<<<blocks(n), kThreads, 0, stream>>>(dh, h, n);
}

void softmax_cross_entropy_backward(float* logits, const int* labels, int classes, int n, double* loss,
                                    cudaStream_t stream) {
  if (n > 0) softmax_cross_entropy_kernel<<<blocks(n), kThreads, 0, stream>>>(logits, labels, classes, n, loss);
}

void residual(float* r, float b, const float* y, int n, cudaStream_t stream) {
  if (n > 0) residual_kernel<<<blocks(n), kThreads, 0, stream>>>(r, b, y, n);
}

void fill(float* out, float value, int n, cudaStream_t stream) {
  if (n > 0) fill_kernel<<<blocks(n), kThreads, 0, stream>>>(out, value, n);
}

}  // namespace quorum::gpu
