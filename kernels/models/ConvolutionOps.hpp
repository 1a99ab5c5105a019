#pragma once
// The building blocks of a convolutional layer on NHWC activations (a row-major (samples x height x width) x
// channels matrix): im2col and its adjoint, and a 2x2 max pool fused with the ReLU that follows it. Square kernels,
// stride 1, no padding; pools of stride 2 drop an odd last row or column.
#include <cstdint>
#include <vector>

#include "kernels/data/Dataset.hpp"

namespace quorum::conv {

struct Image {
  std::int64_t samples, side, channels;  // square images
  std::int64_t rows() const { return samples * side * side; }  // rows of the NHWC matrix
};

// Patch matrix of in (in.samples x in.side^2 x in.channels floats, NHWC): one row per output position (sample, oy,
// ox), (in.side - kernel + 1)^2 per sample; columns (ky, kx, channel), kernel^2 * in.channels of them.
void im2col(const float* in, const Image& in_shape, std::int64_t kernel, RowMatrix& patches);

// The adjoint of im2col: adds every patch entry back onto the input position it was read from. d_in is resized to
// in.rows() x in.channels and overwritten.
void col2im(const RowMatrix& d_patches, const Image& in_shape, std::int64_t kernel, RowMatrix& d_in);

// out = max(maxpool2x2(z), 0) for z of shape `in` (NHWC); argmax[i * channels + c] is the row of z that won the
// window of out's row i, channel c.
void max_pool_relu(const RowMatrix& z, const Image& in_shape, RowMatrix& out, std::vector<std::int32_t>& argmax);

// The gradient with respect to z of max_pool_relu, given the gradient d_out and the output out it produced: each
// window's winner gets d_out where out > 0, every other entry 0. d_z is resized to in.rows() x in.channels.
void max_pool_relu_backward(const RowMatrix& d_out, const RowMatrix& out, const std::vector<std::int32_t>& argmax,
                            const Image& in_shape, RowMatrix& d_z);

}  // namespace quorum::conv
