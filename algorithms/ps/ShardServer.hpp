#pragma once
// The parameter-server protocol shared by the asynchronous parameter server (async_ps) and EAMSGD (eamsgd): ranks
// 0 .. shards-1 are servers and hold one shard each of a model cut by BlockPartition (the real values and the
// simulated bytes in the same proportions); ranks shards .. P-1 are workers. A worker pushes one message to every
// server and receives one reply from each; what a push carries and what a server does with it (apply a gradient,
// or move the centre variable elastically toward the worker's model) is the algorithm's, passed in as a handler.
// A worker marks its last push, so servers know when everyone is done and stop without a termination protocol; then
// every server sends its final shard to every rank, so all ranks end with the servers' model.
//
// One receive is posted per worker (each has at most one push in flight), so pushes from many workers stream in at
// once and share the server's link, as the many connections of a real server do; they are handled in the order
// they complete, one at a time (each push's update is atomic with respect to the others).
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/AlgorithmParams.hpp"
#include "algorithms/RankContext.hpp"
#include "algorithms/collectives/Partition.hpp"
#include "algorithms/comm/Tag.hpp"

namespace quorum {

// A sharded-server algorithm's run: on one rank there is no one to serve, and the rank trains alone (plain SGD);
// otherwise ranks below `servers` run `serve` and the others `work`, both on the model cut into `servers` blocks.
void run_servers_and_workers(RankContext& ctx, int servers,
                             const std::function<void(const BlockPartition&)>& serve,
                             const std::function<void(const BlockPartition&)>& work);

// The `servers` parameter of such an algorithm: an error message if it leaves no worker (empty if fine), and the
// server ranks (AlgorithmInfo::validate and ::service_ranks).
std::string check_servers(const AlgorithmParams& params, int world_size);
std::vector<int> server_ranks(const AlgorithmParams& params, int world_size);

// A push, as the server's handler sees it: the worker's values for this shard and the worker's local step.
struct ShardPush {
  int worker = -1;
  std::int64_t step = 0;
  std::span<const float> values;
};

// Updates the server's shard with one push and writes the values replied to the pushing worker into `reply` (a vector
// of an earlier push, reused for its capacity: assign to it, do not append).
using ShardPushHandler = std::function<void(std::span<float> shard, const ShardPush& push, std::vector<float>& reply)>;

// What one server did: pushes handled (= updates of its shard).
struct ShardServeStats {
  std::int64_t updates = 0;
};

// Serves this server rank's shard (its rank's block of `part`) until every worker has sent its last push, then
// hands the final shard to every rank and assembles the whole model from the other servers. Records the histogram
// `staleness_metric`: updates of the shard by other workers between a worker's previous reply and its push.
ShardServeStats serve_shard(RankContext& ctx, const BlockPartition& part, const ShardPushHandler& handle,
                            const std::string& staleness_metric);

// A worker's side: remembers the version of each shard it last heard of, so servers can report staleness.
class ShardClient {
 public:
  ShardClient(Comm& comm, const BlockPartition& part);
  // Pushes values[begin_of(s) .. end_of(s+1)) to each server s (an empty vector: math off, only the bytes move)
  // and waits for every reply; returns the replies' values, one vector per server, valid until the next exchange,
  // whose pushes travel in them. `last`: the worker's final push.
  const std::vector<std::vector<float>>& exchange(const std::vector<float>& values, std::int64_t step, bool last);
  // After the last push: the final model from the servers, written into `model`.
  void receive_final_model(std::vector<float>& model);

 private:
  Comm& comm_;
  BlockPartition part_;
  std::vector<std::int64_t> version_;  // of each shard, as of this worker's last reply
  std::vector<std::vector<float>> replies_;  // the last exchange's replies, one per server
};

}  // namespace quorum
