#include "sim/simgrid/SimWorld.hpp"

#include <string>

namespace quorum {

simgrid::s4u::Mailbox* SimWorld::mailbox(int dst, int src, Tag tag) {
  const std::uint64_t key = mailbox_key(dst, src, tag);
  if (simgrid::s4u::Mailbox** found = mailboxes_.find(key)) return *found;
  // by_name is a simcall: other actors run meanwhile and may grow the table, so no slot is held across it.
  auto* mb = simgrid::s4u::Mailbox::by_name(std::to_string(dst) + ":" + std::to_string(src) + ":" + std::to_string(tag));
  mailboxes_.at(key) = mb;
  return mb;
}

}  // namespace quorum
