#pragma once
// One rank's point-to-point engine: every send, receive and native collective of all the rank's agents is an
// Operation that a dedicated progress thread drives to completion, so that
//   - messages move while agents compute or sleep (as SimGrid's communications do), not only when an agent happens
//     to be inside an MPI call;
//   - an agent blocked in wait() sleeps on a condition variable instead of spinning in MPI: on a machine with fewer
//     cores than ranks, spinning ranks would steal the CPU from the ones doing real work;
//   - payloads of any size are received without knowing the size in advance.
//
// Wire protocol (why not MPI_Improbe/MPI_Imrecv: a receive that exists only as a pending probe is not in MPI's
// matching queue, so two receives posted on the same (source, tag) by different agents could be matched out of
// their posting order; and a probe-based receive cannot be made to progress without polling every pending probe).
// Each message is a fixed-size header sent with Comm's tag on the "messages" communicator, received with a plain
// MPI_Irecv (MPI_ANY_SOURCE for any-source tags), so MPI's own queue does the matching, in order, exactly as Comm
// specifies. Small payloads (and their padding) travel inside the header. Larger ones follow as one data message on
// the "data" communicator, tagged with a sequence number unique per sender that the header announces; the receiver
// posts that receive from the header's source as soon as the header has arrived, so the pairing cannot be confused
// by concurrent receives. The data message is up to three MPI messages with that tag, in
// this order: the values, the ints, the padding, each a contiguous buffer sent in place (nothing is copied), matched
// in order by MPI's non-overtaking rule. Why not one message over a derived datatype spanning the three: Open MPI
// moves a non-contiguous message through the copy-in/copy-out pipeline (32 KiB fragments on shared memory, each
// needing both sides to poll) instead of a single copy (CMA), and a progress thread that pauses between polls then
// takes two to three times longer per message (a 1 MiB exchange among 8 ranks on 2 cores: 2.5-3 ms instead of 1.2).
#include <mpi.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/comm/Payload.hpp"

namespace quorum::mpi {

// 4 KiB in all: a message whose payload and padding fit (Open MPI's shared-memory eager limit is 4 KiB) is one MPI
// message, the header, rather than a header and a data message, which needs twice the polls of both progress threads
// (the eager-SGD microbenchmark on 32 ranks: the solo allreduce of 512 B took 0.87 ms per call as header and data
// message, 0.44-0.50 ms as one message; of 64 B, always inline, 0.28-0.47 ms).
struct WireHeader {
  static constexpr std::size_t kInlineBytes = 4096 - 32;
  std::int64_t values = 0;    // floats in the payload
  std::int64_t ints = 0;      // control ints in the payload
  std::int64_t padding = 0;   // bytes of padding after the payload (zeros, inline or in the data message)
  std::int32_t data_tag = -1; // tag of the data message on the data communicator; -1: payload inline, none follows
  std::int32_t reserved = 0;
  unsigned char inline_bytes[kInlineBytes] = {};
};
static_assert(sizeof(WireHeader) == 4096, "the header and its inline payload make one 4 KiB message at most");

// A send, a receive, or a tracked collective. Fields are guarded by the engine's mutex.
class Operation {
 public:
  enum class Kind { Send, Receive, Collective, Custom };
  explicit Operation(Kind k) : kind(k) {}

  const Kind kind;
  bool complete = false;   // what test() reports: finished, or (receive) withdrawn
  bool cancelled = false;  // a withdrawn receive
  bool taken = false;      // the received message was moved out
  bool retired = false;    // MPI has nothing pending for it any more
  std::string error;       // set if MPI reported a failure

  int peer = -1;  // destination of a send; source of a receive (-1 until an any-source receive matched)
  std::int32_t tag = 0;
  WireHeader header;
  Message message;  // the payload being sent, or the one received
  MPI_Request header_request = MPI_REQUEST_NULL;
  // The data message's parts (values, ints, padding), each sent as its own contiguous message (see above).
  std::array<MPI_Request, 3> data_requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Request collective_request = MPI_REQUEST_NULL;
  // Custom: true once complete (e.g. a CUDA stream has drained). A held send: issues it once its time has come and
  // returns true (its MPI requests then complete it).
  std::function<bool()> poll;
  bool busy = false;           // poll without pausing while this is pending
  std::shared_ptr<void> keep_alive;  // buffers MPI may still touch (padding, scratch)
};
using OperationPtr = std::shared_ptr<Operation>;

struct EngineStats {
  std::int64_t sends = 0, receives = 0, data_messages = 0;
  double bytes_sent = 0;             // wire bytes of sends (headers and data)
  std::int64_t leftover_sends = 0;   // sends still unmatched when the run ended (fire-and-forget nobody received)
  std::int64_t leftover_receives = 0;// receives still pending when the run ended (cancelled then)
};

class ProgressEngine {
 public:
  // How a rank waits (MpiSettings::progress, resolved):
  //   Spin: an agent blocked in wait()/wait_any() first drives MPI itself, polling without pause, as a plain
  //     MPI_Wait does, for up to 100 us, then sleeps as in Sleep; one waiter of the rank drives at a time (the
  //     others sleep and are woken by it), and the progress thread stands aside meanwhile. For machines with a
  //     core per rank: a message costs what it costs in MPI, not a thread hand-off and a polling pause at each end.
  //   Sleep: waiting agents sleep on a condition variable and only the progress thread polls, pausing between
  //     polls; for ranks that share cores (spinning waiters would steal the CPU of the ranks that compute).
  // Either way the progress thread keeps messages moving while every agent computes or sleeps.
  enum class WaitMode { Spin, Sleep };

  // messages/data: the communicators of MpiWorld; tag_ub: MPI_TAG_UB; poll_interval_s: the longest pause between
  // two polls of the progress thread while operations are pending (the pause doubles from 1 us up to it when
  // nothing completes; it stays at 1 us while a data message is in flight, whose fragments move only when MPI is
  // polled although no request completes until the last one).
  ProgressEngine(MPI_Comm messages, MPI_Comm data, int tag_ub, double poll_interval_s, WaitMode wait_mode);
  ~ProgressEngine();
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  // pad_to_bytes: if larger than the payload, the message is padded with zeros to that many bytes on the wire.
  // hold_s: the message leaves that much later (a slow link's extra transfer time, RankRuntime::send_hold_s), behind
  // the messages held before it for the same destination; the caller is not blocked.
  OperationPtr send(int dst, std::int32_t tag, Payload payload, double pad_to_bytes, double hold_s = 0);
  OperationPtr receive(int src, std::int32_t tag);  // src may be MPI_ANY_SOURCE
  // Completes when the (already started) non-blocking MPI request does, e.g. an MPI_Iallreduce. busy: poll without
  // pausing while it is pending (for a collective whose members have all arrived: its internal rounds advance only
  // when MPI is polled, and none of them shows as a completion that would shorten the pause).
  OperationPtr track(MPI_Request request, bool busy = false);
  // Completes once poll() returns true; poll is called from the progress thread.
  OperationPtr track(std::function<bool()> poll);

  // The calling agent turns to something else (compute, a sleep) and leaves its pending operations to the
  // progress thread: wake it now rather than at the end of its pause.
  void kick();

  bool test(const OperationPtr& op);
  void wait(const OperationPtr& op);
  std::size_t wait_any(std::span<const OperationPtr> ops);
  // Withdraws a receive that has not completed; its message, should it match meanwhile, is discarded.
  void cancel(const OperationPtr& op);
  Message take(const OperationPtr& op);

  // Ends the engine: cancels pending receives, stops the progress thread, and lets go of unmatched sends (their
  // buffers are kept alive until the process exits, since MPI may still read them). Further calls throw.
  void shutdown();
  EngineStats stats() const;

 private:
  void loop();
  bool progress_locked();  // one round of polling; true if anything completed
  void issue_send_locked(Operation& op);  // the send's MPI_Isend calls
  void start_data_receive(Operation& op, int source);
  void finish_locked(Operation& op);
  void add_locked(OperationPtr op);
  void throw_if_failed(const Operation& op) const;
  // Blocks until done() holds (under the lock), driving MPI itself in Spin mode when no other waiter does.
  template <typename Done>
  void block_until(std::unique_lock<std::mutex>& lock, Done done);
  bool data_in_flight_locked() const;
  std::shared_ptr<std::vector<std::byte>> zeros_locked(std::size_t bytes);
  std::shared_ptr<std::byte[]> scratch_locked(std::size_t bytes);

  MPI_Comm messages_, data_;
  int tag_ub_;
  double poll_interval_s_;
  WaitMode wait_mode_;
  bool driven_ = false;
  bool kicked_ = false;  // the progress thread is wanted at once (kick(), or a driving agent handed over)  // Spin: a waiting agent is driving MPI (the progress thread stands aside)
  mutable std::mutex mutex_;
  std::condition_variable completed_, work_;
  std::vector<OperationPtr> active_;
  bool new_work_ = false;
  int busy_ = 0;  // pending operations that want polling without pauses
  bool stopping_ = false, stopped_ = false;
  std::int32_t next_data_tag_ = 0;
  std::map<int, std::chrono::steady_clock::time_point> held_until_;  // by destination: when its last held send leaves
  std::shared_ptr<std::vector<std::byte>> zeros_;
  std::shared_ptr<std::byte[]> scratch_;
  std::size_t scratch_size_ = 0;
  EngineStats stats_;
  std::vector<MPI_Request> requests_;
  struct Owner {
    Operation* op;
    int which;  // 0: header, 1: a data part, 2: collective
    int part;   // which data part
  };
  std::vector<Owner> owners_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  std::thread thread_;
};

}  // namespace quorum::mpi
