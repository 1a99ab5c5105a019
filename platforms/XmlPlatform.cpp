// A SimGrid XML platform file. Ranks are placed on its hosts in name order.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>

#include "platforms/PlatformBuilder.hpp"

namespace quorum {

std::vector<simgrid::s4u::Host*> build_xml(const XmlConfig& c) {
  auto& engine = *simgrid::s4u::Engine::get_instance();
  engine.load_platform(c.file);
  auto hosts = engine.get_all_hosts();
  std::sort(hosts.begin(), hosts.end(), [](auto* a, auto* b) { return a->get_name() < b->get_name(); });
  if (static_cast<int>(hosts.size()) < c.ranks) hosts.clear();  // the scenario layer reports this
  else hosts.resize(static_cast<std::size_t>(c.ranks));
  return hosts;
}

}  // namespace quorum
