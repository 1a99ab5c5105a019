#pragma once
// Sorts distinct ids ascending. Many of them are sorted through a bitmap over their range, in time linear in their
// number and in the range's words, instead of by comparison, whose branches on ids in no order mispredict half the
// time (Prague at 16,384 ranks: a solve's classes whose rate rose, some hundreds of ids within a few thousand, sorted
// tens of thousands of times a step). For distinct ids the result is std::sort's (an id given twice is kept once).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quorum {

class DistinctIdSort {
 public:
  // Fewer ids than this, or ids spread over more bitmap words than kWordsPerId each, are sorted by comparison (the
  // bitmap would cost more than they do).
  static constexpr std::size_t kFewIds = 32;
  static constexpr std::size_t kWordsPerId = 8;

  void sort(std::vector<std::uint32_t>& ids) {
    if (ids.size() < kFewIds) {
      std::sort(ids.begin(), ids.end());
      return;
    }
    const auto [low, high] = std::minmax_element(ids.begin(), ids.end());
    const std::uint32_t first_word = *low / 64;
    const std::size_t word_count = std::size_t{*high / 64 - first_word} + 1;
    if (word_count > kWordsPerId * ids.size()) {
      std::sort(ids.begin(), ids.end());
      return;
    }
    words_.assign(word_count, 0);
    for (const std::uint32_t id : ids) words_[id / 64 - first_word] |= std::uint64_t{1} << (id % 64);
    std::size_t out = 0;
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        ids[out++] = static_cast<std::uint32_t>((first_word + w) * 64 + static_cast<unsigned>(std::countr_zero(bits)));
    ids.resize(out);
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace quorum
