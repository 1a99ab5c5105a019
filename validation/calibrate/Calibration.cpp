#include "validation/calibrate/Calibration.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "kernels/Trainer.hpp"
#include "kernels/data/FashionMnist.hpp"
#include "sim/model/Distribution.hpp"
#include "sim/model/StragglerModel.hpp"
#include "sim/model/Version.hpp"
#include "validation/mpi/MpiAllreduce.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/MpiError.hpp"
#include "validation/mpi/WaitMode.hpp"
#include "validation/calibrate/PointToPointProbe.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum::calibration {

namespace {

using mpi::MpiComm;
using mpi::RankRuntime;

const Tag kPingTag = tags::make(Channel::Benchmark, 1);

// One pair, through Comm and through plain MPI, size by size in the same job (alternating, so that both see the
// same machine state).
nlohmann::json measure_pair(MpiComm& comm, MPI_Comm raw, int a, int b, bool same_node, const CalibrationOptions& o) {
  nlohmann::json pair = {{"ranks", {a, b}}, {"same_node", same_node}};
  const bool member = comm.rank() == a || comm.rank() == b;
  double latency = 0, raw_latency = 0;
  std::vector<std::pair<double, double>> points, raw_points;
  nlohmann::json sizes = nlohmann::json::array();
  if (member) {
    latency = comm_ping_pong(comm, a, b, 0, o.latency_round_trips);
    raw_latency = raw_ping_pong(raw, a, b, 0, o.latency_round_trips);
    for (double bytes : o.sizes) {
      // A first round trip sizes the number of repetitions to the time budget; both sides compute the same count
      // from the initiator's estimate, which it sends along.
      double estimate = comm_ping_pong(comm, a, b, bytes, 1);
      if (comm.rank() == a) comm.send(b, kPingTag, {{}, {static_cast<std::int64_t>(estimate * 1e9)}}, 0);
      else estimate = static_cast<double>(comm.recv(a, kPingTag).payload.ints.at(0)) * 1e-9;
      const int reps = round_trips_for(o.seconds_per_size, estimate);
      const double one_way = comm_ping_pong(comm, a, b, bytes, reps);
      const double raw_one_way = raw_ping_pong(raw, a, b, bytes, reps);
      points.emplace_back(bytes, one_way);
      raw_points.emplace_back(bytes, raw_one_way);
      sizes.push_back({{"bytes", bytes},
                       {"one_way_s", one_way},
                       {"raw_mpi_one_way_s", raw_one_way},
                       {"comm_over_raw", raw_one_way > 0 ? one_way / raw_one_way : 0.0},
                       {"round_trips", reps}});
    }
  }
  const AlphaBeta fit = fit_alpha_beta(points), raw_fit = fit_alpha_beta(raw_points);
  pair["latency_s"] = latency;
  pair["bandwidth_Bps"] = fit.bandwidth_Bps;
  pair["fit_intercept_s"] = fit.latency_s;
  pair["raw_mpi"] = {{"latency_s", raw_latency},
                     {"bandwidth_Bps", raw_fit.bandwidth_Bps},
                     {"fit_intercept_s", raw_fit.latency_s}};
  pair["sizes"] = sizes;
  return pair;
}

// Brings rank a's JSON to rank 0 (control communicator).
nlohmann::json to_rank0(MPI_Comm control, int rank, int a, const nlohmann::json& value) {
  if (a == 0) return value;
  if (rank == a) {
    const auto bytes = nlohmann::json::to_cbor(value);
    mpi::check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, 1, control), "MPI_Send");
  } else if (rank == 0) {
    MPI_Status status;
    mpi::check(MPI_Probe(a, 1, control, &status), "MPI_Probe");
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count));
    mpi::check(MPI_Recv(bytes.data(), count, MPI_BYTE, a, 1, control, MPI_STATUS_IGNORE), "MPI_Recv");
    return nlohmann::json::from_cbor(bytes);
  }
  return nullptr;
}

// Node index of every rank, numbered in order of first appearance of its host name.
std::vector<int> nodes_by_name(const std::vector<std::string>& hosts) {
  std::map<std::string, int> index;
  std::vector<int> node;
  for (const auto& h : hosts) node.push_back(index.try_emplace(h, static_cast<int>(index.size())).first->second);
  return node;
}

std::vector<int> nodes_in_blocks(int ranks, int per_node) {
  std::vector<int> node;
  for (int r = 0; r < ranks; ++r) node.push_back(r / per_node);
  return node;
}

// n when node k holds exactly ranks k*n .. k*n+n-1 for every k (the platform's placement), else 0.
int block_size(const std::vector<int>& node) {
  const auto n = static_cast<int>(std::count(node.begin(), node.end(), node.front()));
  if (node.size() % static_cast<std::size_t>(n) != 0) return 0;
  for (std::size_t r = 0; r < node.size(); ++r)
    if (node[r] != static_cast<int>(r) / n) return 0;
  return n;
}

std::shared_ptr<const MathSetup> default_proxy(std::uint64_t seed) {
  MathConfig c;
  std::string why;
  if (fashion_mnist_available(c.dataset_dir, &why)) {
    c.model = "softmax";
    c.batch = 128;
  } else {
    c.model = "hyperplane";
    c.batch = 2048;
  }
  return make_math_setup(c, seed);
}

// Median time of one local step of the proxy on this rank.
double proxy_step_time(Trainer& trainer, int steps, RankRuntime& rt) {
  std::vector<double> times;
  for (int i = 0; i < 3 + steps; ++i) {
    const double t0 = rt.now();
    trainer.local_step(i);
    if (i >= 3) times.push_back(rt.now() - t0);
  }
  return median(times);
}

}  // namespace

AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>>& points) {
  AlphaBeta r;
  // Small messages are latency-bound and would pull the slope around: fit on 64 KiB and up when there are enough.
  std::vector<std::pair<double, double>> use;
  for (const auto& p : points)
    if (p.first >= 65536) use.push_back(p);
  if (use.size() < 2) use = points;
  if (use.empty()) return r;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : use) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(use.size());
  const double denominator = n * sxx - sx * sx;
  const double slope = denominator > 0 ? (n * sxy - sx * sy) / denominator : 0;
  if (slope > 0) {
    r.bandwidth_Bps = 1.0 / slope;
    r.latency_s = (sy - slope * sx) / n;
  } else {  // no usable trend: the largest message's average rate
    const auto& last = *std::max_element(use.begin(), use.end());
    r.bandwidth_Bps = last.second > 0 ? last.first / last.second : 0;
  }
  return r;
}

nlohmann::json calibrate(const CalibrationOptions& o) {
  mpi::MpiWorld world;
  if (world.size() < 2) throw mpi::MpiError("quorum calibrate needs at least 2 ranks (mpirun -np 2 or more)");
  MpiSettings settings;  // message_bytes = logical: the padding makes the message sizes
  settings.timeout_s = 600;
  StragglerSpec none;
  Distribution zero;
  RankRuntime rt(world, ComputeModel(zero, StragglerModel(none, world.size(), o.seed), o.seed), settings);
  rt.set_native(std::make_unique<mpi::MpiAllreduce>(world.collectives(), true));
  MpiComm comm(rt, "calibrate");
  const int rank = rt.rank();

  // Where every rank runs.
  const std::string host = mpi::MpiEnvironment::processor_name();
  std::vector<char> names(static_cast<std::size_t>(world.size()) * MPI_MAX_PROCESSOR_NAME, '\0');
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  std::copy(host.begin(), host.end(), mine.begin());
  mpi::check(MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                           MPI_CHAR, world.control()),
             "MPI_Allgather (host names)");
  std::vector<std::string> hosts;
  for (int r = 0; r < world.size(); ++r) hosts.emplace_back(names.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  // The cores each host's ranks may run on (the widest affinity among them, as the wait mode reads it).
  const int own_cores = mpi::usable_cores();
  std::vector<int> cores_of_rank(static_cast<std::size_t>(world.size()));
  mpi::check(MPI_Allgather(&own_cores, 1, MPI_INT, cores_of_rank.data(), 1, MPI_INT, world.control()),
             "MPI_Allgather (cores)");
  std::map<std::string, int> cores_per_host;
  for (std::size_t r = 0; r < hosts.size(); ++r)
    cores_per_host[hosts[r]] = std::max(cores_per_host[hosts[r]], cores_of_rank[r]);
  rt.start_clock();

  // Nodes: by host name, or blocks of ranks_per_node ranks when the options say so.
  const std::vector<int> node = o.ranks_per_node > 0 ? nodes_in_blocks(world.size(), o.ranks_per_node)
                                                      : nodes_by_name(hosts);
  const int per_node = block_size(node);  // 0: the nodes are not equal blocks of consecutive ranks

  // Pairs: the first two ranks sharing a node, and rank 0 with the first rank elsewhere.
  std::vector<std::tuple<int, int, bool>> pairs;
  for (int a = 0; a < world.size() && pairs.empty(); ++a)
    for (int b = a + 1; b < world.size(); ++b)
      if (node[static_cast<std::size_t>(a)] == node[static_cast<std::size_t>(b)]) {
        pairs.emplace_back(a, b, true);
        break;
      }
  for (int b = 1; b < world.size(); ++b)
    if (node[static_cast<std::size_t>(b)] != node[0]) {
      pairs.emplace_back(0, b, false);
      break;
    }
  // Plain MPI's reference path: its own communicator, so that nothing it sends can match Comm's receives.
  MPI_Comm raw = MPI_COMM_NULL;
  mpi::check(MPI_Comm_dup(MPI_COMM_WORLD, &raw), "MPI_Comm_dup (plain MPI reference)");
  nlohmann::json pair_results = nlohmann::json::array();
  for (const auto& [a, b, same] : pairs) {
    const nlohmann::json p = to_rank0(world.control(), rank, a, measure_pair(comm, raw, a, b, same, o));
    if (rank == 0) pair_results.push_back(p);
    rt.quiet_barrier("MPI_Ibarrier (calibration)");
  }

  // Every rank at once: each sends to its right neighbour and receives from its left, which is what a ring
  // collective does. On one machine the copies share the memory system (and, with more ranks than cores, the CPU),
  // so the aggregate rate is far below ranks x the pair bandwidth; the platform models it as a shared link.
  nlohmann::json exchanges = nlohmann::json::array();
  double aggregate = 0;
  for (double bytes : {1048576.0, 4194304.0}) {
    std::vector<double> times, raw_times;
    for (int i = 0; i < 8; ++i) {
      rt.quiet_barrier("MPI_Ibarrier (calibration)");
      const double t = comm_shift_exchange(comm, 1, bytes);
      rt.quiet_barrier("MPI_Ibarrier (calibration)");
      const double raw_t = raw_shift_exchange(raw, 1, bytes);
      if (i >= 2) {
        times.push_back(t);
        raw_times.push_back(raw_t);
      }
    }
    const double t = median(times), raw_t = median(raw_times);
    const double rate = static_cast<double>(world.size()) * bytes / t;
    aggregate = std::max(aggregate, rate);
    exchanges.push_back({{"bytes_per_rank", bytes},
                         {"seconds", t},
                         {"aggregate_Bps", rate},
                         {"raw_mpi_seconds", raw_t},
                         {"raw_mpi_aggregate_Bps", static_cast<double>(world.size()) * bytes / raw_t}});
  }

  // Between nodes: every rank sends to the same rank of the next node at once, so each node's adapter carries all of
  // its ranks' messages each way, as in a collective's inter-node phase. The adapter's rate is ranks per node x bytes
  // over the slowest rank's time.
  nlohmann::json inter_node;
  if (per_node > 0 && per_node < world.size()) {
    const double bytes = 4194304.0;
    std::vector<double> times;
    for (int i = 0; i < 8; ++i) {
      rt.quiet_barrier("MPI_Ibarrier (calibration)");
      const double t = comm_shift_exchange(comm, per_node, bytes);
      if (i >= 2) times.push_back(t);
    }
    inter_node = {{"bytes_per_rank", bytes}, {"seconds", median(times)}, {"adapter_Bps", per_node * bytes / median(times)}};
  }

  // The CPU cost of a reduction (y += x over a vector larger than the caches), every rank at once as in a
  // collective: the butterflies pay it at every phase on the bytes they receive. The rate is what each rank gets
  // while all of them reduce: reps x bytes over the slowest rank's time, so that ranks sharing cores (or memory
  // bandwidth) see their share, not the speed of a rep that ran while the others were descheduled.
  constexpr int kReduceReps = 10;
  double reduce_time = 0, reduce_alone_time = 0;
  {
    std::vector<float> y(static_cast<std::size_t>(o.reduce_bytes / sizeof(float)), 1.0f), x(y.size(), 0.5f);
    vec::add(y, x);  // first touch of the pages outside the timed part
    rt.quiet_barrier("MPI_Ibarrier (calibration)");
    const double t0 = rt.now();
    for (int i = 0; i < kReduceReps; ++i) vec::add(y, x);
    const double own = rt.now() - t0;
    MPI_Allreduce(&own, &reduce_time, 1, MPI_DOUBLE, MPI_MAX, world.control());
    // Rank 0 alone, the others idle: with more ranks than cores, the model's shared cores give a lone rank a whole
    // core, reduce_Bps x ranks / cores; this is the figure to check that against.
    rt.quiet_barrier("MPI_Ibarrier (calibration)");
    if (rank == 0) {
      const double t1 = rt.now();
      for (int i = 0; i < kReduceReps; ++i) vec::add(y, x);
      reduce_alone_time = rt.now() - t1;
    }
    rt.quiet_barrier("MPI_Ibarrier (calibration)");
  }

  // The native allreduce (the backend's MPI_Allreduce path) by group size and message size: the localhost platform
  // charges it from this table (the simulated point-to-point ring is not Open MPI's algorithm).
  nlohmann::json allreduce = nlohmann::json::array();
  std::vector<int> group_sizes;
  for (int k = 2; k < world.size(); k *= 2) group_sizes.push_back(k);
  group_sizes.push_back(world.size());
  for (int members : group_sizes) {
    std::vector<int> ranks(static_cast<std::size_t>(members));
    for (int r = 0; r < members; ++r) ranks[static_cast<std::size_t>(r)] = r;
    const Group group(ranks);
    for (double bytes : o.native_sizes) {
      std::vector<float> data;
      std::vector<double> times;
      const int reps = bytes >= (4 << 20) ? 6 : 12;
      for (int i = 0; i < reps; ++i) {
        rt.quiet_barrier("MPI_Ibarrier (calibration)");
        if (rank >= members) continue;
        const double t0 = rt.now();
        rt.native()->allreduce_sum(comm, data, group, bytes, Channel::Benchmark);
        if (i >= 2) times.push_back(rt.now() - t0);
      }
      double own = median(times), slowest = 0;
      MPI_Allreduce(&own, &slowest, 1, MPI_DOUBLE, MPI_MAX, world.control());
      allreduce.push_back({{"ranks", members}, {"bytes", bytes}, {"seconds", slowest}});
    }
  }
  // Disjoint groups reducing at once (as Prague's and WAGMA's groups do): world / k groups of k consecutive ranks, each
  // its own MPI_Allreduce. The table above timed one group alone; the model shares the cores among concurrent groups,
  // and these times show how far that holds here.
  nlohmann::json concurrent_groups = nlohmann::json::array();
  for (int members : group_sizes) {
    if (members >= world.size() || world.size() % members != 0) continue;
    std::vector<int> ranks(static_cast<std::size_t>(members));
    const int first = rank / members * members;
    for (int r = 0; r < members; ++r) ranks[static_cast<std::size_t>(r)] = first + r;
    const Group group(ranks);
    std::vector<double> sizes = {o.native_sizes.back()};  // the largest (with --scenario: the model's size, if largest)
    if (sizes.front() > 1048576.0) sizes.insert(sizes.begin(), 1048576.0);
    for (double bytes : sizes) {
      std::vector<float> data;
      std::vector<double> times;
      for (int i = 0; i < 8; ++i) {
        rt.quiet_barrier("MPI_Ibarrier (calibration)");
        const double t0 = rt.now();
        rt.native()->allreduce_sum(comm, data, group, bytes, Channel::Benchmark);
        if (i >= 2) times.push_back(rt.now() - t0);
      }
      double own = median(times), slowest = 0;
      MPI_Allreduce(&own, &slowest, 1, MPI_DOUBLE, MPI_MAX, world.control());
      concurrent_groups.push_back({{"ranks", members}, {"groups", world.size() / members}, {"bytes", bytes},
                            {"seconds", slowest}});
    }
  }
  MPI_Comm_free(&raw);

  // Sleep precision (emulated compute is a sleep), all ranks at once.
  double overshoot = 0;
  for (int i = 0; i < 20; ++i) {
    const double target = rt.now() + 0.005;
    rt.sleep_until(target);
    overshoot += rt.now() - target;
  }
  overshoot /= 20;
  double overshoot_sum = 0;
  MPI_Reduce(&overshoot, &overshoot_sum, 1, MPI_DOUBLE, MPI_SUM, 0, world.control());

  // The proxy's step time: every rank at once (what a run sees), then rank 0 alone.
  std::shared_ptr<const MathSetup> math =
      o.proxy && o.proxy->enabled() ? make_math_setup(*o.proxy, o.seed) : default_proxy(o.seed);
  Trainer trainer(math, rank, world.size());
  rt.quiet_barrier("MPI_Ibarrier (calibration)");
  const double concurrent = proxy_step_time(trainer, o.proxy_steps, rt);
  std::vector<double> all(static_cast<std::size_t>(world.size()));
  MPI_Gather(&concurrent, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, world.control());
  rt.quiet_barrier("MPI_Ibarrier (calibration)");
  double solo = 0;
  if (rank == 0) solo = proxy_step_time(trainer, o.proxy_steps, rt);
  rt.quiet_barrier("MPI_Ibarrier (calibration)");

  nlohmann::json out;
  if (rank == 0) {
    // The platform figures: the same-node pair's, and the inter-node pair's and adapters' when the job spans nodes
    // in equal blocks (a cluster of such nodes). Nodes of unequal or interleaved ranks cannot be placed that way:
    // the figures then come from the inter-node pair, as one star (collectives on a cluster are bound by the
    // network).
    const nlohmann::json* same = nullptr;
    const nlohmann::json* across = nullptr;
    for (const auto& p : pair_results) (p["same_node"].get<bool>() ? same : across) = &p;
    const bool cluster = across != nullptr && !inter_node.is_null();
    const nlohmann::json* chosen = cluster || across == nullptr ? same : across;
    if (chosen == nullptr) chosen = across;
    if (cluster) {
      inter_node["latency_s"] = (*across)["latency_s"];
      inter_node["pair_bandwidth_Bps"] = (*across)["bandwidth_Bps"];
    }
    std::map<std::string, int> per_host;
    for (const auto& h : hosts) ++per_host[h];
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    out = {{"latency_s", (*chosen)["latency_s"]},
           {"bandwidth_Bps", (*chosen)["bandwidth_Bps"]},
           {"figures_from", cluster ? (same ? "same-node pair; between nodes: inter_node"
                                            : "inter-node pair (a rank per node); between nodes: inter_node")
                            : (*chosen)["same_node"].get<bool>() ? "same-node pair"
                                                                 : "inter-node pair (nodes not in equal blocks: one star)"},
           {"proxy_model", math->model->name() + " on " + math->train->name() + ", batch " +
                               std::to_string(math->config.batch)},
           {"proxy_step_s", median(all)},
           {"proxy_step_solo_s", solo},
           {"sleep_overshoot_s", overshoot_sum / world.size()},
           {"aggregate_bandwidth_Bps", aggregate},
           {"reduce_Bps", kReduceReps * o.reduce_bytes / reduce_time},
           {"reduce_alone_Bps", kReduceReps * o.reduce_bytes / reduce_alone_time},
           {"cores", cores_per_host.at(hosts[0])},
           {"node_of_rank", node},
           {"cores_per_host", cores_per_host},
           {"native_allreduce_concurrent", concurrent_groups},
           {"concurrent_exchange", exchanges},
           {"native_allreduce", allreduce},
           {"pairs", pair_results},
           {"ranks", world.size()},
           {"hosts", per_host},
           {"measured_with",
            "quorum calibrate: ping-pong through Comm (MPI backend: header + padded data message, progress thread), "
            "one-way time = half the median round trip; bandwidth from a least-squares fit over 64 KiB and up; "
            "raw_mpi: the same with MPI_Send/MPI_Recv; reduce_Bps: bytes of a float vector summed into another per "
            "second and rank, every rank at once (slowest rank's time); reduce_alone_Bps: the same, rank 0 alone; cores: the "
            "widest affinity mask among rank 0's host's ranks; native_allreduce: slowest member's median time per "
            "group size and bytes, one group alone; native_allreduce_concurrent: the same with world / ranks groups at "
            "once"},
           {"mpi_library", mpi::MpiEnvironment::library_version()},
           {"quorum_version", kVersion},
           {"date", date}};
    if (cluster) {
      out["ranks_per_node"] = per_node;
      out["inter_node"] = inter_node;
    }
  }
  return out;
}

}  // namespace quorum::calibration
