#include "cli/SweepRunner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/Commands.hpp"
#include "cli/ScenarioRunner.hpp"
#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/RankRunner.hpp"

namespace quorum::cli {

namespace {

volatile std::sig_atomic_t stop_requested = 0;
extern "C" void request_stop(int) { stop_requested = 1; }

// Catches SIGINT and SIGTERM while a sweep runs (without SA_RESTART, so that waiting returns at once).
class StopSignals {
 public:
  StopSignals() {
    stop_requested = 0;
    struct sigaction sa{};
    sa.sa_handler = request_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_{}, old_term_{};
};

std::string clock_text(double seconds) {
  if (seconds < 0) return "--";
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%llds", s);
  return buf;
}

std::string first_line(const std::string& text) {
  const auto nl = text.find('\n');
  return nl == std::string::npos ? text : text.substr(0, nl) + " ...";
}

// The progress line: on a terminal one line rewritten in place; in a log, one line per finished point.
class Progress {
 public:
  Progress(const SweepRunStats& stats, double total_cost, bool quiet)
      : stats_(stats), total_cost_(total_cost), quiet_(quiet), tty_(::isatty(STDERR_FILENO) == 1),
        started_(std::chrono::steady_clock::now()) {}

  void point_finished(const std::string& id, bool ok, double cost, double wall_s, const std::string& error) {
    done_cost_ += cost;
    if (!ok) {
      clear();
      std::fprintf(stderr, "[sweep] FAILED %s: %s\n", id.c_str(), first_line(error).c_str());
    } else if (!quiet_ && !tty_) {
      std::fprintf(stderr, "%s: ok %s (%.1f s)\n", status().c_str(), id.c_str(), wall_s);
    }
    refresh(true);
  }

  void refresh(bool force = false) {
    if (quiet_ || !tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const std::string line = status();
    std::fprintf(stderr, "\r%s%s", line.c_str(), std::string(width_ > line.size() ? width_ - line.size() : 0, ' ').c_str());
    width_ = line.size();
    std::fflush(stderr);
  }

  void finish() { clear(); }

  std::size_t running = 0;

 private:
  std::string status() const {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    // ETA from the cost finished in this run: big points weigh more than small ones.
    const double eta = done_cost_ > 0 ? elapsed * (total_cost_ - done_cost_) / done_cost_ : -1;
    const std::size_t finished = stats_.skipped + stats_.invalid + stats_.ok + stats_.failed;
    char buf[256];
    std::snprintf(buf, sizeof buf, "[sweep] %zu/%zu points done (%zu skipped), %zu failed, %zu running, %s elapsed, ETA %s",
                  finished, stats_.total, stats_.skipped, stats_.invalid + stats_.failed, running,
                  clock_text(elapsed).c_str(), finished == stats_.total ? "0s" : clock_text(eta).c_str());
    return buf;
  }
  void clear() {
    if (tty_ && width_ > 0) {
      std::fprintf(stderr, "\r%s\r", std::string(width_, ' ').c_str());
      width_ = 0;
    }
  }

  const SweepRunStats& stats_;
  double total_cost_;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point started_, last_{};
  double done_cost_ = 0;
  std::size_t width_ = 0;
};

PointOutcome outcome_of(const SweepJob& job, const ChildResult& child) {
  PointOutcome o;
  if (child.exit_code == kExitOk) {
    std::ifstream in(job.dir + "/summary.json");
    try {
      o.summary = nlohmann::json::parse(in);
      o.status = PointOutcome::Status::Ok;
      return o;
    } catch (const nlohmann::json::exception& e) {
      o.error = std::string("the run ended but its summary.json is unreadable: ") + e.what();
    }
  } else if (!child.error_text.empty()) {
    o.error = child.error_text;
  } else if (child.signal != 0) {
    o.error = "the simulation process was killed by signal " + std::to_string(child.signal) +
              (child.signal == SIGKILL ? " (out of memory?)" : "");
  } else {
    o.error = "the simulation process exited with status " + std::to_string(child.exit_code);
  }
  o.status = PointOutcome::Status::Failed;
  return o;
}

}  // namespace

std::map<std::size_t, PointOutcome> run_sweep_jobs(std::vector<SweepJob> jobs, int parallel, SweepRunStats& stats,
                                                   bool quiet) {
  const auto started = std::chrono::steady_clock::now();
  // Largest first: the last points to finish are then small ones, which shortens the tail of a parallel sweep.
  std::stable_sort(jobs.begin(), jobs.end(), [](const SweepJob& a, const SweepJob& b) { return a.cost > b.cost; });
  double total_cost = 0;
  for (const auto& j : jobs) total_cost += j.cost;

  std::map<std::size_t, PointOutcome> outcomes;
  Progress progress(stats, total_cost, quiet);
  StopSignals signals;
  ChildPool pool;
  std::map<int, std::size_t> running;  // child id -> job
  std::map<std::size_t, std::chrono::steady_clock::time_point> started_at;
  std::size_t next = 0;
  parallel = std::max(parallel, 1);

  while (next < jobs.size() || pool.running() > 0) {
    while (!stop_requested && next < jobs.size() && static_cast<int>(pool.running()) < parallel) {
      const SweepJob& job = jobs[next];
      prepare_point_dir(job.dir, job.record);
      const int id = pool.start([&job, parallel] {
        Scenario s = job.scenario;
        s.progress = false;
        // Points running side by side share the cores: each gets its share for its math (math.threads: 0, auto).
        if (s.math.threads == 0)
          s.math.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / parallel);
        try {
          simulate_to_dir(s, job.dir);
          return kExitOk;
        } catch (const SimulationError& e) {
          report_error(std::string("simulation failed: ") + e.what());
          return kExitRunFailed;
        }
      });
      running[id] = next;
      started_at[next] = std::chrono::steady_clock::now();
      ++next;
    }
    progress.running = pool.running();
    progress.refresh();
    if (stop_requested) break;
    const auto finished = pool.wait_any(0.5);
    if (!finished) continue;
    const std::size_t j = running.at(finished->first);
    running.erase(finished->first);
    const SweepJob& job = jobs[j];
    PointOutcome outcome = outcome_of(job, finished->second);
    if (outcome.status == PointOutcome::Status::Ok) ++stats.ok;
    else {
      ++stats.failed;
      write_point_failure(job.dir, outcome.error);
    }
    progress.running = pool.running();
    progress.point_finished(job.id, outcome.status == PointOutcome::Status::Ok, job.cost,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at[j]).count(),
                            outcome.error);
    outcomes[job.index] = std::move(outcome);
  }

  if (stop_requested) {
    // Stop the running points; they leave no summary.json, so a rerun does them again.
    stats.interrupted = true;
    pool.signal_all(SIGTERM);
    while (pool.running() > 0) pool.wait_any(-1);
  }
  progress.finish();
  stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcomes;
}

}  // namespace quorum::cli
