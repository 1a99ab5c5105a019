#include "kernels/data/DataPartition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "kernels/random/GammaVariate.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {

// Sub-streams of Stream::DataShard (a = 0 is the shuffle itself, MathSetup's).
constexpr std::uint64_t kDirichletDraws = 1, kShardDeal = 2;
// FedML's partitioner redraws until every rank holds at least this many samples.
constexpr std::int64_t kMinSamplesPerRank = 10;
constexpr int kDirichletAttempts = 100;

DataPartition iid_blocks(std::span<const std::int64_t> permutation, int ranks) {
  const auto n = static_cast<std::int64_t>(permutation.size());
  DataPartition p;
  p.shards.resize(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::int64_t begin = n * r / ranks, end = n * (r + 1) / ranks;
    if (begin == end) {  // more ranks than samples: fall back to the whole set
      begin = 0;
      end = n;
    }
    p.shards[static_cast<std::size_t>(r)].assign(permutation.begin() + begin, permutation.begin() + end);
  }
  return p;
}

// Each class's samples, in the order of the shuffled training set.
std::vector<std::vector<std::int64_t>> samples_by_class(std::span<const std::int64_t> permutation,
                                                        std::span<const std::int32_t> labels, int classes) {
  std::vector<std::vector<std::int64_t>> by_class(static_cast<std::size_t>(classes));
  for (const std::int64_t i : permutation) by_class[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])].push_back(i);
  return by_class;
}

// One attempt of FedML's "hetero" partition (Wang et al. 2020, github.com/IBM/FedMA; FedML's
// partition_data(..., "hetero")): for each class in turn, draw p ~ Dir(alpha) over the ranks, zero the share of
// every rank that already holds N / P samples or more (so no rank ends up with much more than its part of the data),
// renormalise, and cut the class's samples at floor(cumsum(p) * n_class).
DataPartition dirichlet_attempt(const std::vector<std::vector<std::int64_t>>& by_class, std::int64_t n, double alpha,
                                int ranks, Rng& rng) {
  DataPartition p;
  p.shards.resize(static_cast<std::size_t>(ranks));
  for (const auto& members : by_class) {
    std::vector<double> w = log_dirichlet_weights(rng, alpha, ranks);
    for (int r = 0; r < ranks; ++r)
      if (static_cast<std::int64_t>(p.shards[static_cast<std::size_t>(r)].size()) * ranks >= n)
        w[static_cast<std::size_t>(r)] = -std::numeric_limits<double>::infinity();
    const std::vector<double> share = normalize_log_weights(w);
    const auto count = static_cast<double>(members.size());
    double cumulative = 0;
    std::size_t begin = 0;
    for (int r = 0; r < ranks; ++r) {
      cumulative += share[static_cast<std::size_t>(r)];
      const std::size_t end = r + 1 == ranks ? members.size()
                                             : std::min(members.size(), static_cast<std::size_t>(cumulative * count));
      if (end > begin) {
        auto& shard = p.shards[static_cast<std::size_t>(r)];
        shard.insert(shard.end(), members.begin() + static_cast<std::ptrdiff_t>(begin),
                     members.begin() + static_cast<std::ptrdiff_t>(end));
        begin = end;
      }
    }
  }
  return p;
}

std::int64_t smallest_shard(const DataPartition& p) {
  std::size_t m = p.shards.empty() ? 0 : p.shards.front().size();
  for (const auto& s : p.shards) m = std::min(m, s.size());
  return static_cast<std::int64_t>(m);
}

DataPartition dirichlet_partition(std::span<const std::int64_t> permutation, std::span<const std::int32_t> labels,
                                  int classes, int ranks, double alpha, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(permutation.size());
  const auto by_class = samples_by_class(permutation, labels, classes);
  const std::int64_t required = std::min(kMinSamplesPerRank, n / ranks);
  DataPartition best;
  for (int attempt = 0; attempt < kDirichletAttempts; ++attempt) {
    Rng rng(seed, Stream::DataShard, kDirichletDraws, static_cast<std::uint64_t>(attempt));
    DataPartition p = dirichlet_attempt(by_class, n, alpha, ranks, rng);
    if (smallest_shard(p) >= required) return p;
    if (attempt == 0 || smallest_shard(p) > smallest_shard(best)) best = std::move(p);
  }
  if (smallest_shard(best) > 0) return best;  // every rank has data, if fewer than 10 samples
  throw std::invalid_argument("math.partition.alpha: " + std::to_string(kDirichletAttempts) +
                              " draws of Dir(" + std::to_string(alpha) + ") over " + std::to_string(ranks) +
                              " ranks all left some rank without a training sample; raise alpha or use fewer ranks");
}

DataPartition label_shards(std::span<const std::int64_t> permutation, std::span<const std::int32_t> labels,
                           int ranks, std::int64_t per_rank, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(permutation.size());
  const std::int64_t count = per_rank * ranks;
  if (count > n)
    throw std::invalid_argument("math.partition.per_rank: " + std::to_string(per_rank) + " shards per rank x " +
                                std::to_string(ranks) + " ranks is more shards than the " + std::to_string(n) +
                                " training samples");
  std::vector<std::int64_t> sorted(permutation.begin(), permutation.end());
  std::stable_sort(sorted.begin(), sorted.end(), [&labels](std::int64_t a, std::int64_t b) {
    return labels[static_cast<std::size_t>(a)] < labels[static_cast<std::size_t>(b)];
  });
  std::vector<std::int64_t> order(static_cast<std::size_t>(count));
  for (std::int64_t s = 0; s < count; ++s) order[static_cast<std::size_t>(s)] = s;
  Rng rng(seed, Stream::DataShard, kShardDeal);
  shuffle(order, rng);
  DataPartition p;
  p.shards.resize(static_cast<std::size_t>(ranks));
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t s = order[static_cast<std::size_t>(k)];
    auto& shard = p.shards[static_cast<std::size_t>(k / per_rank)];
    shard.insert(shard.end(), sorted.begin() + n * s / count, sorted.begin() + n * (s + 1) / count);
  }
  return p;
}

}  // namespace

DataPartition partition_training_set(const PartitionConfig& config, std::span<const std::int64_t> permutation,
                                     std::span<const std::int32_t> labels, int classes, int ranks, std::uint64_t seed) {
  if (ranks < 1) throw std::invalid_argument("partition_training_set: ranks must be >= 1");
  if (config.kind == "iid") return iid_blocks(permutation, ranks);
  if (config.kind != "dirichlet" && config.kind != "shards")
    throw std::invalid_argument("math.partition.kind: unknown value '" + config.kind + "'; allowed: iid, dirichlet, shards");
  if (classes < 1 || labels.size() != permutation.size())
    throw std::invalid_argument("math.partition.kind: '" + config.kind +
                                "' partitions by label, and this data set has no labels; use iid");
  if (config.kind == "dirichlet") {
    if (!(config.alpha > 0)) throw std::invalid_argument("math.partition.alpha: must be > 0");
    return dirichlet_partition(permutation, labels, classes, ranks, config.alpha, seed);
  }
  if (config.per_rank < 1) throw std::invalid_argument("math.partition.per_rank: must be >= 1");
  return label_shards(permutation, labels, ranks, config.per_rank, seed);
}

std::vector<std::vector<std::int64_t>> label_histogram(const DataPartition& partition,
                                                       std::span<const std::int32_t> labels, int classes) {
  std::vector<std::vector<std::int64_t>> h(partition.shards.size(),
                                           std::vector<std::int64_t>(static_cast<std::size_t>(std::max(classes, 0)), 0));
  for (std::size_t r = 0; r < partition.shards.size(); ++r)
    for (const std::int64_t i : partition.shards[r]) ++h[r][static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])];
  return h;
}

}  // namespace quorum
