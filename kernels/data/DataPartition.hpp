#pragma once
// How the training set is shared out among the ranks (math.partition): every rank draws its mini-batches from its
// own shard, and every training sample belongs to exactly one shard.
//   iid        the training set shuffled once and cut into P contiguous blocks (rank r: block r)
//   dirichlet  label skew: each class's samples split among the ranks by proportions drawn from Dir(alpha)
//              (Hsu et al. 2019; the procedure of FedML's / Wang et al. 2020's partitioner, see the .cpp)
//   shards     pathological skew: sorted by label, cut into P * per_rank equal shards, per_rank dealt to each rank
//              at random (McMahan et al. 2017)
// All draws come from the scenario seed, so both backends build the same shards.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace quorum {

struct PartitionConfig {
  std::string kind = "iid";      // iid | dirichlet | shards
  double alpha = 0.5;            // dirichlet: concentration (small: few labels per rank; large: near iid)
  std::int64_t per_rank = 2;     // shards: shards per rank
  bool needs_labels() const { return kind != "iid"; }
};

// Which training samples each rank draws its batches from: indices into the training set, per rank.
struct DataPartition {
  std::vector<std::vector<std::int64_t>> shards;
};

// Partitions a training set of permutation.size() samples among `ranks` ranks. permutation: the seeded shuffle of
// the training set (MathSetup's), which fixes the iid blocks and the order of samples within a class; labels: one
// per sample, in [0, classes) (may be empty for iid). iid with more ranks than samples gives the whole set to every
// rank whose block is empty (the one exception to "exactly once"). Throws std::invalid_argument naming the field
// (math.partition.*) when the partition cannot be made.
DataPartition partition_training_set(const PartitionConfig& config, std::span<const std::int64_t> permutation,
                                     std::span<const std::int32_t> labels, int classes, int ranks, std::uint64_t seed);

// Samples of each label per rank: [rank][label].
std::vector<std::vector<std::int64_t>> label_histogram(const DataPartition& partition,
                                                       std::span<const std::int32_t> labels, int classes);

}  // namespace quorum
