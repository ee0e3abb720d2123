// NodeResourcesBalancedAllocation: 100 × (1 − standard deviation of the
// requested/allocatable fractions), over the real requests.
#pragma once

#include <cstdint>
#include <cstddef>

namespace tightpack::plugins {

int64_t balanced_allocation_score(const int64_t* requested, const int64_t* allocatable, size_t count);

}  // namespace tightpack::plugins
