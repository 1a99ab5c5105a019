#pragma once
// The sizes at which `quorum calibrate --scenario` times the native allreduce: the defaults, then every doubling of
// the largest default below the scenario's model size and 1/32 below each doubling, then the model size itself, so
// the prediction interpolates rather than extrapolates where it matters. A scenario may reduce less than the model
// at once (gradient buckets under algorithm.overlap), and the library's time is far from linear in between: MPI
// libraries switch algorithms at power-of-two sizes. Open MPI's MPI_Allreduce of 4 ranks on the 2-core development
// VM (a plain MPI program, best of 5): 16 MiB 16 ms, 31 MiB 22 ms, 32 MiB 191 ms, 64 MiB 402 ms, 97.5 MiB 626 ms.
#include <algorithm>
#include <vector>

namespace quorum::calibration {

inline std::vector<double> native_sizes_for_model(std::vector<double> sizes, double model_bytes) {
  if (model_bytes <= 0 || sizes.empty()) return sizes;
  std::sort(sizes.begin(), sizes.end());
  for (double bytes = sizes.back() * 2; bytes < model_bytes; bytes *= 2) {
    sizes.push_back(bytes - bytes / 32);
    sizes.push_back(bytes);
  }
  sizes.push_back(model_bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace quorum::calibration
