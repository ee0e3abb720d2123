// NodeResourcesBalancedAllocation is header-only (inline, hot loop).
#include "tightpack/plugins/balanced_allocation.hpp"
