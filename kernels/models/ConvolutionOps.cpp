#include "kernels/models/ConvolutionOps.hpp"

#include <algorithm>

namespace quorum::conv {

void im2col(const float* in, const Image& s, std::int64_t kernel, RowMatrix& patches) {
  const std::int64_t out_side = s.side - kernel + 1;
  // In NHWC the kernel's row ky at output (oy, ox) is kernel * channels consecutive floats of the input.
  const std::int64_t span = kernel * s.channels;
  patches.resize(s.samples * out_side * out_side, kernel * span);
  float* row = patches.data();
  for (std::int64_t n = 0; n < s.samples; ++n)
    for (std::int64_t oy = 0; oy < out_side; ++oy)
      for (std::int64_t ox = 0; ox < out_side; ++ox)
        for (std::int64_t ky = 0; ky < kernel; ++ky, row += span) {
          const float* src = in + ((n * s.side + oy + ky) * s.side + ox) * s.channels;
          for (std::int64_t k = 0; k < span; ++k) row[k] = src[k];  // short spans: a loop beats memmove calls
        }
}

void col2im(const RowMatrix& d_patches, const Image& s, std::int64_t kernel, RowMatrix& d_in) {
  const std::int64_t out_side = s.side - kernel + 1;
  const std::int64_t span = kernel * s.channels;
  d_in.setZero(s.rows(), s.channels);
  const float* row = d_patches.data();
  for (std::int64_t n = 0; n < s.samples; ++n)
    for (std::int64_t oy = 0; oy < out_side; ++oy)
      for (std::int64_t ox = 0; ox < out_side; ++ox)
        for (std::int64_t ky = 0; ky < kernel; ++ky, row += span) {
          float* dst = d_in.data() + ((n * s.side + oy + ky) * s.side + ox) * s.channels;
          for (std::int64_t k = 0; k < span; ++k) dst[k] += row[k];
        }
}

void max_pool_relu(const RowMatrix& z, const Image& s, RowMatrix& out, std::vector<std::int32_t>& argmax) {
  const std::int64_t half = s.side / 2, c = s.channels;
  out.resize(s.samples * half * half, c);
  argmax.resize(static_cast<std::size_t>(out.size()));
  std::int64_t i = 0;
  for (std::int64_t n = 0; n < s.samples; ++n)
    for (std::int64_t py = 0; py < half; ++py)
      for (std::int64_t px = 0; px < half; ++px, ++i) {
        const std::int64_t top_left = (n * s.side + 2 * py) * s.side + 2 * px;
        const std::int64_t window[4] = {top_left, top_left + 1, top_left + s.side, top_left + s.side + 1};
        float* o = out.data() + i * c;
        std::int32_t* a = argmax.data() + i * c;
        for (std::int64_t ch = 0; ch < c; ++ch) {
          o[ch] = z(window[0], ch);
          a[ch] = static_cast<std::int32_t>(window[0]);
        }
        for (int w = 1; w < 4; ++w) {
          const float* zr = z.data() + window[w] * c;
          for (std::int64_t ch = 0; ch < c; ++ch)
            if (zr[ch] > o[ch]) {
              o[ch] = zr[ch];
              a[ch] = static_cast<std::int32_t>(window[w]);
            }
        }
        for (std::int64_t ch = 0; ch < c; ++ch) o[ch] = std::max(o[ch], 0.0f);
      }
}

void max_pool_relu_backward(const RowMatrix& d_out, const RowMatrix& out, const std::vector<std::int32_t>& argmax,
                            const Image& s, RowMatrix& d_z) {
  const std::int64_t c = s.channels;
  d_z.setZero(s.rows(), c);
  // Windows do not overlap, so every entry of d_z is written at most once.
  for (std::int64_t i = 0; i < out.rows(); ++i)
    for (std::int64_t ch = 0; ch < c; ++ch)
      if (out(i, ch) > 0.0f) d_z(argmax[static_cast<std::size_t>(i * c + ch)], ch) = d_out(i, ch);
}

}  // namespace quorum::conv
