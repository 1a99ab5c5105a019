// quorum sweep SCENARIO [--vary FIELD=V1,V2,...]... [--zip F1,F2]... [--set K=V]... [-j N] [--out DIR]
//                       [--shard I/N | --mpi | --collect] [--force] [--dry-run] [--trace ...] [--quiet]
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

#include "cli/Commands.hpp"
#include "cli/ScenarioRunner.hpp"
#include "cli/SweepMpi.hpp"
#include "cli/SweepRunner.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/Sweep.hpp"
#include "sim/model/SweepResults.hpp"

namespace quorum::cli {

namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> vary, zip, sets;
  int jobs = 0;
  std::string out;
  std::string shard;
  bool mpi = false, collect = false, force = false, dry_run = false, quiet = false;
  TraceFlags trace;
};

// The fields of the scenario's sweep.vary in the file's order (nlohmann::json sorts object keys).
std::vector<std::string> vary_order(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> order;
  try {
    const auto j = nlohmann::ordered_json::parse(in, nullptr, true, /*ignore_comments=*/true);
    if (j.contains("sweep") && j["sweep"].is_object() && j["sweep"].contains("vary") && j["sweep"]["vary"].is_object())
      for (const auto& [key, value] : j["sweep"]["vary"].items()) order.push_back(key);
  } catch (const nlohmann::json::exception&) {
    // read_scenario_json reports malformed files.
  }
  return order;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

struct SweepDefinition {
  nlohmann::json base;
  SweepSpec spec;
  std::vector<SweepPoint> points;
  std::string base_dir;
  std::string out;
};

SweepDefinition define_sweep(const SweepOptions& o) {
  SweepDefinition d;
  std::vector<std::string> sets = o.sets;
  for (auto& a : trace_assignments(o.trace)) sets.push_back(std::move(a));
  ScenarioDocument doc = read_scenario_document(o.scenario, sets);
  d.base = std::move(doc.json);
  d.base_dir = std::move(doc.base_dir);
  if (d.base.is_object() && d.base.contains("sweep")) d.spec = parse_sweep_block(d.base["sweep"], vary_order(o.scenario));
  for (const auto& v : o.vary) add_axis(d.spec, parse_vary_option(v));
  for (const auto& z : o.zip) zip_axes(d.spec, split_commas(z), "--zip " + z);
  d.points = expand_sweep(d.base, d.spec);
  const std::string name = d.base.is_object() && d.base.contains("name") && d.base["name"].is_string()
                               ? d.base["name"].get<std::string>()
                               : std::string("scenario");
  d.out = o.out.empty() ? "results/" + name : o.out;
  return d;
}

nlohmann::json sweep_description(const SweepOptions& o, const SweepDefinition& d) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : d.spec.axes) axes.push_back({{"fields", a.fields}, {"values", a.values}});
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& p : d.points) ids.push_back(p.id);
  nlohmann::json base = d.base;
  if (base.is_object()) base.erase("sweep");
  return {{"scenario_file", o.scenario}, {"base_dir", d.base_dir}, {"base", base}, {"axes", axes},
          {"columns", sweep_columns(d.points)}, {"points", ids}};
}

// Each point's outcome as the directory shows it, overlaid with outcomes known from this run (or from MPI ranks).
std::vector<PointOutcome> collect_outcomes(const SweepDefinition& d, const std::map<std::size_t, PointOutcome>& known) {
  std::vector<PointOutcome> all;
  all.reserve(d.points.size());
  for (const auto& p : d.points) {
    const auto it = known.find(p.index);
    all.push_back(it != known.end() ? it->second
                                    : read_point_outcome(point_dir(d.out, p), point_record(p, d.base_dir)));
  }
  return all;
}

int write_table(const SweepOptions& o, const SweepDefinition& d, const std::vector<PointOutcome>& all) {
  fs::create_directories(d.out);
  write_file_atomic(d.out + "/sweep.csv", format_sweep_csv(d.points, all));
  write_file_atomic(d.out + "/sweep.json", sweep_description(o, d).dump(2) + "\n");
  std::size_t ok = 0, failed = 0, missing = 0;
  for (const auto& a : all) {
    if (a.status == PointOutcome::Status::Ok) ++ok;
    else if (a.status == PointOutcome::Status::Failed) ++failed;
    else ++missing;
  }
  std::cout << "sweep " << d.out << ": " << d.points.size() << " points: " << ok << " ok, " << failed << " failed";
  if (missing) std::cout << ", " << missing << " not run yet";
  std::cout << "\nresults: " << d.out << "/sweep.csv (one row per point), " << d.out << "/points/<point>/\n";
  return failed + missing > 0 ? kExitRunFailed : kExitOk;
}

int sweep(const SweepOptions& o) {
  if (static_cast<int>(o.mpi) + static_cast<int>(!o.shard.empty()) + static_cast<int>(o.collect) > 1) {
    std::cerr << "error: --mpi, --shard and --collect exclude each other\n";
    return kExitBadInput;
  }
  SweepDefinition d;
  Shard shard;
  try {
    d = define_sweep(o);
    if (!o.shard.empty()) shard = parse_shard(o.shard);
  } catch (const ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }

  std::unique_ptr<MpiSweepSession> mpi;
  if (o.mpi) {
    if (!MpiSweepSession::available()) {
      std::cerr << "error: --mpi: this quorum was built without MPI (install Open MPI, e.g. Debian's libopenmpi-dev, "
                   "and reconfigure); use --shard I/N to split a sweep over several jobs instead\n";
      return kExitBadInput;
    }
    mpi = std::make_unique<MpiSweepSession>();
    shard = {mpi->rank(), mpi->size()};
  }
  const bool root = !mpi || mpi->rank() == 0;

  if (o.collect) return write_table(o, d, collect_outcomes(d, {}));

  // This share's points: finished ones are skipped, invalid ones recorded as failed, the rest become jobs.
  std::vector<SweepJob> jobs;
  SweepRunStats stats;
  std::map<std::size_t, PointOutcome> outcomes;
  std::vector<std::string> invalid_messages;
  for (const auto& p : d.points) {
    if (!shard.owns(p.index)) continue;
    ++stats.total;
    const std::string dir = point_dir(d.out, p);
    const nlohmann::json record = point_record(p, d.base_dir);
    if (!o.force && point_is_done(dir, record)) {
      ++stats.skipped;
      if (o.dry_run) std::cout << "done     " << p.id << "\n";
      // Kept for the table: under MPI, rank 0 may not see this rank's files.
      else outcomes[p.index] = read_point_outcome(dir, record);
      continue;
    }
    try {
      Scenario s = parse_scenario(p.scenario, d.base_dir);
      const double cost = static_cast<double>(s.ranks) * static_cast<double>(s.iterations);
      if (o.dry_run) std::cout << "to run   " << p.id << "\n";
      jobs.push_back({p.index, p.id, dir, record, std::move(s), std::max(cost, 1.0)});
    } catch (const ScenarioError& e) {
      ++stats.invalid;
      if (o.dry_run) {
        std::cout << "invalid  " << p.id << ": " << e.what() << "\n";
        continue;
      }
      invalid_messages.push_back("[sweep] FAILED " + p.id + ": " + e.what());
      prepare_point_dir(dir, record);
      write_point_failure(dir, e.what());
      outcomes[p.index] = PointOutcome{PointOutcome::Status::Failed, e.what(), nullptr};
    }
  }
  if (o.dry_run) {
    std::cout << d.points.size() << " points in the sweep, " << stats.total << " in this share: " << stats.skipped
              << " done, " << jobs.size() << " to run, " << stats.invalid << " invalid\n";
    return stats.invalid ? kExitBadInput : kExitOk;
  }

  const int parallel = o.jobs > 0 ? o.jobs : (o.mpi ? 1 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  if (!o.quiet)
    std::cerr << "[sweep] " << d.points.size() << " points"
              << (shard.count > 1 ? ", shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) +
                                        " has " + std::to_string(stats.total)
                                  : std::string())
              << ": " << stats.skipped << " already done, " << jobs.size() << " to run, " << parallel
              << " at a time -> " << d.out << "\n";
  for (const auto& m : invalid_messages) std::cerr << m << "\n";
  fs::create_directories(d.out);
  auto ran = run_sweep_jobs(std::move(jobs), parallel, stats, o.quiet);
  outcomes.merge(ran);
  if (stats.interrupted) std::cerr << "[sweep] interrupted: run the same command again to resume\n";

  int status = stats.failed + stats.invalid > 0 ? kExitRunFailed : kExitOk;
  if (mpi) {
    // Rank 0 gathers every rank's outcomes: sweep.csv is complete even where ranks do not share a file system.
    nlohmann::json mine = nlohmann::json::object();
    for (const auto& [index, outcome] : outcomes) mine[std::to_string(index)] = outcome_to_json(outcome);
    const auto gathered = mpi->gather_to_root(mine.dump());
    int worst = status;
    if (root) {
      std::map<std::size_t, PointOutcome> all;
      for (const auto& text : gathered) {
        const nlohmann::json rank_outcomes = nlohmann::json::parse(text);
        for (const auto& [index, outcome] : rank_outcomes.items()) all[std::stoul(index)] = outcome_from_json(outcome);
      }
      worst = write_table(o, d, collect_outcomes(d, all));
    }
    status = mpi->broadcast_status(worst);
  } else if (shard.count == 1) {
    const int table_status = write_table(o, d, collect_outcomes(d, outcomes));
    status = std::max(status, table_status);
  } else if (!o.quiet) {
    std::cout << "shard " << shard.index << "/" << shard.count << ": " << stats.ok << " ok, " << stats.failed + stats.invalid
              << " failed, " << stats.skipped << " skipped; when every shard is done, `quorum sweep ... --collect` "
              << "writes " << d.out << "/sweep.csv\n";
  }
  if (stats.interrupted) return 130;
  return status;
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a scenario over the cartesian product of varied fields, in parallel processes, resumably; "
               "write sweep.csv (one row per point)");
  cmd->add_option("scenario", options->scenario, "scenario JSON file (its \"sweep\" block, if any, adds axes)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--vary", options->vary,
                  "vary a field over values, e.g. --vary platform.nodes=4,8,16 or --vary 'imbalance=[{...},{...}]'; "
                  "several --vary give the cartesian product")
      ->type_name("FIELD=V1,V2,...");
  cmd->add_option("--zip", options->zip,
                  "vary these fields together instead of crossing them (same number of values), e.g. "
                  "--zip platform.nodes,workload.iterations")
      ->type_name("F1,F2,...");
  cmd->add_option("--set", options->sets, "override a field of every point, e.g. --set math.model=none")
      ->type_name("KEY=VALUE");
  cmd->add_option("-j,--jobs", options->jobs, "points run at a time (default: the number of cores; 1 per rank with --mpi)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--out", options->out, "sweep directory (default: results/<scenario name>)");
  cmd->add_option("--shard", options->shard, "run only the I-th of N slices of the points (0 <= I < N), e.g. "
                                             "--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT")
      ->type_name("I/N");
  cmd->add_flag("--mpi", options->mpi, "under mpirun: every MPI rank runs its share, rank 0 writes sweep.csv");
  cmd->add_flag("--collect", options->collect, "run nothing; write sweep.csv from the points found on disk "
                                               "(after sharded runs)");
  cmd->add_flag("--force", options->force, "run every point again, even those already finished");
  cmd->add_flag("--dry-run", options->dry_run, "list the points and whether they would run; run nothing");
  cmd->add_flag("--quiet", options->quiet, "no progress on stderr (failures are still reported)");
  add_trace_options(*cmd, options->trace);
  cmd->callback([options, &exit_code] { exit_code = sweep(*options); });
}

}  // namespace quorum::cli
