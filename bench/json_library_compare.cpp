// Boost.JSON, as the engine parses, beside nlohmann/json on the same snapshot
// text: the figures behind docs/engine.md's choice of one JSON library. Built
// only when nlohmann/json is installed (Debian's nlohmann-json3-dev); core never
// links it.
//
//   build/release/bench/tightpack_json_compare --benchmark_repetitions=5 \
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "synthetic_cluster.hpp"
#include "tightpack/decode.hpp"

namespace tightpack::bench {
namespace {

enum Library { kEngine = 0, kBoostDefault = 1, kNlohmann = 2 };

void BM_ParseSnapshot(benchmark::State& state) {
  const std::string& text = snapshot_text(static_cast<size_t>(state.range(0)));
  const auto library = static_cast<Library>(state.range(1));
  for (auto _ : state) {
    switch (library) {
      case kEngine: {  // stream parser, depth limit, monotonic arena: what decode reads
        auto doc = parse_json(text);
        benchmark::DoNotOptimize(doc);
        break;
      }
      case kBoostDefault: {
        auto doc = boost::json::parse(text);
        benchmark::DoNotOptimize(doc);
        break;
      }
      case kNlohmann: {
        auto doc = nlohmann::json::parse(text);
        benchmark::DoNotOptimize(doc);
        break;
      }
    }
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetLabel(library == kEngine         ? "Boost.JSON, the engine's parse_json"
                 : library == kBoostDefault ? "Boost.JSON, boost::json::parse"
                                            : "nlohmann/json 3, nlohmann::json::parse");
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ParseSnapshot)
    ->ArgsProduct({{1000, 5000}, {kEngine, kBoostDefault, kNlohmann}})
    ->ArgNames({"nodes", "library"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tightpack::bench

BENCHMARK_MAIN();
