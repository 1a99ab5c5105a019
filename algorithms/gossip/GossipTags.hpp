#pragma once
// Tags of the gossip algorithms (D-PSGD, SGP, AD-PSGD). AD-PSGD's requests arrive at a passive rank from any of its
// active neighbours, so they use an any-source tag; everything else is received from a named peer.
#include "algorithms/comm/Tag.hpp"

namespace quorum::gossip_tags {

inline constexpr Tag kDpsgdModel = tags::make(Channel::Gossip, 0);
inline constexpr Tag kSgpPush = tags::make(Channel::Gossip, 1);
inline constexpr Tag kAdpsgdReply = tags::make(Channel::Gossip, 2);
inline constexpr Tag kAdpsgdRequest = tags::make_any_source(Channel::GossipRequest, 0);

}  // namespace quorum::gossip_tags
