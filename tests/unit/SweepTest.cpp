// Sweeps as data: the product of axes, zipped axes, algorithm lists, point ids, shards, the resume rule, sweep.csv.
#include "sim/model/Sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim/model/Scenario.hpp"
#include "sim/model/SweepResults.hpp"
#include "sim/simgrid/ChildProcess.hpp"
#include "tests/support/Files.hpp"
#include "tests/support/Cli.hpp"

namespace quorum {

namespace {

nlohmann::json base_scenario() {
  return {{"name", "t"},
          {"platform", {{"name", "piz_daint"}, {"nodes", 4}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", 10}}},
          {"algorithm", {{"name", "local_sgd"}, {"tau", 10}}}};
}

using testing::csv_cells;

}  // namespace

TEST(Sweep, CartesianProductInAxisOrderLastAxisFastest) {
  SweepSpec spec;
  add_axis(spec, parse_vary_option("algorithm.tau=1,5"));
  add_axis(spec, parse_vary_option("platform.nodes=4,8,16"));
  EXPECT_EQ(spec.point_count(), 6u);
  const auto points = expand_sweep(base_scenario(), spec);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].id, "algorithm.tau=1,platform.nodes=4");
  EXPECT_EQ(points[1].id, "algorithm.tau=1,platform.nodes=8");
  EXPECT_EQ(points[3].id, "algorithm.tau=5,platform.nodes=4");
  EXPECT_EQ(points[5].scenario["algorithm"]["tau"], 5);
  EXPECT_EQ(points[5].scenario["platform"]["nodes"], 16);
  EXPECT_EQ(points[5].scenario["platform"]["name"], "piz_daint");  // the rest of the base is kept
  EXPECT_EQ(sweep_columns(points), (std::vector<std::string>{"algorithm.tau", "platform.nodes"}));
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, i);
    EXPECT_NO_THROW(parse_scenario(points[i].scenario, "")) << points[i].id;
  }
}

TEST(Sweep, ZippedFieldsVaryTogether) {
  SweepSpec spec;
  add_axis(spec, parse_vary_option("algorithm.name=allreduce,local_sgd"));
  add_axis(spec, parse_vary_option("platform.nodes=4,8,16"));
  add_axis(spec, parse_vary_option("workload.iterations=40,80,160"));
  zip_axes(spec, {"platform.nodes", "workload.iterations"});
  ASSERT_EQ(spec.axes.size(), 2u);
  const auto points = expand_sweep(base_scenario(), spec);
  ASSERT_EQ(points.size(), 6u);
  for (const auto& p : points)
    EXPECT_EQ(p.scenario["workload"]["iterations"].get<int>(), 10 * p.scenario["platform"]["nodes"].get<int>());
  EXPECT_EQ(points[2].id, "algorithm.name=allreduce,platform.nodes=16,workload.iterations=160");

  SweepSpec bad;
  add_axis(bad, parse_vary_option("platform.nodes=4,8"));
  add_axis(bad, parse_vary_option("workload.iterations=1,2,3"));
  try {
    zip_axes(bad, {"platform.nodes", "workload.iterations"});
    FAIL() << "zipped axes of different lengths were accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("same number of values"), std::string::npos) << e.what();
  }
  EXPECT_THROW(zip_axes(bad, {"platform.nodes", "seed"}), ScenarioError);  // seed is not varied
}

TEST(Sweep, VaryOptionValuesAreJsonOrStrings) {
  const SweepAxis a = parse_vary_option("imbalance=[{\"kind\":\"none\"},{\"kind\":\"random_delay\",\"ranks\":2,\"delay_s\":0.32}]");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.values[1][0]["ranks"], 2);
  const SweepAxis b = parse_vary_option("math.model=none,softmax");
  EXPECT_EQ(b.values[1][0], "softmax");
  const SweepAxis c = parse_vary_option("math.lr=0.1,0.05");
  EXPECT_TRUE(c.values[1][0].is_number_float());
  for (const char* bad : {"platform.nodes", "=1,2", "platform.nodes=", "platform.nodes=1,,2", "platform.nodes=4,4",
                          "sweep.vary=1,2", "platform..nodes=1", "x=[1,"})
    EXPECT_THROW(parse_vary_option(bad), ScenarioError) << bad;
}

TEST(Sweep, PointIdsAreStableUniqueAndSafeFileNames) {
  SweepSpec spec;
  add_axis(spec, parse_vary_option("imbalance=[{\"kind\":\"none\"},{\"kind\":\"random_delay\",\"ranks\":2,\"delay_s\":0.32}]"));
  add_axis(spec, parse_vary_option("description=a/b,a b"));
  const auto points = expand_sweep(base_scenario(), spec);
  std::set<std::string> ids;
  for (const auto& p : points) {
    EXPECT_TRUE(ids.insert(p.id).second) << p.id;
    EXPECT_EQ(p.id.find('/'), std::string::npos) << p.id;
    EXPECT_EQ(p.id.find(' '), std::string::npos) << p.id;
  }
  // The same sweep with another value added keeps the ids of the points it had (resuming relies on it).
  SweepSpec more = spec;
  add_axis(more, parse_vary_option("description=a/b,a b,c"));
  const auto grown = expand_sweep(base_scenario(), more);
  std::set<std::string> grown_ids;
  for (const auto& p : grown) grown_ids.insert(p.id);
  for (const auto& id : ids) EXPECT_TRUE(grown_ids.count(id)) << id;
}

// Varying algorithm.name on a scenario that lists algorithms replaces the list (not crossed with it): the shipped
// quickstart with two names and three sizes gives 6 points, local_sgd keeping the list's tau.
TEST(Sweep, VaryingAlgorithmNamesReplacesTheList) {
  const nlohmann::json quickstart = read_scenario_json(std::string(QUORUM_SOURCE_DIR) + "/scenarios/quickstart.json");
  SweepSpec spec;
  add_axis(spec, parse_vary_option("algorithm.name=allreduce,local_sgd"));
  add_axis(spec, parse_vary_option("platform.nodes=4,8,16"));
  const auto points = expand_sweep(quickstart, spec);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].id, "algorithm.name=allreduce,platform.nodes=4");
  EXPECT_EQ(points[5].id, "algorithm.name=local_sgd,platform.nodes=16");
  EXPECT_EQ(points[0].scenario["algorithm"], (nlohmann::json{{"name", "allreduce"}}));
  EXPECT_EQ(points[5].scenario["algorithm"], (nlohmann::json{{"name", "local_sgd"}, {"tau", 10}}));
  for (const auto& p : points) EXPECT_NO_THROW(parse_scenario(p.scenario, "")) << p.id;
}

// Varying an algorithm field on a list reaches the entries that take it, as --set does: quickstart's local SGD
// gets three taus, Allreduce-SGD (no tau) runs once, and a field no entry takes is an error naming it.
TEST(Sweep, VaryingAnAlgorithmFieldOfAListReachesTheEntriesThatTakeIt) {
  const nlohmann::json quickstart = read_scenario_json(std::string(QUORUM_SOURCE_DIR) + "/scenarios/quickstart.json");
  SweepSpec spec;
  add_axis(spec, parse_vary_option("algorithm.tau=1,5,10"));
  add_axis(spec, parse_vary_option("platform.nodes=4,8"));
  const auto points = expand_sweep(quickstart, spec);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].id, "algorithm.label=allreduce,algorithm.tau=-,platform.nodes=4");
  EXPECT_EQ(points[1].id, "algorithm.label=allreduce,algorithm.tau=-,platform.nodes=8");
  EXPECT_EQ(points[0].scenario["algorithm"], (nlohmann::json{{"name", "allreduce"}}));
  EXPECT_EQ(points[2].id, "algorithm.label=local_sgd,algorithm.tau=1,platform.nodes=4");
  EXPECT_EQ(points[7].scenario["algorithm"], (nlohmann::json{{"name", "local_sgd"}, {"tau", 10}}));
  for (const auto& p : points) EXPECT_NO_THROW(parse_scenario(p.scenario, "")) << p.id;
  SweepSpec none_takes;
  add_axis(none_takes, parse_vary_option("algorithm.group_size=4,8"));
  try {
    expand_sweep(quickstart, none_takes);
    ADD_FAILURE() << "no entry takes group_size";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "algorithm.group_size");
  }
}

TEST(Sweep, AlgorithmListIsTheFirstAxis) {
  nlohmann::json base = base_scenario();
  base["algorithm"] = nlohmann::json::array({{{"name", "allreduce"}}, {{"name", "local_sgd"}, {"tau", 2}, {"label", "ls2"}}});
  SweepSpec spec;
  add_axis(spec, parse_vary_option("platform.nodes=4,8"));
  const auto points = expand_sweep(base, spec);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].id, "algorithm.label=allreduce,platform.nodes=4");
  EXPECT_EQ(points[3].id, "algorithm.label=ls2,platform.nodes=8");
  EXPECT_EQ(points[3].scenario["algorithm"], (nlohmann::json{{"name", "local_sgd"}, {"tau", 2}}));
  EXPECT_EQ(points[3].settings[0].shown, "ls2");
  base["algorithm"][1].erase("label");
  base["algorithm"][1]["name"] = "allreduce";
  EXPECT_THROW(expand_sweep(base, spec), ScenarioError);  // two entries labelled allreduce
}

TEST(Sweep, BlockIsCheckedAndKeepsTheFilesFieldOrder) {
  const nlohmann::json block = {{"vary", {{"platform.nodes", {4, 8}}, {"algorithm.tau", {1, 2, 5}}}}};
  const SweepSpec spec = parse_sweep_block(block, {"platform.nodes", "algorithm.tau"});
  ASSERT_EQ(spec.axes.size(), 2u);
  EXPECT_EQ(spec.axes[0].fields.front(), "platform.nodes");
  EXPECT_EQ(spec.point_count(), 6u);
  nlohmann::json zip_block = {{"vary", {{"platform.nodes", {4, 8}}, {"workload.iterations", {10, 20}}}}};
  zip_block["zip"] = nlohmann::json::array({nlohmann::json::array({"platform.nodes", "workload.iterations"})});
  const SweepSpec zipped = parse_sweep_block(zip_block);
  EXPECT_EQ(zipped.point_count(), 2u);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"vary", {{"platform.nodes", 4}}}}, nlohmann::json{{"vary", nlohmann::json::object()}},
        nlohmann::json{{"vary", {{"platform.nodes", {4}}}}, {"zipp", 1}},
        nlohmann::json{{"vary", {{"platform.nodes", {4, 8}}}}, {"zip", nlohmann::json::array({nlohmann::json::array({"platform.nodes"})})}},
        nlohmann::json(3)})
    EXPECT_THROW(parse_sweep_block(bad), ScenarioError) << bad.dump();
  // parse_scenario checks the block too, and otherwise ignores it (the scenario is the sweep's base).
  nlohmann::json with_block = base_scenario();
  with_block["sweep"] = {{"vary", {{"platform.nodes", {4, 8}}}}};
  EXPECT_NO_THROW(parse_scenario(with_block, ""));
  with_block["sweep"] = {{"vary", {{"platform.nodes", 4}}}};
  try {
    parse_scenario(with_block, "");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "sweep.vary.platform.nodes");
  }
}

TEST(Sweep, ShardsPartitionThePoints) {
  EXPECT_THROW(parse_shard("2/2"), std::invalid_argument);
  EXPECT_THROW(parse_shard("1"), std::invalid_argument);
  EXPECT_THROW(parse_shard("-1/3"), std::invalid_argument);
  EXPECT_THROW(parse_shard("0/0"), std::invalid_argument);
  std::vector<int> owners(10, 0);
  for (int i = 0; i < 3; ++i) {
    const Shard s = parse_shard(std::to_string(i) + "/3");
    for (std::size_t p = 0; p < owners.size(); ++p) owners[p] += s.owns(p);
  }
  for (int n : owners) EXPECT_EQ(n, 1);
}

TEST(Sweep, APointIsDoneOnlyWithItsOwnSummary) {
  SweepSpec spec;
  add_axis(spec, parse_vary_option("platform.nodes=4,8"));
  const auto points = expand_sweep(base_scenario(), spec);
  const std::string out = testing::fresh_path("quorum-sweep-done");
  const std::string dir = point_dir(out, points[0]);
  const auto record = point_record(points[0], "");
  EXPECT_FALSE(point_is_done(dir, record));
  prepare_point_dir(dir, record);
  EXPECT_FALSE(point_is_done(dir, record));  // point.json alone: it has not finished
  std::ofstream(dir + "/summary.json") << R"({"algorithm": "local_sgd"})";
  EXPECT_FALSE(point_is_done(dir, record));  // iterations.csv is asked for (the default) but missing
  std::ofstream(dir + "/iterations.csv") << "rank,step,start_s,compute_s,comm_s,wait_s\n";
  EXPECT_TRUE(point_is_done(dir, record));
  EXPECT_EQ(read_point_outcome(dir, record).status, PointOutcome::Status::Ok);
  // Output settings are not part of the point: without iterations.csv it is done, asking for a trace it is not.
  nlohmann::json quiet = base_scenario(), traced = base_scenario();
  quiet["output"] = {{"iterations_csv", false}, {"progress", false}};
  traced["output"] = {{"trace", true}};
  EXPECT_TRUE(point_is_done(dir, point_record(expand_sweep(quiet, spec)[0], "")));
  EXPECT_FALSE(point_is_done(dir, point_record(expand_sweep(traced, spec)[0], "")));
  std::ofstream(dir + "/trace.json") << "{}";
  EXPECT_TRUE(point_is_done(dir, point_record(expand_sweep(traced, spec)[0], "")));
  // Same id, another base (e.g. another --set): the old summary is not this point's.
  nlohmann::json other_base = base_scenario();
  other_base["seed"] = 7;
  const auto other = point_record(expand_sweep(other_base, spec)[0], "");
  EXPECT_EQ(point_dir(out, expand_sweep(other_base, spec)[0]), dir);
  EXPECT_FALSE(point_is_done(dir, other));
  EXPECT_EQ(read_point_outcome(dir, other).status, PointOutcome::Status::Missing);
  // Preparing the point again removes the old summary before anything else.
  prepare_point_dir(dir, other);
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
  write_point_failure(dir, "boom");
  const PointOutcome failed = read_point_outcome(dir, other);
  EXPECT_EQ(failed.status, PointOutcome::Status::Failed);
  EXPECT_EQ(failed.error, "boom");
  std::filesystem::remove_all(out);
}

TEST(Sweep, CsvHasVariedFieldsStatusAndSummaryColumns) {
  SweepSpec spec;
  add_axis(spec, parse_vary_option("platform.nodes=4,8,16"));
  const auto points = expand_sweep(base_scenario(), spec);
  std::vector<PointOutcome> outcomes(3);
  outcomes[0].status = PointOutcome::Status::Ok;
  outcomes[0].summary = {{"algorithm", "local_sgd"}, {"nodes", 4}, {"throughput_steps_per_s", 1.5},
                         {"final_test_accuracy", nullptr}, {"evaluations", nlohmann::json::array()},
                         {"scenario", {{"algorithm", {{"name", "local_sgd"}, {"tau", 10}}}}},
                         {"metrics", {{"contributors", {{"count", 3}, {"mean", 2.5}, {"min", 1}, {"max", 4}}}}}};
  outcomes[1].status = PointOutcome::Status::Failed;
  outcomes[1].error = "scenario field 'x': bad, \"really\"\nsecond line";
  const std::string csv = format_sweep_csv(points, outcomes);
  std::istringstream in(csv);
  std::string header_line;
  std::getline(in, header_line);
  const auto header = csv_cells(header_line);
  const std::vector<std::string> first = {"point", "platform.nodes", "status", "error", "dir"};
  ASSERT_GE(header.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 5), first);
  for (const char* c : {"algorithm", "nodes", "throughput_steps_per_s", "final_test_accuracy", "algorithm.tau",
                        "algorithm.name", "metrics.contributors.mean", "metrics.contributors.count"})
    EXPECT_NE(std::find(header.begin(), header.end(), c), header.end()) << c;
  EXPECT_EQ(std::find(header.begin(), header.end(), "evaluations"), header.end());  // arrays stay in summary.json
  // Rows: the error cell keeps its commas, quotes and newline (RFC 4180), so read rows as records, not lines.
  std::string rest((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::vector<std::string>> rows;
  std::string record;
  bool quoted = false;
  for (char c : rest) {
    if (c == '"') quoted = !quoted;
    if (c == '\n' && !quoted) {
      rows.push_back(csv_cells(record));
      record.clear();
    } else {
      record += c;
    }
  }
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) EXPECT_EQ(r.size(), header.size());
  auto cell = [&](std::size_t row, const std::string& column) {
    return rows[row][static_cast<std::size_t>(std::find(header.begin(), header.end(), column) - header.begin())];
  };
  EXPECT_EQ(cell(0, "status"), "ok");
  EXPECT_EQ(cell(0, "throughput_steps_per_s"), "1.5");
  EXPECT_EQ(cell(0, "final_test_accuracy"), "");
  EXPECT_EQ(cell(0, "metrics.contributors.mean"), "2.5");
  EXPECT_EQ(cell(0, "dir"), "points/platform.nodes=4");
  EXPECT_EQ(cell(1, "status"), "failed");
  EXPECT_EQ(cell(1, "error"), outcomes[1].error);
  EXPECT_EQ(cell(1, "platform.nodes"), "8");
  EXPECT_EQ(cell(2, "status"), "missing");

  // A varied field named like a summary field keeps the one column of that name (the varied value).
  SweepSpec by_imbalance;
  add_axis(by_imbalance, parse_vary_option("imbalance=[{\"kind\":\"none\"},{\"kind\":\"linear_skew\",\"step_s\":0.01}]"));
  const auto imbalance_points = expand_sweep(base_scenario(), by_imbalance);
  EXPECT_EQ(imbalance_points[1].id.rfind("imbalance=linear_skew_h", 0), 0u) << imbalance_points[1].id;
  std::vector<PointOutcome> two(2);
  for (auto& o : two) {
    o.status = PointOutcome::Status::Ok;
    o.summary = {{"imbalance", "none"}, {"nodes", 4}};
  }
  std::istringstream table(format_sweep_csv(imbalance_points, two));
  std::getline(table, header_line);
  const auto columns = csv_cells(header_line);
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "imbalance"), 1) << header_line;
  std::string first_row;
  std::getline(table, first_row);
  EXPECT_NE(first_row.find("\"{\"\"kind\"\":\"\"none\"\"}\""), std::string::npos) << first_row;
}

TEST(ChildPool, RunsChildrenInParallelAndReportsEachOutcome) {
  ChildPool pool;
  const int ok = pool.start([] { return 0; });
  const int failed = pool.start([]() -> int { throw std::runtime_error("bad point"); });
  const int reported = pool.start([] {
    report_error("simulation failed: deadlock");
    return 3;
  });
  const int killed = pool.start([]() -> int {
    std::raise(SIGKILL);
    return 0;
  });
  EXPECT_EQ(pool.running(), 4u);
  std::map<int, ChildResult> results;
  while (pool.running() > 0)
    if (auto r = pool.wait_any(5.0)) results[r->first] = r->second;
  EXPECT_EQ(results.at(ok).exit_code, 0);
  EXPECT_EQ(results.at(failed).exit_code, 1);
  EXPECT_EQ(results.at(failed).error_text, "bad point");
  EXPECT_EQ(results.at(reported).exit_code, 3);
  EXPECT_EQ(results.at(reported).error_text, "simulation failed: deadlock");
  EXPECT_EQ(results.at(killed).signal, SIGKILL);
  EXPECT_FALSE(pool.wait_any(0.1).has_value());
}

}  // namespace quorum
