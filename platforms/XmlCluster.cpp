#include "platforms/XmlCluster.hpp"

#include <charconv>
#include <stdexcept>

namespace quorum::xml {

std::string exact_number(double value) {
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (error != std::errc()) throw std::logic_error("exact_number: cannot format a double");
  return std::string(buffer, end);
}

namespace {

std::string attribute(const std::string& name, const std::string& value) { return " " + name + "=\"" + value + "\""; }

// "--" may not appear inside an XML comment.
std::string comment_text(std::string text) {
  for (std::size_t i = text.find("--"); i != std::string::npos; i = text.find("--", i)) text.replace(i, 2, "- -");
  return text;
}

}  // namespace

std::string cluster_element(const XmlCluster& c, int indent) {
  if (c.hosts < 1) throw std::logic_error("cluster_element: a cluster needs at least one host");
  std::string e(static_cast<std::size_t>(indent), ' ');
  e += "<cluster";
  e += attribute("id", c.id);
  e += attribute("prefix", c.prefix);
  e += attribute("suffix", "");
  e += attribute("radical", "0-" + std::to_string(c.hosts - 1));
  e += attribute("speed", exact_number(c.speed_flops) + "f");
  e += attribute("bw", exact_number(c.bandwidth_Bps) + "Bps");
  e += attribute("lat", exact_number(c.latency_s) + "s");
  e += attribute("sharing_policy", c.sharing_policy);
  if (c.topology != "FLAT") {
    e += attribute("topology", c.topology);
    e += attribute("topo_parameters", c.topo_parameters);
  }
  // SimGrid creates the loopback when either value is positive; a zero-latency loopback is set by its bandwidth.
  if (c.loopback_bandwidth_Bps > 0) {
    e += attribute("loopback_bw", exact_number(c.loopback_bandwidth_Bps) + "Bps");
    e += attribute("loopback_lat", exact_number(c.loopback_latency_s) + "s");
  }
  if (c.backbone_bandwidth_Bps > 0) {
    if (c.topology != "FLAT") throw std::logic_error("cluster_element: only a FLAT cluster has a backbone");
    e += attribute("bb_bw", exact_number(c.backbone_bandwidth_Bps) + "Bps");
    e += attribute("bb_lat", "0s");
    e += attribute("bb_sharing_policy", "SHARED");
  }
  e += "/>\n";
  return e;
}

std::string platform_document(const std::string& comment, const std::string& network_model, bool crosstraffic,
                              const std::string& body) {
  std::string d = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  d += "<!-- " + comment_text(comment) + " -->\n";
  d += "<platform version=\"4.1\">\n";
  d += "  <config>\n";
  d += "    <prop id=\"network/model\" value=\"" + network_model + "\"/>\n";
  d += std::string("    <prop id=\"network/crosstraffic\" value=\"") + (crosstraffic ? "1" : "0") + "\"/>\n";
  d += "  </config>\n";
  d += "  <zone id=\"quorum\" routing=\"Full\">\n";
  d += body;
  d += "  </zone>\n</platform>\n";
  return d;
}

}  // namespace quorum::xml
