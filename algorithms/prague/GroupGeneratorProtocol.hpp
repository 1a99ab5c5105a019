#pragma once
// Messages between Prague workers and the Group Generator agent. Requests, acknowledgements and the final notice
// reach the generator from any worker (an any-source tag); activations and releases go from the generator to one
// worker. All are small control messages (ints only).
//
//   worker -> generator   {kRequest, step}          ask for the group of this step (sent as the step starts)
//                         {kAcknowledge, group}     my part of the group's P-Reduce is done (releases my lock)
//                         {kFinish}                 no more requests from me
//   generator -> worker   {kActivate, group, answers, m_0, .., m_k}   run P-Reduce with these members now;
//                                                  answers = 1 if this group answers my outstanding request
//                         {kRelease}                nothing left for me: stop
#include <cstdint>

#include "algorithms/comm/Tag.hpp"

namespace quorum::prague_protocol {

enum Kind : std::int64_t { kRequest = 0, kAcknowledge = 1, kFinish = 2, kActivate = 3, kRelease = 4 };

inline constexpr Tag kToGenerator = tags::make_any_source(Channel::GroupGenerator, 0);
inline constexpr Tag kFromGenerator = tags::make(Channel::GroupGenerator, 1);
// Simulated size of a control message with k ints.
inline double control_bytes(std::size_t ints) { return 8.0 * static_cast<double>(ints); }

}  // namespace quorum::prague_protocol
