#include "sim/simgrid/SimWorld.hpp"

#include <string>

namespace quorum {

simgrid::s4u::Mailbox* SimWorld::mailbox(int dst, int src, Tag tag) {
  const std::uint64_t key = mailbox_key(dst, src, tag);
  auto it = mailboxes_.find(key);
  if (it != mailboxes_.end()) return it->second;
  auto* mb = simgrid::s4u::Mailbox::by_name(std::to_string(dst) + ":" + std::to_string(src) + ":" + std::to_string(tag));
  mailboxes_.emplace(key, mb);
  return mb;
}

}  // namespace quorum
