#include "sim/model/ResultsTable.hpp"

#include <cstdio>
#include <sstream>

namespace quorum {

namespace {
std::string accuracy_text(const nlohmann::json& s) {
  if (s.contains("final_test_accuracy") && s["final_test_accuracy"].is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * s["final_test_accuracy"].get<double>());
    return buf;
  }
  if (s.contains("final_loss") && s["final_loss"].is_number()) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "loss %.4g", s["final_loss"].get<double>());
    return buf;
  }
  return "-";
}
}  // namespace

std::string format_results_table(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream os;
  char line[256];
  const bool measured = !summaries.empty() && summaries.front().value("backend", std::string()) == "mpi";
  std::snprintf(line, sizeof line, "%-22s %10s %12s %14s %14s %13s %12s\n", "algorithm", "steps/s", "aggr steps/s",
                measured ? "measured (s)" : "sim time (s)", "test accuracy", "mean wait (s)", "wall (s)");
  os << line;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const auto& s = summaries[i];
    std::snprintf(line, sizeof line, "%-22s %10.4f %12.4f %14.2f %14s %13.4f %12.1f\n", labels[i].c_str(),
                  s.value("throughput_steps_per_s", 0.0), s.value("aggregate_steps_per_s", 0.0),
                  s.value("sim_time_s", 0.0), accuracy_text(s).c_str(),
                  s.value("mean_wait_s", 0.0), s.value("wall_time_s", 0.0));
    os << line;
  }
  return os.str();
}

std::string format_results_csv(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream os;
  os << "label,algorithm,ranks,throughput_steps_per_s,sim_time_s,final_test_accuracy,final_loss,mean_wait_s,"
        "wall_time_s,aggregate_steps_per_s,training_ranks\n";
  auto num = [](const nlohmann::json& s, const char* key) {
    return s.contains(key) && s[key].is_number() ? s[key].dump() : std::string();
  };
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const auto& s = summaries[i];
    os << labels[i] << "," << s.value("algorithm", std::string()) << "," << num(s, "ranks") << ","
       << num(s, "throughput_steps_per_s") << "," << num(s, "sim_time_s") << "," << num(s, "final_test_accuracy")
       << "," << num(s, "final_loss") << "," << num(s, "mean_wait_s") << "," << num(s, "wall_time_s") << ","
       << num(s, "aggregate_steps_per_s") << "," << num(s, "training_ranks") << "\n";
  }
  return os.str();
}

}  // namespace quorum
