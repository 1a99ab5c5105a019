#include "validation/mpi/RankRecord.hpp"

#include <climits>
#include <limits>

#include "validation/mpi/MpiError.hpp"

namespace quorum::mpi {

nlohmann::json encode_rank_record(const RunRecorder& recorder, int rank, const std::vector<float>& params,
                                  const nlohmann::json& backend_stats) {
  nlohmann::json j;
  j["rank"] = rank;
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : recorder.steps())
    steps.push_back({s.rank, s.step, s.start_s, s.compute_s, s.comm_s, s.wait_s});
  j["steps"] = std::move(steps);
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, m] : recorder.metrics()) metrics[name] = {m.count, m.sum, m.min, m.max};
  j["metrics"] = std::move(metrics);
  nlohmann::json histograms = nlohmann::json::array();
  for (const auto& [name, counts] : recorder.histograms())
    for (const auto& [bucket, count] : counts) histograms.push_back({name, bucket, count});
  j["histograms"] = std::move(histograms);
  nlohmann::json tables = nlohmann::json::object();
  for (const auto& [name, t] : recorder.tables()) tables[name] = {{"columns", t.columns}, {"rows", t.rows}};
  j["tables"] = std::move(tables);
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& s : recorder.spans()) spans.push_back({s.rank, s.agent, s.category, s.name, s.start_s, s.end_s});
  j["spans"] = std::move(spans);
  nlohmann::json snapshots = nlohmann::json::array();
  for (const auto& [step, snap] : recorder.snapshots())
    snapshots.push_back({{"step", step}, {"sum", snap.sum}, {"sum_sq", snap.sum_sq}, {"count", snap.count}, {"time_s", snap.time_s}});
  j["snapshots"] = std::move(snapshots);
  j["params"] = params;
  j["backend"] = backend_stats;
  return j;
}

nlohmann::json merge_rank_record(const nlohmann::json& j, RunRecorder& merged, std::vector<std::vector<float>>& params) {
  for (const auto& s : j["steps"])
    merged.step_done(StepRecord{s[0].get<int>(), s[1].get<std::int64_t>(), s[2].get<double>(), s[3].get<double>(),
                                s[4].get<double>(), s[5].get<double>()});
  for (const auto& [name, m] : j["metrics"].items()) {
    MetricStats stats;
    stats.count = m[0].get<std::int64_t>();
    stats.sum = m[1].get<double>();
    stats.min = m[2].get<double>();
    stats.max = m[3].get<double>();
    merged.merge_metric(name, stats);
  }
  for (const auto& h : j["histograms"])
    merged.merge_histogram(h[0].get<std::string>(), h[1].get<std::int64_t>(), h[2].get<std::int64_t>());
  for (const auto& [name, t] : j["tables"].items()) {
    const auto columns = t["columns"].get<std::vector<std::string>>();
    for (const auto& row : t["rows"]) {
      std::vector<std::pair<std::string, double>> cells;
      for (std::size_t i = 0; i < columns.size(); ++i) cells.emplace_back(columns[i], row[i].get<double>());
      merged.table_row(name, cells);
    }
  }
  if (!j["spans"].empty() && !merged.trace_options().enabled) {
    // Each rank's recorder already applied the scenario's rank, step and size selection.
    TraceOptions keep_all;
    keep_all.enabled = true;
    keep_all.max_events = std::numeric_limits<std::int64_t>::max();
    merged.enable_tracing(keep_all);
  }
  for (const auto& s : j["spans"])
    merged.span(TraceSpan{s[0].get<int>(), s[1].get<int>(), s[2].get<std::string>(), s[3].get<std::string>(),
                          s[4].get<double>(), s[5].get<double>()});
  for (const auto& s : j["snapshots"]) {
    ModelSnapshot snap;
    snap.sum = s["sum"].get<std::vector<double>>();
    snap.sum_sq = s["sum_sq"].get<double>();
    snap.count = s["count"].get<int>();
    snap.time_s = s["time_s"].get<double>();
    merged.merge_snapshot(s["step"].get<std::int64_t>(), snap);
  }
  params.push_back(j["params"].get<std::vector<float>>());
  return j["backend"];
}

std::vector<nlohmann::json> gather_json(MPI_Comm comm, int root, const nlohmann::json& mine) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(mine);
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw MpiError("a rank's record of the run is larger than 2 GiB; write fewer iterations or disable snapshots");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int count = static_cast<int>(bytes.size());
  std::vector<int> counts(rank == root ? static_cast<std::size_t>(size) : 0);
  check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm), "MPI_Gather (record sizes)");
  std::vector<int> offsets;
  std::vector<std::uint8_t> all;
  if (rank == root) {
    offsets.resize(counts.size());
    long long total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      offsets[i] = static_cast<int>(total);
      total += counts[i];
    }
    if (total > INT_MAX) throw MpiError("the ranks' records of the run exceed 2 GiB together");
    all.resize(static_cast<std::size_t>(total));
  }
  check(MPI_Gatherv(bytes.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, root, comm),
        "MPI_Gatherv (records)");
  std::vector<nlohmann::json> out;
  if (rank == root)
    for (std::size_t i = 0; i < counts.size(); ++i)
      out.push_back(nlohmann::json::from_cbor(all.begin() + offsets[i], all.begin() + offsets[i] + counts[i]));
  return out;
}

}  // namespace quorum::mpi
