// Element-wise kernels of the GPU proxy models (see GpuKernels.hpp).
#include <cfloat>
#include <cstddef>

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

__global__ void im2col_kernel(const float* in, int samples, int side, int channels, int kernel, float* patches) {
  const int out_side = side - kernel + 1, rows = kernel * kernel * channels;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(rows) * samples * out_side * out_side) return;
  const int k = static_cast<int>(i % rows);
  const long long column = i / rows;
  const int ky = k / (kernel * channels), kx = (k / channels) % kernel, c = k % channels;
  const int ox = static_cast<int>(column % out_side), oy = static_cast<int>((column / out_side) % out_side);
  const long long n = column / (static_cast<long long>(out_side) * out_side);
  patches[i] = in[((n * side + oy + ky) * side + ox + kx) * channels + c];
}

__global__ void col2im_kernel(const float* d_patches, int samples, int side, int channels, int kernel, float* d_in) {
  const int out_side = side - kernel + 1, rows = kernel * kernel * channels;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(samples) * side * side * channels) return;
  const int c = static_cast<int>(i % channels);
  const long long pixel = i / channels;
  const int x = static_cast<int>(pixel % side), y = static_cast<int>((pixel / side) % side);
  const long long n = pixel / (static_cast<long long>(side) * side);
  float sum = 0.0f;
  for (int ky = 0; ky < kernel; ++ky) {
    const int oy = y - ky;
    if (oy < 0 || oy >= out_side) continue;
    for (int kx = 0; kx < kernel; ++kx) {
      const int ox = x - kx;
      if (ox < 0 || ox >= out_side) continue;
      const long long column = (n * out_side + oy) * out_side + ox;
      sum += d_patches[column * rows + (ky * kernel + kx) * channels + c];
    }
  }
  d_in[i] = sum;
}

__global__ void max_pool_relu_kernel(const float* z, int samples, int side, int channels, float* out, int* argmax) {
  const int half = side / 2;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(samples) * half * half * channels) return;
  const int c = static_cast<int>(i % channels);
  const long long cell = i / channels;
  const int px = static_cast<int>(cell % half), py = static_cast<int>((cell / half) % half);
  const long long n = cell / (static_cast<long long>(half) * half);
  const long long top_left = (n * side + 2 * py) * side + 2 * px;
  const long long window[4] = {top_left, top_left + 1, top_left + side, top_left + side + 1};
  // The first strictly greater entry wins, in the host's order, so ties pick the same winner.
  long long best = window[0] * channels + c;
  for (int w = 1; w < 4; ++w) {
    const long long at = window[w] * channels + c;
    if (z[at] > z[best]) best = at;
  }
  out[i] = fmaxf(z[best], 0.0f);
  argmax[i] = static_cast<int>(best);
}

__global__ void max_pool_relu_backward_kernel(const float* d_out, const float* out, const int* argmax, int out_count,
                                              float* d_z) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out_count && out[i] > 0.0f) d_z[argmax[i]] = d_out[i];
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

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

void im2col(const float* in, int samples, int side, int channels, int kernel, float* patches, cudaStream_t stream) {
  const long long out_side = side - kernel + 1;
  const long long total = static_cast<long long>(kernel) * kernel * channels * samples * out_side * out_side;
  if (total > 0)
    im2col_kernel<<<blocks_for(total), kThreads, 0, stream>>>(in, samples, side, channels, kernel, patches);
}

void col2im(const float* d_patches, int samples, int side, int channels, int kernel, float* d_in,
            cudaStream_t stream) {
  const long long total = static_cast<long long>(samples) * side * side * channels;
  if (total > 0)
    col2im_kernel<<<blocks_for(total), kThreads, 0, stream>>>(d_patches, samples, side, channels, kernel, d_in);
}

void max_pool_relu(const float* z, int samples, int side, int channels, float* out, int* argmax, cudaStream_t stream) {
  const long long half = side / 2, total = static_cast<long long>(samples) * half * half * channels;
  if (total > 0)
    max_pool_relu_kernel<<<blocks_for(total), kThreads, 0, stream>>>(z, samples, side, channels, out, argmax);
}

void max_pool_relu_backward(const float* d_out, const float* out, const int* argmax, int out_count, float* d_z,
                            int z_count, cudaStream_t stream) {
  cudaMemsetAsync(d_z, 0, sizeof(float) * static_cast<std::size_t>(z_count), stream);
  if (out_count > 0)
    max_pool_relu_backward_kernel<<<blocks(out_count), kThreads, 0, stream>>>(d_out, out, argmax, out_count, d_z);
}

}  // namespace quorum::gpu
