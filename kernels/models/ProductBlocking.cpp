#include "kernels/models/ProductBlocking.hpp"

#include <Eigen/Core>
#include <mutex>

namespace quorum {

void set_fixed_product_blocking() {
  Eigen::setCpuCacheSizes(kProductBlockingL1Bytes, kProductBlockingL2Bytes, kProductBlockingL3Bytes);
}

void fix_product_blocking() {
  static std::once_flag once;
  std::call_once(once, set_fixed_product_blocking);
}

}  // namespace quorum
