// The XML export of a platform (platforms/PlatformXml.hpp) against the C++ builder it mirrors: both are loaded into
// SimGrid (each in its own child process: one engine per process) and compared host by host and route by route
// (every link's bandwidth, latency and sharing policy, and the route's total latency), with the network model
// settings each engine ends up with.
#include <gtest/gtest.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>

#include "platforms/PlatformBuilder.hpp"
#include "platforms/PlatformXml.hpp"
#include "tests/support/Cli.hpp"
#include "tests/support/Files.hpp"
#include "tests/support/SimHarness.hpp"
#include "tests/support/TestPaths.hpp"

namespace quorum {

namespace {

namespace sg4 = simgrid::s4u;

using HostPairs = std::vector<std::pair<std::string, std::string>>;

std::string policy_name(sg4::Link::SharingPolicy p) {
  switch (p) {
    case sg4::Link::SharingPolicy::SHARED: return "SHARED";
    case sg4::Link::SharingPolicy::SPLITDUPLEX: return "SPLITDUPLEX";
    case sg4::Link::SharingPolicy::FATPIPE: return "FATPIPE";
    default: return "OTHER";
  }
}

// In a child process: a SimGrid engine, the platform build() makes (returning the hosts of the ranks, in rank
// order), then every host's name, the network settings and the route of every pair, as JSON.
nlohmann::json describe_in_child(const std::function<std::vector<sg4::Host*>()>& build, const HostPairs& pairs) {
  const testing::EngineChildResult child = testing::in_engine_child([&] {
    nlohmann::json out;
    for (const sg4::Host* h : build()) out["rank_hosts"].push_back(h == nullptr ? "" : h->get_name());
    std::set<std::string> names;
    for (const sg4::Host* h : sg4::Engine::get_instance()->get_all_hosts()) names.insert(h->get_name());
    out["hosts"] = names;
    out["network_model"] = simgrid::config::get_value<std::string>("network/model");
    out["crosstraffic"] = simgrid::config::get_value<bool>("network/crosstraffic");
    for (const auto& [from, to] : pairs) {
      std::vector<sg4::Link*> links;
      double latency = 0;
      sg4::Host::by_name(from)->route_to(sg4::Host::by_name(to), links, &latency);
      nlohmann::json route = {{"latency", latency}, {"links", nlohmann::json::array()}};
      for (const sg4::Link* l : links)
        route["links"].push_back({l->get_bandwidth(), l->get_latency(), policy_name(l->get_sharing_policy())});
      out["routes"].push_back(route);
    }
    return out;
  });
  EXPECT_TRUE(child.ok) << child.error;
  return child.value;
}

// Every pair of ranks for small platforms; else rank 0 to every rank, mirrored pairs and seeded random pairs. Same
// host pairs (loopback routes) included.
HostPairs pairs_of(const std::vector<std::string>& hosts) {
  const std::size_t n = hosts.size();
  HostPairs pairs;
  if (n <= 16) {
    for (const auto& a : hosts)
      for (const auto& b : hosts) pairs.emplace_back(a, b);
    return pairs;
  }
  for (std::size_t k = 0; k < n; ++k) {
    pairs.emplace_back(hosts[0], hosts[k]);
    pairs.emplace_back(hosts[k], hosts[n - 1 - k]);
  }
  std::mt19937 random(7);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  for (int i = 0; i < 300; ++i) pairs.emplace_back(hosts[pick(random)], hosts[pick(random)]);
  return pairs;
}

// Exports the platform, loads both versions, and checks that they agree.
void expect_agreement(const PlatformConfig& config, const std::string& label) {
  SCOPED_TRACE(label);
  const PlatformXml exported = platform_xml(config);
  ASSERT_EQ(static_cast<int>(exported.rank_hosts.size()), rank_count(config));
  const std::string file = testing::fresh_path("platform") + ".xml";
  std::ofstream(file) << exported.text;
  const HostPairs pairs = pairs_of(exported.rank_hosts);

  const nlohmann::json built = describe_in_child(
      [&config] {
        configure_network_model(config);
        return build_platform(config);
      },
      pairs);
  const nlohmann::json loaded = describe_in_child(
      [&file, &exported] {
        sg4::Engine::get_instance()->load_platform(file);
        std::vector<sg4::Host*> hosts;
        for (const auto& name : exported.rank_hosts) hosts.push_back(sg4::Host::by_name_or_null(name));
        return hosts;
      },
      pairs);
  std::filesystem::remove(file);
  ASSERT_FALSE(built.is_null());
  ASSERT_FALSE(loaded.is_null());

  // The exported rank placement is the builder's; both have the same hosts and network model settings.
  EXPECT_EQ(built["rank_hosts"], nlohmann::json(exported.rank_hosts));
  EXPECT_EQ(loaded["rank_hosts"], nlohmann::json(exported.rank_hosts));
  EXPECT_EQ(built["hosts"], loaded["hosts"]);
  EXPECT_EQ(built["network_model"], loaded["network_model"]);
  EXPECT_EQ(built["crosstraffic"], loaded["crosstraffic"]);

  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& a = built["routes"][i];
    const auto& b = loaded["routes"][i];
    SCOPED_TRACE(pairs[i].first + " -> " + pairs[i].second);
    ASSERT_EQ(a["links"].size(), b["links"].size());
    EXPECT_DOUBLE_EQ(a["latency"].get<double>(), b["latency"].get<double>());
    for (std::size_t k = 0; k < a["links"].size(); ++k) {
      EXPECT_DOUBLE_EQ(a["links"][k][0].get<double>(), b["links"][k][0].get<double>()) << "bandwidth of link " << k;
      EXPECT_DOUBLE_EQ(a["links"][k][1].get<double>(), b["links"][k][1].get<double>()) << "latency of link " << k;
      if (pairs[i].first == pairs[i].second && a["links"].size() == 1) {
        // A cluster's loopback: SimGrid's XML parser makes it FATPIPE, the C++ builders SHARED (PlatformXml.cpp).
        EXPECT_EQ(a["links"][k][2], "SHARED");
        EXPECT_EQ(b["links"][k][2], "FATPIPE");
      } else {
        EXPECT_EQ(a["links"][k][2], b["links"][k][2]) << "sharing policy of link " << k;
      }
    }
  }
}

GenericConfig generic(const std::string& topology, int nodes) {
  GenericConfig g;
  g.topology = topology;
  g.nodes = nodes;
  g.bandwidth_Bps = 12.5e9;
  g.latency_s = 0.7e-6;
  return g;
}

}  // namespace

TEST(PlatformXml, PizDaintAgreesWithTheBuilderAtEverySize) {
  // One router, one chassis, four chassis, two groups (the optical links).
  for (int nodes : {3, 64, 200, 400}) {
    PizDaintConfig c;
    c.nodes = nodes;
    c.routing = "minimal";
    expect_agreement(c, "piz_daint " + std::to_string(nodes));
  }
}

TEST(PlatformXml, GenericDragonflyAgreesWithTheBuilder) {
  GenericConfig g = generic("dragonfly", 40);
  g.groups = 3;
  g.group_links = 2;
  g.chassis = 2;
  g.chassis_links = 3;
  g.routers = 4;
  g.router_links = 1;
  g.nodes_per_router = 2;
  expect_agreement(g, "dragonfly 3 groups");
  g.nodes = 12;
  expect_agreement(g, "dragonfly, 12 of 48 nodes");
}

TEST(PlatformXml, GenericFatTreeAgreesWithTheBuilder) {
  GenericConfig g = generic("fat_tree", 16);
  g.fat_tree_levels = 2;
  g.fat_tree_down = {4, 4};
  g.fat_tree_up = {1, 2};
  g.fat_tree_parallel = {1, 2};
  expect_agreement(g, "fat tree 2;4,4;1,2;1,2");
  g.nodes = 24;
  g.fat_tree_levels = 3;
  g.fat_tree_down = {2, 3, 4};
  g.fat_tree_up = {1, 2, 2};
  g.fat_tree_parallel = {1, 1, 2};
  expect_agreement(g, "fat tree 3;2,3,4;1,2,2;1,1,2");
}

TEST(PlatformXml, GenericClusterTorusAndLocalhostAgreeWithTheBuilder) {
  expect_agreement(generic("cluster", 8), "cluster");
  GenericConfig torus = generic("torus", 10);
  torus.torus_dimensions = {2, 3, 2};
  expect_agreement(torus, "torus 2,3,2");
  GenericConfig lv08 = generic("cluster", 3);
  lv08.network_model = "LV08";
  expect_agreement(lv08, "cluster on LV08");
  LocalhostConfig local;
  local.ranks = 4;
  local.aggregate_bandwidth_Bps = 20e9;
  expect_agreement(local, "localhost with a memory-system link");
}

TEST(PlatformXml, TheFileSetsTheNetworkModelQuorumUses) {
  PizDaintConfig c;
  c.routing = "minimal";
  const std::string text = platform_xml(c).text;
  EXPECT_NE(text.find("<prop id=\"network/model\" value=\"CM02\"/>"), std::string::npos);
  EXPECT_NE(text.find("<prop id=\"network/crosstraffic\" value=\"0\"/>"), std::string::npos);
  EXPECT_NE(text.find("topology=\"DRAGONFLY\" topo_parameters=\"1,8;1,3;16,1;4\""), std::string::npos) << text;
}

TEST(PlatformXml, PlatformsItCannotDescribeAreErrorsThatSayWhy) {
  auto message = [](const PlatformConfig& config) {
    try {
      platform_xml(config);
    } catch (const PlatformXmlError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(Maverick2Config{}).find("maverick2 cannot be exported"), std::string::npos);
  EXPECT_NE(message(PizDaintConfig{}).find("platform.routing"), std::string::npos);  // adaptive by default
  GenericConfig adaptive;
  adaptive.topology = "dragonfly";
  adaptive.routing = "adaptive";
  EXPECT_NE(message(adaptive).find("platform.routing=minimal"), std::string::npos);
  LocalhostConfig table;
  table.native_allreduce = NativeAllreduceTable({{4, 1024, 1e-5}, {4, 1 << 20, 1e-3}});
  EXPECT_NE(message(table).find("platform.native_allreduce"), std::string::npos);
  LocalhostConfig reduce;
  reduce.reduce_Bps = 1e9;
  EXPECT_NE(message(reduce).find("platform.reduce_Bps"), std::string::npos);
  LocalhostConfig nodes;
  nodes.ranks = 8;
  nodes.ranks_per_node = 4;
  nodes.adapter_bandwidth_Bps = 1e9;
  EXPECT_NE(message(nodes).find("platform.ranks_per_node"), std::string::npos);
  XmlConfig xml;
  xml.file = "machine.xml";
  EXPECT_NE(message(xml).find("already a SimGrid platform file"), std::string::npos);
}

TEST(PlatformXmlCommand, WritesThePlatformAndTheHostfile) {
  const std::string out = testing::fresh_path("exported") + ".xml";
  const std::string hosts = testing::fresh_path("hosts");
  const auto r = testing::run_in_source_dir(
      testing::quorum_binary() +
      " platform-xml scenarios/quickstart.json --set platform.nodes=100 --set platform.routing=minimal --out " + out +
      " --hostfile " + hosts);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  PizDaintConfig hundred;
  hundred.nodes = 100;
  hundred.routing = "minimal";
  EXPECT_EQ(testing::slurp(out), platform_xml(hundred).text);
  const std::string lines = testing::slurp(hosts);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 100);
  EXPECT_EQ(lines.substr(0, 10), "nid0\nnid1\n");
  std::filesystem::remove(out);
  std::filesystem::remove(hosts);

  const auto bad = testing::run_in_source_dir(testing::quorum_binary() +
                                              " platform-xml scenarios/quickstart.json --set platform.name=maverick2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("maverick2 cannot be exported"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
}

}  // namespace quorum
