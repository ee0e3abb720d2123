// The inputs of the what-if benchmarks, shared by the native benchmark and
// the WebAssembly one (wasm/bench/what_if.js reads them from the files that
// tightpack_what_if_inputs writes), so both measure the same bytes.
#pragma once

#include <cstddef>
#include <string>

namespace tightpack::bench {

inline constexpr size_t kWhatIfPodsPerNode = 10;

// A synthetic cluster of `nodes` nodes and 10 bound pods per node.
std::string what_if_snapshot(size_t nodes);

// {"pod": <a Dask worker>, "replicas": N, "profile": PROFILE}
std::string place_request(int replicas, const std::string& profile);

}  // namespace tightpack::bench
