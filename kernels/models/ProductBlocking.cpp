#include "kernels/models/ProductBlocking.hpp"

#include <Eigen/Core>
#include <mutex>

namespace quorum {

void fix_product_blocking() {
  static std::once_flag once;
  std::call_once(once, [] {
    Eigen::setCpuCacheSizes(kProductBlockingL1Bytes, kProductBlockingL2Bytes, kProductBlockingL3Bytes);
  });
}

}  // namespace quorum
