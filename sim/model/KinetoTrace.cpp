#include "sim/model/KinetoTrace.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <istream>
#include <streambuf>
#include <string_view>

#include "kernels/data/CompressedFile.hpp"
#include "sim/model/Trace.hpp"

namespace quorum {

namespace {

// N of a span named ProfilerStep#N, if that is its name.
std::optional<std::int64_t> profiler_step_number(const std::string& name) {
  static constexpr std::string_view prefix = "ProfilerStep#";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::int64_t n = 0;
  const char* end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(name.data() + prefix.size(), end, n);
  if (ec != std::errc() || ptr != end || n < 0) return std::nullopt;
  return n;
}

struct StepSpan {
  std::int64_t step;
  double dur_us;
};

// Streams the trace's JSON and keeps only what step times need: the top-level events' name, ph, cat and dur, and
// distributedInfo.rank. Everything else (args, device properties, nested objects) is read past without being stored.
class StepCollector final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit StepCollector(const std::string& path) : path_(path) {}

  bool null() override { return scalar(nullptr, std::nullopt); }
  bool boolean(bool) override { return scalar(nullptr, std::nullopt); }
  bool number_integer(number_integer_t v) override { return scalar(nullptr, static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(nullptr, static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(nullptr, v); }
  bool string(string_t& v) override { return scalar(&v, std::nullopt); }
  bool binary(binary_t&) override { return scalar(nullptr, std::nullopt); }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override {
    if (frames_.back().event) finish_event();
    frames_.pop_back();
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    if (const auto bracket = what.find("] "); what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
      what = what.substr(bracket + 2);  // drop nlohmann's "[json.exception.parse_error.101] "
    throw TraceError("trace file '" + path_ + "' is not valid JSON: " + what);
  }

  bool saw_events() const { return saw_events_; }
  bool root_is_object() const { return root_is_object_; }
  const std::vector<StepSpan>& host_steps() const { return host_; }
  const std::vector<StepSpan>& device_steps() const { return device_; }
  const std::optional<std::int64_t>& rank() const { return rank_; }

 private:
  struct Frame {
    bool array = false;
    bool event = false;  // an object in the events list
    std::string key;     // objects: the key whose value comes next
  };
  struct Event {
    std::string name, ph, cat;
    std::optional<double> dur;
  };

  // The innermost open container is the list of events: the root array, or the root object's traceEvents.
  bool in_events_list() const {
    if (frames_.empty() || !frames_.back().array) return false;
    return frames_.size() == 1 || (frames_.size() == 2 && frames_[0].key == "traceEvents");
  }
  bool at_top_key(const char* key) const {
    return frames_.size() == 1 && !frames_[0].array && frames_[0].key == key;
  }

  bool open(bool array) {
    if (frames_.empty()) root_is_object_ = !array;
    if (array && (frames_.empty() || at_top_key("traceEvents"))) saw_events_ = true;
    Frame f;
    f.array = array;
    f.event = !array && in_events_list();
    if (f.event) event_ = Event{};
    frames_.push_back(std::move(f));
    return true;
  }

  bool scalar(const std::string* text, std::optional<double> number) {
    if (frames_.empty()) return true;
    const Frame& inner = frames_.back();
    if (inner.event) {
      if (inner.key == "name" && text) event_.name = *text;
      else if (inner.key == "ph" && text) event_.ph = *text;
      else if (inner.key == "cat" && text) event_.cat = *text;
      else if (inner.key == "dur") event_.dur = number;
    } else if (frames_.size() == 2 && !inner.array && inner.key == "rank" && frames_[0].key == "distributedInfo") {
      if (!number || *number < 0 || std::floor(*number) != *number || *number > 9e15)
        throw TraceError("trace file '" + path_ + "': distributedInfo.rank must be an integer >= 0, got " +
                         (text ? "\"" + *text + "\"" : number ? std::to_string(*number) : std::string("null")));
      rank_ = static_cast<std::int64_t>(*number);
    }
    return true;
  }

  void finish_event() {
    if (event_.ph != "X") return;
    const auto step = profiler_step_number(event_.name);
    if (!step) return;
    if (!event_.dur || !std::isfinite(*event_.dur) || *event_.dur < 0)
      throw TraceError("trace file '" + path_ + "': span " + event_.name +
                       " has no duration (a number >= 0 of microseconds in \"dur\")");
    (event_.cat == "gpu_user_annotation" ? device_ : host_).push_back({*step, *event_.dur});
  }

  std::string path_;
  std::vector<Frame> frames_;
  Event event_;
  bool saw_events_ = false, root_is_object_ = false;
  std::vector<StepSpan> host_, device_;
  std::optional<std::int64_t> rank_;
};

}  // namespace

bool is_json_trace(const std::string& path) try {
  CompressedFileBuf buf(path, "trace file");
  for (auto c = buf.sbumpc(); c != std::char_traits<char>::eof(); c = buf.sbumpc()) {
    const auto byte = static_cast<unsigned char>(std::char_traits<char>::to_char_type(c));
    if (byte == ' ' || byte == '\t' || byte == '\r' || byte == '\n') continue;
    if (byte == 0xEF || byte == 0xBB || byte == 0xBF) continue;  // a UTF-8 byte order mark
    return byte == '{' || byte == '[';
  }
  return false;
} catch (const CompressedFileError& e) {
  throw TraceError(e.what());
}

ProfilerSteps read_profiler_steps(const std::string& path) {
  CompressedFileBuf buf(path, "trace file");
  std::istream in(&buf);
  StepCollector collector(path);
  try {
    nlohmann::json::sax_parse(in, &collector);
  } catch (const CompressedFileError& e) {
    throw TraceError(e.what());
  }
  if (!collector.saw_events())
    throw TraceError("trace file '" + path + "' is JSON but not a Chrome trace: " +
                     (collector.root_is_object() ? "no \"traceEvents\" list" : "neither an object nor a list"));
  std::vector<StepSpan> spans = collector.host_steps().empty() ? collector.device_steps() : collector.host_steps();
  if (spans.empty())
    throw TraceError("trace file '" + path +
                     "' has no ProfilerStep#N spans (torch.profiler writes one per step when it runs with a "
                     "schedule and the training loop calls prof.step())");
  std::stable_sort(spans.begin(), spans.end(), [](const StepSpan& a, const StepSpan& b) { return a.step < b.step; });
  ProfilerSteps out;
  out.rank = collector.rank();
  for (const StepSpan& s : spans) {
    if (!out.steps.empty() && out.steps.back() == s.step)
      throw TraceError("trace file '" + path + "' has ProfilerStep#" + std::to_string(s.step) + " twice");
    out.steps.push_back(s.step);
    out.durations_s.push_back(s.dur_us / 1e6);
  }
  return out;
}

}  // namespace quorum
