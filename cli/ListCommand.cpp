// quorum list [platforms|profiles|imbalance|algorithms|models]
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "algorithms/Algorithm.hpp"
#include "kernels/MathSetup.hpp"
#include "cli/Commands.hpp"
#include "sim/model/PlatformCatalog.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/StragglerModel.hpp"
#include "sim/model/WorkloadProfile.hpp"

namespace quorum::cli {

namespace {

std::string value_text(const ParamValue& v) {
  std::ostringstream os;
  std::visit(
      [&os](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, bool>) os << (x ? "true" : "false");
        else os << x;
      },
      v);
  return os.str();
}

void print_entry(const std::string& name, const std::string& description) {
  std::cout << "  " << std::left << std::setw(20) << name << " " << description << "\n";
}

void print_params(const std::vector<ParamSpec>& params) {
  for (const auto& p : params) {
    std::string text = p.description + " (default ";
    text += p.default_value ? value_text(*p.default_value) : std::string("derived");
    text += ")";
    if (!p.choices.empty()) {
      text += "; one of:";
      for (const auto& c : p.choices) text += " " + c;
    }
    std::cout << "      " << std::left << std::setw(18) << p.name << " " << text << "\n";
  }
}

int list(const std::string& what) {
  const bool all = what.empty();
  if (all || what == "platforms") {
    std::cout << "platforms (platform.name):\n";
    for (const auto& p : platform_catalog()) {
      print_entry(p.name, p.description);
      for (const auto& f : p.fields)
        std::cout << "      " << std::left << std::setw(24) << f.name << " " << f.description << " ("
                  << describe_platform_field(f) << ")\n";
    }
  }
  if (all || what == "profiles") {
    std::cout << "workload profiles (workload.profile):\n";
    for (const auto& p : workload_profiles())
      print_entry(p.name, p.description + "; " + std::to_string(p.parameters) + " parameters");
  }
  if (all || what == "imbalance") {
    std::cout << "imbalance models (imbalance.kind):\n";
    for (const auto& i : imbalance_catalog()) print_entry(i.name, i.description);
    std::cout << "    imbalance.correlate (markov, ar1, distribution): rank, node, router, chassis, group "
                 "(dragonflies), or block_ranks N\n";
  }
  if (all || what == "algorithms") {
    std::cout << "algorithms (algorithm.name), with their parameters:\n";
    for (const auto& a : algorithm_catalog()) {
      print_entry(a.name, a.description);
      print_params(a.params);
    }
    std::cout << "    every algorithm also takes:\n";
    print_params(common_algorithm_params());
  }
  if (all || what == "models") {
    std::cout << "proxy models (math.model):\n";
    for (const auto& m : model_catalog()) print_entry(m.name, m.description);
  }
  return kExitOk;
}

}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List platforms, workload profiles, imbalance models, algorithms, models");
  cmd->add_option("what", *what, "only one section")
      ->check(CLI::IsMember({"platforms", "profiles", "imbalance", "algorithms", "models"}));
  cmd->callback([what, &exit_code] { exit_code = list(*what); });
}

}  // namespace quorum::cli
