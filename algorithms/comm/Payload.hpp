#pragma once
// What a message carries. values: real floats of the proxy model (empty when math is off); ints: control data
// such as collective versions, steps, ranks. The simulated size of a message is given separately
// (logical bytes): a proxy of 7,850 floats can stand for ResNet-50's 25.6 million.
#include <cstdint>
#include <vector>

#include "algorithms/comm/Tag.hpp"

namespace quorum {

struct Payload {
  std::vector<float> values;
  std::vector<std::int64_t> ints;
};

struct Message {
  int source = -1;
  Tag tag = 0;
  Payload payload;
};

}  // namespace quorum
