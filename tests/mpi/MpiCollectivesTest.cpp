// Collectives on the MPI backend: the algorithms' own point-to-point allreduces (every algorithm and fidelity, world
// and sub-groups, exact sums), and the native allreduce (MPI_Iallreduce on cached group communicators): exact sums,
// padding to the logical size, and the agreed eviction of the bounded communicator cache.
#include <gtest/gtest.h>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "tests/mpi/MpiHarness.hpp"

namespace quorum {

using testing::run_on_ranks;

namespace {

// Integer-valued floats: sums are exact whatever the order.
std::vector<float> contribution(int rank, std::size_t n, int salt) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((rank + 1) * (static_cast<int>(i % 97) + salt));
  return v;
}

std::vector<float> expected_sum(const Group& g, std::size_t n, int salt) {
  std::vector<float> s(n, 0.0f);
  for (int m : g.members) {
    const auto c = contribution(m, n, salt);
    for (std::size_t i = 0; i < n; ++i) s[i] += c[i];
  }
  return s;
}

std::vector<Group> test_groups(int p) {
  std::vector<Group> groups = {Group::world(p)};
  if (p >= 4) {
    groups.push_back(Group{{0, 2}});
    groups.push_back(Group{{3, 1, 2}});
    groups.push_back(Group{{p - 1, 0, 1, 2}});
  }
  return groups;
}

// Runs every group the rank belongs to, in order, and reports whether each sum was exact.
nlohmann::json reduce_all(Comm& comm, const AllreduceOptions& options, double logical_bytes) {
  nlohmann::json ok = nlohmann::json::array();
  int salt = 0;
  for (const Group& g : test_groups(comm.size()))
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      ++salt;
      if (!g.contains(comm.rank())) continue;
      auto v = contribution(comm.rank(), n, salt);
      allreduce_sum(comm, g, v, logical_bytes, options);
      ok.push_back(v == expected_sum(g, n, salt));
    }
  return ok;
}

void expect_all_true(const testing::MpiHarnessResult& r) {
  ASSERT_TRUE(r.ok) << r.error;
  for (std::size_t rank = 0; rank < r.per_rank.size(); ++rank)
    for (const auto& ok : r.per_rank[rank]) EXPECT_TRUE(ok.get<bool>()) << "rank " << rank;
}

}  // namespace

TEST(Collectives, PointToPointAllreducesSumExactlyOnMpi) {
  struct Case {
    AllreduceAlgorithm algorithm;
    Fidelity fidelity;
  };
  for (const Case c : {Case{AllreduceAlgorithm::Ring, Fidelity::Chunk}, Case{AllreduceAlgorithm::Ring, Fidelity::Phase},
                       Case{AllreduceAlgorithm::RecursiveDoubling, Fidelity::Phase},
                       Case{AllreduceAlgorithm::Rabenseifner, Fidelity::Phase}}) {
    SCOPED_TRACE(std::string(to_string(c.algorithm)) + "/" + to_string(c.fidelity));
    testing::MpiHarnessOptions o;
    o.settings.native_allreduce = false;
    const auto r = run_on_ranks(
        [&](Comm& comm) {
          AllreduceOptions opts;
          opts.algorithm = c.algorithm;
          opts.fidelity = c.fidelity;
          return reduce_all(comm, opts, 2e5);
        },
        o);
    expect_all_true(r);
  }
}

TEST(NativeAllreduce, SumsExactlyOnWorldAndGroupsWithAndWithoutPadding) {
  for (const char* sizes : {"logical", "payload"}) {
    SCOPED_TRACE(sizes);
    testing::MpiHarnessOptions o;
    o.settings.message_bytes = sizes;
    const auto r = run_on_ranks([](Comm& comm) { return reduce_all(comm, AllreduceOptions{}, 3e6); }, o);
    expect_all_true(r);
    // One communicator per distinct group (and channel): world and the three sub-groups.
    for (std::size_t rank = 0; rank < r.native_stats.size(); ++rank)
      EXPECT_LE(r.native_stats[rank]["communicators_created"].get<int>(), 4);
  }
}

TEST(NativeAllreduce, BoundedCacheEvictsByAgreementAndRecreates) {
  testing::MpiHarnessOptions o;
  o.cache_capacity = 2;
  const auto r = run_on_ranks(
      [](Comm& comm) {
        const int p = comm.size();
        // Groups over every rank in different orders (the same sequence on every rank), then pairs (members only).
        std::vector<Group> groups;
        for (int shift = 0; shift < p; ++shift) {
          Group g;
          for (int i = 0; i < p; ++i) g.members.push_back((i + shift) % p);
          groups.push_back(g);
        }
        for (int a = 0; a < p; ++a)
          for (int b = a + 1; b < p; ++b) groups.push_back(Group{{a, b}});
        nlohmann::json ok = nlohmann::json::array();
        int salt = 0;
        for (int round = 0; round < 3; ++round)
          for (const Group& g : groups) {
            ++salt;
            if (!g.contains(comm.rank())) continue;
            auto v = contribution(comm.rank(), 50, salt);
            allreduce_sum(comm, g, v, 0, AllreduceOptions{});
            ok.push_back(v == expected_sum(g, 50, salt));
          }
        return ok;
      },
      o);
  expect_all_true(r);
  for (std::size_t rank = 0; rank < r.native_stats.size(); ++rank) {
    const auto& s = r.native_stats[rank];
    SCOPED_TRACE("rank " + std::to_string(rank) + ": " + s.dump());
    EXPECT_GT(s["communicators_evicted"].get<int>(), 0);
    // Evicted groups were created again on their next use.
    EXPECT_GT(s["communicators_created"].get<int>(), testing::mpi_size() + testing::mpi_size() - 1);
    // Every communicator created is still cached, was evicted by agreement, or was a temporary one.
    EXPECT_EQ(s["communicators_created"].get<int>() - s["communicators_evicted"].get<int>() -
                  s["communicators_temporary"].get<int>(),
              s["communicators_cached"].get<int>());
    // The bound holds: the capacity, plus the world's communicator, which is always kept.
    EXPECT_LE(s["communicators_cached"].get<int>(), 2 + 1);
  }
}

}  // namespace quorum
