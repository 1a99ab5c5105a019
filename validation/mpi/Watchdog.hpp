#pragma once
// Keeps a run on MPI from hanging. Every rank's watchdog thread sends a heartbeat (its step, steps done, how long it
// has been in the step) to rank 0 a few times a second. Rank 0's watchdog ends the job (MPI_Abort) with a message
// naming the rank and step when
//   - the run exceeds mpi.timeout_s: it names the rank furthest behind and how long it has been in its step (a hung
//     rank, or a deadlock, shows as a rank stuck in one step);
//   - a rank stops sending heartbeats for silence_s: its process died or froze (the heartbeat comes from a thread of
//     its own, so a rank merely blocked in a receive still sends them).
// Every other rank ends the job itself if the timeout passes with a grace period (rank 0 itself may be the one that
// died). Rank 0 also prints the run's progress on stderr, and keeps the last heartbeats ready for the report printed
// if the launcher terminates it (FatalSignals).
#include <mpi.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "validation/mpi/RankRuntime.hpp"

namespace quorum::mpi {

struct WatchdogOptions {
  double timeout_s = 600;
  double heartbeat_s = 0.25;
  double silence_s = 15;
  bool progress = false;  // rank 0 prints progress on stderr
  std::string label;      // e.g. "scenario/algorithm"
  std::int64_t iterations = 0;
};

class Watchdog {
 public:
  // comm: a communicator of its own (MpiWorld::control()).
  Watchdog(RankRuntime& runtime, MPI_Comm comm, WatchdogOptions options);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  // Stops the thread (not collective).
  void stop();

 private:
  struct Beat {
    std::int64_t step = -1, done = 0;
    double in_step_s = 0;
    int activity = 0;          // RankRuntime::Activity of the main agent
    double in_activity_s = 0;  // for how long
    double seen_at = 0;        // watchdog time of the last heartbeat
  };
  static Beat own_beat(const RankRuntime& rt);
  std::string diagnosis() const;
  void loop();
  void beat_root(double t);
  void beat_other(double t);
  std::string status_table(double t) const;
  [[noreturn]] void end_job(const std::string& why) const;

  RankRuntime& runtime_;
  MPI_Comm comm_;
  WatchdogOptions options_;
  std::vector<Beat> beats_;
  std::int64_t* outgoing_;  // heartbeat being sent (leaked if still in flight at the end)
  MPI_Request outgoing_request_ = MPI_REQUEST_NULL;
  double last_progress_print_ = 0;
  bool printed_progress_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace quorum::mpi
