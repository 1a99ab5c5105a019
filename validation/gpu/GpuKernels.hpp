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

// The convolutional proxy's layers, as kernels/models/ConvolutionOps.hpp has them on the host. Activations are NHWC
// (channels x (samples * side * side), column-major); images square; kernels square, stride 1, no padding.
// patches (kernel^2 * channels x samples * out_side^2, out_side = side - kernel + 1): column (sample, oy, ox) holds
// the input patch at that output position, row (ky * kernel + kx) * channels + channel.
void im2col(const float* in, int samples, int side, int channels, int kernel, float* patches, cudaStream_t stream);
// The adjoint of im2col: d_in (channels x samples * side^2) is overwritten with the sum of the patch entries read
// from each input position (one thread per input entry: no atomics, a fixed order).
void col2im(const float* d_patches, int samples, int side, int channels, int kernel, float* d_in,
            cudaStream_t stream);
// out = max(maxpool2x2(z), 0) for z of samples x side x side x channels (an odd last row or column is dropped);
// argmax holds the index into z of each output's window winner.
void max_pool_relu(const float* z, int samples, int side, int channels, float* out, int* argmax, cudaStream_t stream);
// d_z (z_count entries) = 0, then d_z[argmax[i]] = d_out[i] where out[i] > 0, for the out_count pool outputs.
void max_pool_relu_backward(const float* d_out, const float* out, const int* argmax, int out_count, float* d_z,
                            int z_count, cudaStream_t stream);

}  // namespace quorum::gpu
