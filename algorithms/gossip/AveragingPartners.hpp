#pragma once
// The metric every model-averaging algorithm reports once per step: how many other ranks' models were mixed into
// this rank's model during the step (D-PSGD: 2; SGP: the in-peers; AD-PSGD: one per pairwise averaging that touched
// the rank; Prague: |G| - 1 per group it averaged with). summary.json: metrics and histograms "averaging_partners".
#include <cstdint>

#include "algorithms/RankContext.hpp"

namespace quorum {

inline void record_averaging_partners(RankContext& ctx, std::int64_t partners) {
  ctx.observer.sample(ctx.comm.rank(), "averaging_partners", static_cast<double>(partners));
  ctx.observer.histogram(ctx.comm.rank(), "averaging_partners", partners);
}

}  // namespace quorum
