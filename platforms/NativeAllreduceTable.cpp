#include "platforms/NativeAllreduceTable.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace quorum {

NativeAllreduceTable::NativeAllreduceTable(const std::vector<NativeAllreducePoint>& points) : points_(points) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const std::string where = "native_allreduce[" + std::to_string(i) + "]";
    if (p.ranks < 2) throw std::invalid_argument(where + ".ranks must be at least 2, got " + std::to_string(p.ranks));
    if (!(p.bytes > 0)) throw std::invalid_argument(where + ".bytes must be positive");
    if (!(p.seconds > 0)) throw std::invalid_argument(where + ".seconds must be positive");
    auto& row = by_ranks_[p.ranks];
    for (const auto& q : row)
      if (q.bytes == p.bytes)
        throw std::invalid_argument(where + " repeats ranks " + std::to_string(p.ranks) + " and bytes " +
                                    std::to_string(p.bytes));
    row.push_back(p);
  }
  for (auto& [ranks, row] : by_ranks_)
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
}

double NativeAllreduceTable::at_measured(int ranks, double bytes) const {
  const auto& row = by_ranks_.at(ranks);
  if (bytes <= row.front().bytes) return row.front().seconds;
  if (row.size() == 1) return row.front().seconds * bytes / row.front().bytes;  // one size: bandwidth-bound
  auto hi = std::lower_bound(row.begin(), row.end(), bytes, [](const auto& p, double b) { return p.bytes < b; });
  if (hi == row.end()) hi = std::prev(row.end());
  const auto lo = std::prev(hi);
  const double slope = (hi->seconds - lo->seconds) / (hi->bytes - lo->bytes);
  return std::max(lo->seconds + slope * (bytes - lo->bytes), 0.0);
}

double NativeAllreduceTable::seconds(int ranks, double bytes) const {
  if (empty()) throw std::logic_error("native allreduce table is empty");
  if (ranks < 2) return 0.0;
  if (by_ranks_.contains(ranks)) return at_measured(ranks, bytes);
  auto hi = by_ranks_.upper_bound(ranks);
  if (hi == by_ranks_.begin()) return at_measured(hi->first, bytes);  // fewer members than any measured group
  if (hi == by_ranks_.end()) {
    if (by_ranks_.size() == 1) return at_measured(by_ranks_.begin()->first, bytes);
    hi = std::prev(by_ranks_.end());
  }
  const auto lo = std::prev(hi);
  const double x0 = std::log2(lo->first), x1 = std::log2(hi->first), x = std::log2(ranks);
  const double y0 = at_measured(lo->first, bytes), y1 = at_measured(hi->first, bytes);
  return std::max(y0 + (y1 - y0) * (x - x0) / (x1 - x0), 0.0);
}

}  // namespace quorum
