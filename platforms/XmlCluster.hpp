#pragma once
// One <cluster> element of a SimGrid XML platform file (DTD 4.1), and the document around it. SimGrid's XML parser
// turns a <cluster> into the same zone the s4u functions build (create_star_zone for FLAT, create_dragonfly_zone,
// create_fatTree_zone, create_torus_zone), so a platform built in C++ from one of those is written as one element.
#include <string>

namespace quorum::xml {

struct XmlCluster {
  std::string id;         // the zone's name
  std::string prefix;     // hosts are <prefix><i> for i in 0 .. hosts-1 (leaf i, as the C++ callbacks number them)
  long hosts = 0;
  double speed_flops = 0;
  double bandwidth_Bps = 0;
  double latency_s = 0;
  std::string sharing_policy = "SPLITDUPLEX";
  std::string topology = "FLAT";  // FLAT | DRAGONFLY | FAT_TREE | TORUS
  std::string topo_parameters;    // SimGrid's string for the topology ("2;4,4;1,2;1,2" for a fat tree)
  double loopback_bandwidth_Bps = 0;  // 0: no loopback link
  double loopback_latency_s = 0;
  double backbone_bandwidth_Bps = 0;  // FLAT only; 0: no backbone. A shared link every transfer crosses once.
};

// A double in the shortest text that reads back to the same value (SimGrid's parser uses strtod).
std::string exact_number(double value);

// The element, indented by indent spaces.
std::string cluster_element(const XmlCluster& cluster, int indent);

// A whole platform file: the network model settings (<config>) and one Full zone holding body (elements).
std::string platform_document(const std::string& comment, const std::string& network_model, bool crosstraffic,
                              const std::string& body);

}  // namespace quorum::xml
