#include "sim/model/MpiSettings.hpp"

#include <algorithm>

#include "sim/model/Distribution.hpp"
#include "sim/model/Fields.hpp"
#include "sim/model/StragglerModel.hpp"

namespace quorum {

double expected_step_upper_s(const Distribution& compute, const StragglerSpec& s, int ranks) {
  const double base = compute.mean() + 3.0 * compute.sd();
  double delay = 0;
  if (s.kind == "random_delay") delay = s.delay_s;
  else if (s.kind == "slow_worker") delay = base * (s.factor - 1.0);
  else if (s.kind == "linear_skew") delay = s.step_s * std::max(0, ranks - 1);
  else if (s.kind == "shifted_skew") delay = s.max_s;
  else if (s.kind == "distribution") delay = s.distribution.mean() + 3.0 * s.distribution.sd();
  return base + delay;
}

MpiSettings parse_mpi_settings(Fields& f, int ranks, std::int64_t iterations, const Distribution& compute,
                               const StragglerSpec& imbalance) {
  MpiSettings m;
  m.compute = f.string("compute", m.compute, {"emulate", "real"});
  m.message_bytes = f.string("message_bytes", m.message_bytes, {"logical", "payload"});
  m.native_allreduce = f.boolean("native_allreduce", m.native_allreduce);
  m.device = f.string("device", m.device, {"cpu", "gpu"});
  m.progress = f.string("progress", m.progress, {"auto", "spin", "sleep"});
  m.poll_interval_s = f.number("poll_interval_s", m.poll_interval_s, 1e-7, 1.0);
  const auto& timeout = f.raw("timeout_s");
  if (timeout.is_null() || (timeout.is_string() && timeout.get<std::string>() == "auto")) {
    f.mark_used("timeout_s");
    m.timeout_s = 120.0 + 5.0 * static_cast<double>(iterations) * expected_step_upper_s(compute, imbalance, ranks);
    f.set_resolved("timeout_s", m.timeout_s);
  } else if (timeout.is_string()) {
    f.fail("timeout_s", "must be a number of seconds > 0 or \"auto\", got " + describe_json(timeout));
  } else {
    m.timeout_s = f.positive("timeout_s", std::nullopt);
  }
  if (f.has("fault")) {
    Fields fault = f.object("fault");
    m.fault.rank = static_cast<int>(fault.integer("rank", std::nullopt, 0, ranks - 1));
    m.fault.step = fault.integer("step", std::nullopt, 0, iterations - 1);
    m.fault.kind = fault.string("kind", std::nullopt, {"hang", "kill", "throw"});
    fault.finish();
    f.set_resolved("fault", fault.resolved());
  }
  f.finish();
  return m;
}

}  // namespace quorum
