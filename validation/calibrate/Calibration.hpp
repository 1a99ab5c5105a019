#pragma once
// quorum calibrate: measures, under mpirun, what the simulator's localhost platform needs to predict this machine
// (or a cluster's nodes): point-to-point latency and bandwidth between ranks through the same Comm path the
// algorithms use (headers, data messages, the progress thread), and the proxy model's step time. Also records what
// helps explain a prediction that misses: sleep overshoot, native allreduce times, hosts.
//
// Pairs measured: two ranks on the same node and, if the job spans several nodes, rank 0 and the first rank on
// another node. Nodes are hosts (by name), or blocks of ranks_per_node ranks when that is given. When the nodes hold
// equal blocks of consecutive ranks, the platform figures (latency_s, bandwidth_Bps, and everything measured on one
// node) are a node's, and `inter_node` holds the inter-node pair's latency and the adapters' rate with every rank
// sending off its node at once: a multi-node localhost platform. Otherwise the inter-node pair's figures make one
// star.
#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

#include "kernels/MathSetup.hpp"

namespace quorum::calibration {

struct CalibrationOptions {
  std::vector<double> sizes = {4096, 65536, 262144, 1 << 20, 4 << 20, 16 << 20};  // bandwidth fit, bytes
  int latency_round_trips = 300;
  double seconds_per_size = 0.15;  // time budget per message size and pair
  std::optional<MathConfig> proxy;  // the proxy whose step time to measure (default: softmax, else hyperplane)
  std::uint64_t seed = 1;
  int proxy_steps = 30;
  std::vector<double> native_sizes = {4096, 65536, 1 << 20, 4 << 20, 16 << 20};  // native allreduce table, bytes
  double reduce_bytes = 16 << 20;  // vector summed to measure the reduction rate
  // Ranks per node, in rank order (0: nodes are the hosts). Given, it treats blocks of ranks as nodes: a cluster whose
  // host names do not tell its nodes apart, or the multi-node path checked on one machine.
  int ranks_per_node = 0;
};

// Collective over MPI_COMM_WORLD (at least 2 ranks). The result is complete on rank 0 only.
nlohmann::json calibrate(const CalibrationOptions& options);

// Least-squares fit of one-way time = latency + bytes / bandwidth over (bytes, seconds) points.
struct AlphaBeta {
  double latency_s = 0, bandwidth_Bps = 0;
};
AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>>& points);

}  // namespace quorum::calibration
