#pragma once
// Cutting a vector into blocks: the real values (possibly few, or none when math is off) and the logical size
// (from the workload profile) are cut in the same proportions, so a block's simulated size is right even when the
// proxy vector is tiny.
#include <cstddef>
#include <span>
#include <vector>

namespace quorum {

struct BlockPartition {
  std::size_t elements = 0;   // real values in the whole vector
  double logical_bytes = 0;   // simulated size of the whole vector
  int blocks = 1;

  std::size_t begin(int b) const { return elements * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks); }
  // Blocks [first, last): element range and simulated size.
  std::size_t begin_of(int first) const { return begin(first); }
  std::size_t end_of(int last) const { return begin(last); }
  double bytes_of(int first, int last) const { return logical_bytes * (last - first) / blocks; }

  std::span<float> span(std::vector<float>& v, int first, int last) const {
    return std::span<float>(v).subspan(begin_of(first), end_of(last) - begin_of(first));
  }
  std::span<const float> span(const std::vector<float>& v, int first, int last) const {
    return std::span<const float>(v).subspan(begin_of(first), end_of(last) - begin_of(first));
  }
  std::vector<float> copy(const std::vector<float>& v, int first, int last) const {
    const std::span<const float> range = span(v, first, last);
    return std::vector<float>(range.begin(), range.end());
  }
};

}  // namespace quorum
