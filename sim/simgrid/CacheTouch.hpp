#pragma once
// Reading objects ahead of their use, across a batch: where hundreds of objects far apart in memory are about to be
// read one after the other (the messages that arrive at one instant and the actors they wake), reading a byte of each
// first lets their cache and TLB misses overlap, where the handling one by one waits for each miss in turn.
//
// A load, not __builtin_prefetch: for the direct messages' ends (DirectMessages), prefetching each end's lines across
// the batch left the later read of the end a miss as often as before (perf: the same share of samples on it), where a
// load in the same place took that read's samples away. A prefetch is only a hint, and here it did not take.
#include <cstddef>

namespace quorum {

// The cache line of the x86-64 processors the simulator is measured on (what a miss fetches).
inline constexpr std::size_t kCacheLineBytes = 64;

// Reads the byte at `at`; volatile, so that the compiler keeps a load whose value nobody uses.
inline void touch(const void* at) { (void)*static_cast<const volatile unsigned char*>(at); }

// Reads a byte of every cache line of [first, first + bytes), without reading outside it.
inline void touch_lines(const void* first, std::size_t bytes) {
  const auto* at = static_cast<const unsigned char*>(first);
  for (std::size_t offset = 0; offset < bytes; offset += kCacheLineBytes) touch(at + offset);
  if (bytes > 0) touch(at + bytes - 1);  // the last line, where `first` is not at a line's start
}

}  // namespace quorum
