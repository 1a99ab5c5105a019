#pragma once
// PyTorch profiler traces as measured step times, so users who train with PyTorch replay what they ran without
// converting it by hand. torch.profiler (Kineto) writes a Chrome trace JSON per rank (export_chrome_trace, or
// tensorboard_trace_handler's *.pt.trace.json[.gz]): {"traceEvents": [...], "distributedInfo": {"rank": R, ...}, ...}
// or a bare array of events. With a schedule, prof.step() marks each step as a complete event ("ph": "X") named
// ProfilerStep#N whose dur (microseconds) is the time from one prof.step() to the next: the whole step as the host
// saw it, including any communication it waited for.
//
// Recent versions also mirror each step on the device (cat "gpu_user_annotation", spanning that step's kernels);
// the host spans are taken, the device ones only when a trace has no host spans.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quorum {

// One rank's steps, in step order.
struct ProfilerSteps {
  std::vector<std::int64_t> steps;      // N of each ProfilerStep#N, ascending
  std::vector<double> durations_s;      // each span's dur in seconds
  std::optional<std::int64_t> rank;     // distributedInfo.rank, when the trace has it
};

// Whether the file holds JSON rather than CSV: its first non-blank character is '{' or '['. Reads through gzip, so a
// .json.gz is recognised by its content too.
bool is_json_trace(const std::string& path);

// Reads a Chrome/Kineto trace, plain or gzip-compressed, streaming (traces run to gigabytes; only the step spans are
// kept). Throws TraceError naming the file when it cannot be read, is not JSON, has no ProfilerStep#N spans, or
// has one step twice.
ProfilerSteps read_profiler_steps(const std::string& path);

}  // namespace quorum
