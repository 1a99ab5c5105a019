// Synchronous allreduce on point-to-point messages, in simulation: exact sums, identical results on every rank,
// and the two fidelities agreeing on time.
#include <gtest/gtest.h>

#include <cstdint>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "kernels/random/SeedStream.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;
using testing::star;

namespace {

struct Variant {
  AllreduceAlgorithm algorithm;
  Fidelity fidelity;
  const char* name;
};
const Variant kVariants[] = {{AllreduceAlgorithm::Ring, Fidelity::Chunk, "ring/chunk"},
                             {AllreduceAlgorithm::Ring, Fidelity::Phase, "ring/phase"},
                             {AllreduceAlgorithm::RecursiveDoubling, Fidelity::Phase, "recursive_doubling"},
                             {AllreduceAlgorithm::Rabenseifner, Fidelity::Phase, "rabenseifner"}};

AllreduceOptions options(const Variant& v) {
  AllreduceOptions o;
  o.algorithm = v.algorithm;
  o.fidelity = v.fidelity;
  return o;
}

}  // namespace

TEST(SyncAllreduce, IntegerSumsAreExactForAnyGroupSize) {
  const int n = 37;  // not a multiple of any group size below
  for (const Variant& v : kVariants) {
    for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 13, 16}) {
      SCOPED_TRACE(std::string(v.name) + " P=" + std::to_string(p));
      const auto result = run_simulated(star(p), [&](Comm& comm) {
        std::vector<float> data(n);
        for (int i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = static_cast<float>((comm.rank() + 1) * (i + 1));
        allreduce_sum(comm, Group::world(p), data, 4.0 * n, options(v));
        return nlohmann::json(data);
      });
      ASSERT_TRUE(result.ok) << result.error;
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < n; ++i)
          ASSERT_EQ(result.per_rank[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)].get<float>(),
                    static_cast<float>(p * (p + 1) / 2 * (i + 1)))
              << "rank " << r << " element " << i;
    }
  }
}

TEST(SyncAllreduce, RandomFloatsGiveBitIdenticalResultsOnEveryRank) {
  for (const Variant& v : kVariants) {
    for (int p : {5, 8}) {
      SCOPED_TRACE(std::string(v.name) + " P=" + std::to_string(p));
      const auto result = run_simulated(star(p), [&](Comm& comm) {
        Rng rng(7, Stream::Algorithm, static_cast<std::uint64_t>(comm.rank()));
        std::vector<float> data(50);
        for (auto& x : data) x = static_cast<float>(rng.normal());
        allreduce_sum(comm, Group::world(p), data, 200, options(v));
        return nlohmann::json(data);
      });
      ASSERT_TRUE(result.ok) << result.error;
      for (int r = 1; r < p; ++r) EXPECT_EQ(result.per_rank[static_cast<std::size_t>(r)], result.per_rank[0]);
    }
  }
}

TEST(SyncAllreduce, SubgroupsReduceOnlyTheirMembers) {
  const auto result = run_simulated(star(6), [](Comm& comm) {
    const Group g = comm.rank() % 2 == 0 ? Group{{4, 0, 2}} : Group{{1, 3, 5}};
    std::vector<float> data = {static_cast<float>(comm.rank())};
    AllreduceOptions o;
    o.fidelity = Fidelity::Chunk;
    allreduce_sum(comm, g, data, 4, o);
    return nlohmann::json(data[0]);
  });
  ASSERT_TRUE(result.ok) << result.error;
  for (int r = 0; r < 6; ++r) EXPECT_EQ(result.per_rank[static_cast<std::size_t>(r)].get<float>(), r % 2 == 0 ? 6.0f : 9.0f);
}

TEST(SyncAllreduce, TimingOnlyRunsWithEmptyVectors) {
  for (const Variant& v : kVariants) {
    const auto result = run_simulated(star(8), [&](Comm& comm) {
      std::vector<float> none;
      allreduce_sum(comm, Group::world(8), none, 1e6, options(v));
      return nlohmann::json(none.size());
    });
    ASSERT_TRUE(result.ok) << v.name << ": " << result.error;
    EXPECT_GT(result.end_time, 1e6 / 10e9) << v.name;
  }
}

// The phase-level model must stay within 3% of the message-by-message ring on Piz Daint at P=64 for 100 MB
// (DESIGN.md, "Collective fidelity"), and both near the alpha-beta estimate 2 (P-1)/P N / B.
TEST(SyncAllreduce, PhaseFidelityMatchesChunkFidelityOnPizDaint) {
  PizDaintConfig daint;
  daint.nodes = 64;
  auto time_of = [&](Fidelity f) {
    const auto result = run_simulated(daint, [f](Comm& comm) {
      std::vector<float> none;
      AllreduceOptions o;
      o.fidelity = f;
      allreduce_sum(comm, Group::world(comm.size()), none, 100e6, o);
      return nlohmann::json(comm.now());
    });
    EXPECT_TRUE(result.ok) << result.error;
    return result.end_time;
  };
  const double chunk = time_of(Fidelity::Chunk), phase = time_of(Fidelity::Phase);
  const double textbook = 2.0 * 63 / 64 * 100e6 / daint.link_bandwidth_Bps;
  EXPECT_NEAR(phase, chunk, 0.03 * chunk) << "chunk " << chunk << " s, phase " << phase << " s";
  EXPECT_NEAR(chunk, textbook, 0.05 * textbook);
}

TEST(SyncAllreduce, RingWaitsForTheSlowestMember) {
  // Rank 5 arrives 1 s late: nobody can finish before it arrives, at either fidelity.
  for (Fidelity f : {Fidelity::Chunk, Fidelity::Phase}) {
    const auto result = run_simulated(star(8), [f](Comm& comm) {
      if (comm.rank() == 5) comm.sleep_for(1.0);
      std::vector<float> data = {1.0f};
      AllreduceOptions o;
      o.fidelity = f;
      allreduce_sum(comm, Group::world(8), data, 1e6, o);
      return nlohmann::json(comm.now());
    });
    ASSERT_TRUE(result.ok) << result.error;
    for (const auto& t : result.per_rank) EXPECT_GT(t.get<double>(), 1.0);
  }
}

// The phase-fidelity ring moves the real values with a tree whose broadcast hands each rank the total in the very
// vector that rank sent up: with real math at 1,024 ranks, allocating a fresh vector of the model's size per rank and
// allreduce (and the allocator mapping and zeroing it again) was most of the serial work of a step.
TEST(SyncAllreduce, PhaseFidelityHandsEveryRankBackItsOwnVector) {
  const int p = 13;  // a tree with leaves, inner nodes and a root of several children
  const auto result = run_simulated(star(p), [](Comm& comm) {
    std::vector<float> data(1000, static_cast<float>(comm.rank() + 1));
    const auto own = reinterpret_cast<std::uintptr_t>(data.data());
    AllreduceOptions o;
    o.fidelity = Fidelity::Phase;
    bool kept = true;
    for (int round = 0; round < 2; ++round) {
      allreduce_sum(comm, Group::world(comm.size()), data, 4000, o);
      kept = kept && reinterpret_cast<std::uintptr_t>(data.data()) == own;
    }
    return nlohmann::json{{"kept", kept}, {"first", data.front()}, {"last", data.back()}};
  });
  ASSERT_TRUE(result.ok) << result.error;
  // Two rounds: p(p+1)/2 = 91 summed by every rank, then 91 x 13.
  for (int r = 0; r < p; ++r) {
    const auto& got = result.per_rank[static_cast<std::size_t>(r)];
    EXPECT_TRUE(got["kept"].get<bool>()) << "rank " << r << " got another vector back";
    EXPECT_EQ(got["first"].get<float>(), 91.0f * 13.0f) << "rank " << r;
    EXPECT_EQ(got["last"].get<float>(), 91.0f * 13.0f) << "rank " << r;
  }
}

}  // namespace quorum
