#pragma once
// Sorts entries ascending by (level, id), their ids distinct, in time linear in their number when the levels take
// few distinct values: a radix sort on the id, then a stable distribution over the levels. That is what a filling's
// links of one class and its bounded classes look like (one node bandwidth, one penalty, one route latency across a
// component: Prague at 16,384 ranks, 1,370 links of one class, each class's first, and 580 bounded classes a solve, a
// level or two each), where a comparison sort cost a fifth to a quarter of the step. With more distinct levels than
// kFewLevels, the distribution gives way to a stable comparison sort on the level (the same order, at a comparison
// sort's cost).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quorum {

template <class Entry>
class LevelIdSort {
 public:
  static constexpr std::size_t kFewLevels = 8;

  // Puts `added` in order (unless it is already) and merges it into `sorted`, which is in order: both by (level, id).
  template <class LevelOf, class IdOf>
  void merge_into(std::vector<Entry>& sorted, std::vector<Entry>& added, LevelOf level_of, IdOf id_of) {
    const auto before = by_level_then_id(level_of, id_of);
    if (added.empty()) return;
    if (!std::is_sorted(added.begin(), added.end(), before)) sort(added, level_of, id_of);
    // In place from the back, each added entry after the sorted ones that do not come after it (as std::merge puts
    // them): only the entries after the first added one's place move, in blocks (a filling adds a few to thousands).
    std::size_t in_sorted = sorted.size();
    std::size_t out = sorted.size() + added.size();
    sorted.resize(out);
    for (std::size_t j = added.size(); j > 0; --j) {
      const Entry& entry = added[j - 1];
      const auto place = std::upper_bound(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(in_sorted),
                                          entry, before);
      const auto moved = static_cast<std::size_t>(sorted.begin() + static_cast<std::ptrdiff_t>(in_sorted) - place);
      std::move_backward(place, place + static_cast<std::ptrdiff_t>(moved),
                         sorted.begin() + static_cast<std::ptrdiff_t>(out));
      out -= moved;
      in_sorted -= moved;
      sorted[--out] = entry;
    }
  }

  // Where `entry` is, or would go, in `sorted`, which is in order by (level, id).
  template <class LevelOf, class IdOf>
  static std::size_t place_of(const std::vector<Entry>& sorted, const Entry& entry, LevelOf level_of, IdOf id_of) {
    return static_cast<std::size_t>(
        std::lower_bound(sorted.begin(), sorted.end(), entry, by_level_then_id(level_of, id_of)) - sorted.begin());
  }

  // level_of(entry) -> double (not NaN), id_of(entry) -> std::uint32_t.
  template <class LevelOf, class IdOf>
  void sort(std::vector<Entry>& entries, LevelOf level_of, IdOf id_of) {
    if (entries.size() < 2) return;
    sort_by_id(entries, id_of);
    levels_.clear();
    for (const Entry& e : entries) {
      const double level = level_of(e);
      if (std::find(levels_.begin(), levels_.end(), level) != levels_.end()) continue;
      if (levels_.size() == kFewLevels) {
        std::stable_sort(entries.begin(), entries.end(),
                         [&](const Entry& a, const Entry& b) { return level_of(a) < level_of(b); });
        return;
      }
      levels_.push_back(level);
    }
    if (levels_.size() == 1) return;
    std::sort(levels_.begin(), levels_.end());
    std::array<std::size_t, kFewLevels + 1> start{};
    const auto rank = [&](const Entry& e) {
      return static_cast<std::size_t>(std::find(levels_.begin(), levels_.end(), level_of(e)) - levels_.begin());
    };
    for (const Entry& e : entries) ++start[rank(e) + 1];
    for (std::size_t i = 1; i <= levels_.size(); ++i) start[i] += start[i - 1];
    scratch_.resize(entries.size());
    for (const Entry& e : entries) scratch_[start[rank(e)]++] = e;
    entries.swap(scratch_);
  }

 private:
  template <class LevelOf, class IdOf>
  static auto by_level_then_id(LevelOf level_of, IdOf id_of) {
    return [level_of, id_of](const Entry& a, const Entry& b) {
      return level_of(a) < level_of(b) || (level_of(a) == level_of(b) && id_of(a) < id_of(b));
    };
  }

  // Least significant byte first, each pass stable; passes stop at the largest id's highest byte.
  template <class IdOf>
  void sort_by_id(std::vector<Entry>& entries, IdOf id_of) {
    std::uint32_t largest = 0;
    for (const Entry& e : entries) largest = std::max(largest, id_of(e));
    for (unsigned shift = 0; shift < 32 && (largest >> shift) != 0; shift += 8) {
      std::array<std::size_t, 257> start{};
      for (const Entry& e : entries) ++start[((id_of(e) >> shift) & 0xffu) + 1];
      for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
      scratch_.resize(entries.size());
      for (const Entry& e : entries) scratch_[start[(id_of(e) >> shift) & 0xffu]++] = e;
      entries.swap(scratch_);
    }
  }

  std::vector<Entry> scratch_;
  std::vector<double> levels_;
};

}  // namespace quorum
