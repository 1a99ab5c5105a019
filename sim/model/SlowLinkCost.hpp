#pragma once
// What a slow link (the slow_link imbalance, StragglerModel.hpp) adds to a transfer where a backend cannot slow the
// link itself: the MPI backend's point-to-point sends, and both backends' native allreduces, which run inside the
// MPI library (or the simulator's measured table) rather than over links quorum controls.
namespace quorum {

// Extra seconds for `bytes` through a link of link_Bps slowed `factor` times: (factor - 1) x bytes / link_Bps.
inline double slow_link_extra_s(double factor, double bytes, double link_Bps) {
  if (factor <= 1.0 || link_Bps <= 0.0 || bytes <= 0.0) return 0.0;
  return (factor - 1.0) * bytes / link_Bps;
}

// A native allreduce of `group` members: a bandwidth-optimal allreduce (ring, Rabenseifner) moves 2 (g - 1) / g of
// the vector through every member's link, so a slow member holds the whole group back by that share's extra time.
inline double slow_link_allreduce_extra_s(double factor, int group, double bytes, double link_Bps) {
  if (group < 2) return 0.0;
  return slow_link_extra_s(factor, 2.0 * (group - 1) / group * bytes, link_Bps);
}

}  // namespace quorum
