#pragma once
// Eigen splits a matrix product's inner dimension into blocks sized from the processor's cache sizes, which it reads
// with CPUID when the first product runs, and the split decides the order of the float additions: the same product
// gives other bits for an L1 of 32 KiB than of 48 or 64 KiB, and the demo's accuracy differed between two VMs so.
// Fixing the sizes makes a run's CPU math the same on every x86-64 machine, not only on one.

namespace quorum {

// The cache sizes every matrix product blocks for: Eigen's own x86 defaults (used where CPUID tells it nothing), so
// the choice is Eigen's and not tuned to any figure.
inline constexpr long kProductBlockingL1Bytes = 32 * 1024;
inline constexpr long kProductBlockingL2Bytes = 256 * 1024;
inline constexpr long kProductBlockingL3Bytes = 2 * 1024 * 1024;

// Sets Eigen's blocking cache sizes to the ones above, once per process; thread-safe. Every Model's constructor calls
// it, so no product runs before it.
void fix_product_blocking();
// Sets them now, every time it is called (not thread-safe: Eigen's sizes are process-wide); for code that changed them.
void set_fixed_product_blocking();

}  // namespace quorum
