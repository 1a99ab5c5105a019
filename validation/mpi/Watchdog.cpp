#include "validation/mpi/Watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "validation/mpi/FatalSignals.hpp"
#include "validation/mpi/MpiEnvironment.hpp"

namespace quorum::mpi {

namespace {
constexpr int kHeartbeatTag = 7001;
constexpr int kHeartbeatInts = 5;  // step, steps done, microseconds in the step, activity, microseconds in it

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* activity_name(int a) {
  switch (a) {
    case 1: return "computing";
    case 2: return "waiting for messages";
    default: return "running";
  }
}

std::string fixed(double v, int digits = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
}  // namespace

Watchdog::Watchdog(RankRuntime& runtime, MPI_Comm comm, WatchdogOptions options)
    : runtime_(runtime),
      comm_(comm),
      options_(std::move(options)),
      beats_(static_cast<std::size_t>(runtime.size())),
      outgoing_(new std::int64_t[kHeartbeatInts]) {
  thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() { stop(); }

void Watchdog::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (outgoing_request_ != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Test(&outgoing_request_, &done, MPI_STATUS_IGNORE);
    if (!done) {
      MPI_Request_free(&outgoing_request_);
      outgoing_ = nullptr;  // MPI may still read it: leaked on purpose
    }
  }
  delete[] outgoing_;
  outgoing_ = nullptr;
  if (printed_progress_) std::fprintf(stderr, "\n");
  set_termination_report("");
}

void Watchdog::loop() {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::duration<double>(options_.heartbeat_s), [this] { return stop_; });
    if (stop_) break;
    lock.unlock();
    const double t = seconds_since(t0);
    if (runtime_.rank() == 0) beat_root(t);
    else beat_other(t);
    lock.lock();
  }
}

void Watchdog::beat_other(double t) {
  if (outgoing_request_ != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Test(&outgoing_request_, &done, MPI_STATUS_IGNORE);
    if (!done) return;  // rank 0 has not taken the last one yet
  }
  const Beat b = own_beat(runtime_);
  const std::int64_t step = b.step;
  outgoing_[0] = b.step;
  outgoing_[1] = b.done;
  outgoing_[2] = static_cast<std::int64_t>(b.in_step_s * 1e6);
  outgoing_[3] = b.activity;
  outgoing_[4] = static_cast<std::int64_t>(b.in_activity_s * 1e6);
  MPI_Isend(outgoing_, kHeartbeatInts, MPI_INT64_T, 0, kHeartbeatTag, comm_, &outgoing_request_);
  if (t > options_.timeout_s + std::max(10.0, 0.1 * options_.timeout_s))
    end_job("the run exceeded its timeout (mpi.timeout_s = " + fixed(options_.timeout_s, 0) + " s) and rank 0 did "
            "not end it; rank " + std::to_string(runtime_.rank()) + " is in step " + std::to_string(step));
}

void Watchdog::beat_root(double t) {
  for (;;) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kHeartbeatTag, comm_, &flag, &status);
    if (!flag) break;
    std::int64_t in[kHeartbeatInts];
    MPI_Recv(in, kHeartbeatInts, MPI_INT64_T, status.MPI_SOURCE, kHeartbeatTag, comm_, MPI_STATUS_IGNORE);
    Beat& b = beats_[static_cast<std::size_t>(status.MPI_SOURCE)];
    b.step = in[0];
    b.done = in[1];
    b.in_step_s = static_cast<double>(in[2]) * 1e-6;
    b.activity = static_cast<int>(in[3]);
    b.in_activity_s = static_cast<double>(in[4]) * 1e-6;
    b.seen_at = t;
  }
  beats_[0] = own_beat(runtime_);
  beats_[0].seen_at = t;
  set_termination_report("quorum: rank 0 was terminated by the launcher; last heartbeats " + status_table(t) + "\n");

  for (std::size_t r = 1; r < beats_.size(); ++r)
    if (t - beats_[r].seen_at > options_.silence_s) {
      const Beat& b = beats_[r];
      end_job("rank " + std::to_string(r) + " has sent no heartbeat for " + fixed(t - b.seen_at) + " s (" +
              (b.step >= 0 ? "last seen in step " + std::to_string(b.step) : std::string("never seen in a step")) +
              "): its process died or stopped");
    }
  if (t > options_.timeout_s)
    end_job("the run exceeded its timeout (mpi.timeout_s = " + fixed(options_.timeout_s, 0) + " s); " + diagnosis() +
            "; " + status_table(t));
  if (options_.progress && t - last_progress_print_ >= 2.0) {
    last_progress_print_ = t;
    std::int64_t lo = beats_[0].done, hi = beats_[0].done, sum = 0;
    for (const Beat& b : beats_) {
      lo = std::min(lo, b.done);
      hi = std::max(hi, b.done);
      sum += b.done;
    }
    const double total = static_cast<double>(options_.iterations) * static_cast<double>(beats_.size());
    const double fraction = total > 0 ? static_cast<double>(sum) / total : 0;
    const double eta = fraction > 0 ? t * (1 - fraction) / fraction : 0;
    std::fprintf(stderr, "\r[quorum] %s (mpi): steps done %lld..%lld of %lld, %5.1f%%, wall %.1f s, ETA %.0f s   ",
                 options_.label.c_str(), static_cast<long long>(lo), static_cast<long long>(hi),
                 static_cast<long long>(options_.iterations), 100.0 * fraction, t, eta);
    std::fflush(stderr);
    printed_progress_ = true;
  }
}

Watchdog::Beat Watchdog::own_beat(const RankRuntime& rt) {
  Beat b;
  b.step = rt.current_step();
  b.done = rt.steps_done();
  const double now = rt.now();
  b.in_step_s = b.step >= 0 ? now - rt.step_started_at() : 0;
  b.activity = static_cast<int>(rt.activity());
  b.in_activity_s = now - rt.activity_since();
  return b;
}

// Which rank holds the others up: among the ranks not waiting for messages (computing, or stuck in their own code)
// the one furthest behind, longest in that state; if every rank waits, a deadlock, and the rank furthest behind.
std::string Watchdog::diagnosis() const {
  auto worse = [](const Beat& a, const Beat& b) {
    return a.done < b.done || (a.done == b.done && a.in_activity_s > b.in_activity_s);
  };
  int culprit = -1, behind = 0;
  std::size_t waiting = 0;
  for (std::size_t r = 0; r < beats_.size(); ++r) {
    if (worse(beats_[r], beats_[static_cast<std::size_t>(behind)])) behind = static_cast<int>(r);
    if (beats_[r].activity == 2) {
      ++waiting;
      continue;
    }
    if (culprit < 0 || worse(beats_[r], beats_[static_cast<std::size_t>(culprit)])) culprit = static_cast<int>(r);
  }
  const int named = culprit >= 0 ? culprit : behind;
  const Beat& b = beats_[static_cast<std::size_t>(named)];
  std::string text = "rank " + std::to_string(named) + " is " + activity_name(b.activity);
  text += b.step >= 0 ? " in step " + std::to_string(b.step) : std::string(" before its first step");
  text += " for " + fixed(b.in_activity_s) + " s (" + std::to_string(b.done) + " of " +
          std::to_string(options_.iterations) + " steps done)";
  if (culprit >= 0 && waiting > 0) text += " while " + std::to_string(waiting) + " ranks wait for messages";
  if (culprit < 0) text += "; every rank is waiting for messages: a deadlock";
  return text;
}

std::string Watchdog::status_table(double t) const {
  std::ostringstream os;
  os << "(rank: step, steps done, activity, seconds since heartbeat)";
  const std::size_t shown = std::min<std::size_t>(beats_.size(), 64);
  for (std::size_t r = 0; r < shown; ++r) {
    const Beat& b = beats_[r];
    os << (r ? "; " : " ") << r << ": " << b.step << ", " << b.done << ", " << activity_name(b.activity) << ", "
       << fixed(t - b.seen_at);
  }
  if (shown < beats_.size()) os << "; ...";
  return os.str();
}

void Watchdog::end_job(const std::string& why) const {
  if (printed_progress_) std::fprintf(stderr, "\n");
  abort_job("quorum: watchdog: " + why + "; ending the job", 3);
}

}  // namespace quorum::mpi
