// The GPU path (mpi.device = gpu): proxy math on the device against the CPU models, NCCL allreduce sums (over MPI
// for groups whose ranks share a device), and a run on the GPU against the same run on the CPU. Every test that needs
// a device skips, with the reason, when any rank has no usable CUDA device (or the build has no CUDA): it must never
// crash on a machine without a GPU. They hold at any rank count, 1 included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "kernels/Trainer.hpp"
#include "kernels/models/Cnn.hpp"
#include "kernels/random/SeedStream.hpp"
#include "tests/mpi/MpiHarness.hpp"
#include "validation/gpu/GpuSupport.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiRun.hpp"

namespace quorum {

namespace {

// Skips on every rank unless every rank has a device (collective).
#define QUORUM_REQUIRE_GPU()                                                                              \
  do {                                                                                                    \
    const gpu::GpuProbe probe = gpu::probe();                                                             \
    if (!testing::all_ranks(probe.usable()))                                                              \
      GTEST_SKIP() << "no usable CUDA device on every rank: "                                             \
                   << (probe.reason.empty() ? std::string("another rank has none") : probe.reason);       \
  } while (0)

MathConfig small(const std::string& model) {
  MathConfig c;
  c.model = model;
  c.batch = 64;
  c.hyperplane.dim = 300;
  c.hyperplane.train_size = 2048;
  c.hyperplane.test_size = 256;
  c.hidden = 32;
  return c;
}

// The device's gradient against the host's, to 1e-4 of the largest component.
void expect_gradients_agree(const std::vector<float>& cpu, const std::vector<float>& dev) {
  ASSERT_EQ(cpu.size(), dev.size());
  double scale = 1e-6;
  for (float v : cpu) scale = std::max(scale, static_cast<double>(std::abs(v)));
  for (std::size_t i = 0; i < cpu.size(); ++i) ASSERT_NEAR(dev[i], cpu[i], 1e-4 * scale) << "index " << i;
}

// The world and two sub-groups ({0, p-1} and {p-1, 1, 0}), made of ranks that exist, without repeated members, and
// each once: one rank has the world alone, two ranks the world and its reverse.
std::vector<Group> world_and_subgroups(int p) {
  const std::vector<std::vector<int>> wanted = {Group::world(p).members, {0, p - 1}, {p - 1, 1, 0}};
  std::vector<Group> groups;
  for (const auto& members : wanted) {
    Group g;
    for (int m : members)
      if (m >= 0 && m < p && !g.contains(m)) g.members.push_back(m);
    const bool seen =
        std::any_of(groups.begin(), groups.end(), [&g](const Group& h) { return h.members == g.members; });
    if (!g.members.empty() && !seen) groups.push_back(g);
  }
  return groups;
}

}  // namespace

TEST(Gpu, TestGroupsHoldAtEveryRankCount) {
  EXPECT_EQ(world_and_subgroups(1).size(), 1u);
  EXPECT_EQ(world_and_subgroups(2).size(), 2u);
  for (int p = 1; p <= 6; ++p) {
    const auto groups = world_and_subgroups(p);
    EXPECT_EQ(groups.front().members, Group::world(p).members);
    if (p >= 3) {
      EXPECT_EQ(groups.size(), 3u);
    }
    for (const Group& g : groups) {
      std::vector<int> sorted = g.members;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << "p = " << p;
      EXPECT_GE(sorted.front(), 0);
      EXPECT_LT(sorted.back(), p);
    }
  }
}

TEST(Gpu, ProbeReportsWithoutCrashing) {
  const gpu::GpuProbe probe = gpu::probe();
  if (probe.usable()) {
    EXPECT_GT(probe.devices, 0);
  } else {
    EXPECT_FALSE(probe.reason.empty());
  }
  // Probing twice is fine too (no state left behind by a failed probe).
  EXPECT_EQ(gpu::probe().usable(), probe.usable());
}

TEST(Gpu, ModelGradientsMatchTheCpu) {
  QUORUM_REQUIRE_GPU();
  gpu::select_device(MPI_COMM_WORLD);
  std::string why;
  for (const std::string model : {"hyperplane", "softmax", "mlp", "cnn"}) {
    SCOPED_TRACE(model);
    if (model != "hyperplane" && !fashion_mnist_available(kDefaultFashionMnistDir, &why)) continue;
    const auto setup = make_math_setup(small(model), 9);
    auto on_gpu = std::make_shared<MathSetup>(*setup);
    on_gpu->model = gpu::make_gpu_model(*setup);
    Trainer cpu(setup, 0, 1), dev(on_gpu, 0, 1);
    std::vector<float> g_cpu, g_dev;
    for (int step = 0; step < 3; ++step) {
      cpu.compute_gradient(step, g_cpu);
      dev.compute_gradient(step, g_dev);
      expect_gradients_agree(g_cpu, g_dev);
      EXPECT_NEAR(dev.last_loss(), cpu.last_loss(), 1e-4 * std::max(1.0, cpu.last_loss()));
      cpu.apply_gradient(g_cpu);
      dev.apply_gradient(g_cpu);  // keep both on the same parameters
    }
  }
}

// The CNN's loss and gradient on the device against the host's on random images of an odd side (the pools drop a
// row and a column) with non-zero biases; ModelGradientsMatchTheCpu covers training steps on Fashion-MNIST.
TEST(Gpu, CnnLossAndGradientMatchTheCpuOnAnOddImageSide) {
  QUORUM_REQUIRE_GPU();
  gpu::select_device(MPI_COMM_WORLD);
  auto setup = std::make_shared<MathSetup>();
  setup->model = std::make_shared<Cnn>(21, 3, 5, 7);
  const auto on_gpu = gpu::make_gpu_model(*setup);
  std::vector<float> params(setup->model->num_params());
  setup->model->init(params, 4);
  Rng rng(12);
  for (float& p : params) p += static_cast<float>(0.01 * rng.normal());
  Batch batch;
  batch.x.resize(37, 21 * 21);
  for (Eigen::Index i = 0; i < batch.x.size(); ++i) batch.x.data()[i] = static_cast<float>(rng.normal());
  for (int i = 0; i < 37; ++i) batch.labels.push_back(static_cast<std::int32_t>(rng.below(7)));
  std::vector<float> g_cpu(params.size()), g_dev(params.size());
  const double loss_cpu = setup->model->loss_and_gradient(params, batch, g_cpu);
  const double loss_dev = on_gpu->loss_and_gradient(params, batch, g_dev);
  EXPECT_NEAR(loss_dev, loss_cpu, 1e-5 * loss_cpu);
  expect_gradients_agree(g_cpu, g_dev);
}

TEST(Gpu, NcclAllreduceSumsExactlyOnWorldAndGroups) {
  QUORUM_REQUIRE_GPU();
  gpu::select_device(MPI_COMM_WORLD);
  // Where ranks share a device (several ranks on one GPU), their groups must have gone over MPI, and said why.
  const std::vector<gpu::DeviceIdentity> devices = gpu::gather_device_identities(MPI_COMM_WORLD);
  constexpr int kRounds = 3;
  testing::MpiHarnessOptions o;
  o.settings.native_allreduce = false;  // the harness's MPI allreduce is replaced by NCCL below
  const auto r = testing::run_on_ranks(
      [](Comm& comm) {
        auto& rt = dynamic_cast<mpi::MpiComm&>(comm).runtime();
        rt.set_native(gpu::make_nccl_allreduce(rt.world().collectives(), true, 2));
        nlohmann::json ok = nlohmann::json::array();
        for (int round = 0; round < kRounds; ++round)
          for (const Group& g : world_and_subgroups(comm.size())) {
            if (!g.contains(comm.rank())) continue;
            std::vector<float> v(1000, static_cast<float>(comm.rank() + round));
            allreduce_sum(comm, g, v, 1e6, AllreduceOptions{});
            float want = 0;
            for (int m : g.members) want += static_cast<float>(m + round);
            ok.push_back(v[0] == want && v[999] == want);
          }
        nlohmann::json stats = rt.native()->stats();
        rt.set_native(nullptr);
        return nlohmann::json{{"ok", ok}, {"stats", stats}};
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  const int p = testing::mpi_size();
  const bool any_shared = !gpu::members_sharing_a_device(devices).empty();
  for (int rank = 0; rank < p; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    int allreduces = 0, over_mpi = 0;
    for (const Group& g : world_and_subgroups(p)) {
      if (!g.contains(rank)) continue;
      allreduces += kRounds;
      std::vector<gpu::DeviceIdentity> members;
      for (int m : g.members) members.push_back(devices[static_cast<std::size_t>(m)]);
      if (!gpu::members_sharing_a_device(members).empty()) over_mpi += kRounds;
    }
    const auto& result = r.per_rank[static_cast<std::size_t>(rank)];
    EXPECT_EQ(static_cast<int>(result["ok"].size()), allreduces);
    for (const auto& ok : result["ok"]) EXPECT_TRUE(ok.get<bool>());
    const auto& stats = result["stats"];
    EXPECT_EQ(stats["nccl_fallback"].is_string(), any_shared) << stats.dump();
    EXPECT_EQ(stats["allreduces_over_mpi"].get<int>(), over_mpi) << stats.dump();
  }
}

TEST(Gpu, AllreduceSgdOnTheGpuMatchesTheCpuRun) {
  QUORUM_REQUIRE_GPU();
  nlohmann::json json = {{"name", "gpu-test"},
                         {"seed", 4},
                         {"platform", {{"name", "localhost"}, {"nodes", testing::mpi_size()}}},
                         {"workload", {{"profile", "hyperplane"}, {"iterations", 10},
                                       {"compute", {{"kind", "constant"}, {"seconds", 0.001}}}}},
                         {"algorithm", {{"name", "allreduce"}}},
                         {"math", {{"model", "hyperplane"}, {"batch", 32}, {"dim", 128}, {"train_size", 2048},
                                   {"test_size", 256}, {"lr", 0.02}}},
                         {"output", {{"progress", false}}}};
  const auto cpu = mpi::run_scenario_mpi(parse_scenario(json, ""), "");
  json["mpi"] = {{"device", "gpu"}};
  const auto gpu_run = mpi::run_scenario_mpi(parse_scenario(json, ""), "");
  const bool any_shared = !gpu::members_sharing_a_device(gpu::gather_device_identities(MPI_COMM_WORLD)).empty();
  if (testing::mpi_rank() != 0) return;
  // The summary says whether the world's allreduces left NCCL for MPI because ranks share a device, and why.
  const auto& native = gpu_run.summary["mpi"]["native_allreduce"];
  EXPECT_EQ(native["nccl_fallback"].is_string(), any_shared) << native.dump();
  EXPECT_EQ(native["allreduces_over_mpi"].get<int>() > 0, any_shared) << native.dump();
  // A world of one rank has nothing to reduce: its allreduces return before reaching NCCL.
  EXPECT_EQ(native["nccl_communicators_created"].get<int>() > 0, !any_shared && testing::mpi_size() > 1)
      << native.dump();
  for (std::size_t r = 0; r < cpu.final_params.size(); ++r)
    for (std::size_t i = 0; i < cpu.final_params[r].size(); ++i)
      EXPECT_NEAR(gpu_run.final_params[r][i], cpu.final_params[r][i],
                  1e-4 * std::max(1.0f, std::abs(cpu.final_params[r][i])));
}

}  // namespace quorum
