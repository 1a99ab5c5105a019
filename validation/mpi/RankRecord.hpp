#pragma once
// What each rank sends rank 0 at the end of a run on MPI: its StepRecords, metrics, histograms, table rows, timeline
// spans, evaluation snapshots (sums of its own parameters), final parameters and backend statistics. Encoded as CBOR
// (doubles and floats round-trip exactly), gathered with MPI_Gatherv, merged by rank 0 into one RunRecorder, from
// which the usual summary.json and iterations.csv are written.
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "sim/model/RunRecorder.hpp"

namespace quorum::mpi {

nlohmann::json encode_rank_record(const RunRecorder& recorder, int rank, const std::vector<float>& params,
                                  const nlohmann::json& backend_stats);
// Adds a rank's record to merged; appends its final parameters to params and returns its backend statistics.
nlohmann::json merge_rank_record(const nlohmann::json& record, RunRecorder& merged,
                                 std::vector<std::vector<float>>& params);

// Gathers one JSON value per rank at root (collective over comm); other ranks get an empty vector.
std::vector<nlohmann::json> gather_json(MPI_Comm comm, int root, const nlohmann::json& mine);

}  // namespace quorum::mpi
