// KubeSchedulerConfiguration documents through the strict decoder. Refusals
// are fine; an accepted configuration must satisfy the validation that
// decode_scheduler_configuration claims to apply, and encode without trouble.
#include <boost/json/serialize.hpp>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tightpack/decode.hpp"
#include "tightpack/profile.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_profile(const tightpack::Profile& p) {
  check(!p.scheduler_name.empty());
  check(p.percentage_of_nodes_to_score >= 0 && p.percentage_of_nodes_to_score <= 100);
  // The decoder refuses weights whose sum of maximum scores (100 each) could
  // overflow the int64 total.
  __int128 total = 0;
  for (const auto& s : p.scores) {
    check(s.weight > 0);
    total += static_cast<__int128>(s.weight) * 100;
  }
  check(total <= INT64_MAX);
  const auto& fit = p.fit;
  check(!fit.resources.empty() && fit.resources.size() <= 16);
  check(!p.balanced_resources.empty() && p.balanced_resources.size() <= 16);
  for (const auto* specs : {&fit.resources, &p.balanced_resources}) {
    for (const auto& r : *specs) check(!r.name.empty() && r.weight >= 1 && r.weight <= 100);
  }
  if (fit.strategy == tightpack::ScoringStrategy::RequestedToCapacityRatio) {
    check(!fit.shape.empty());
  }
  for (size_t i = 0; i < fit.shape.size(); ++i) {
    check(fit.shape[i].utilization >= 0 && fit.shape[i].utilization <= 100);
    check(fit.shape[i].score >= 0 && fit.shape[i].score <= 10);
    if (i > 0) check(fit.shape[i].utilization > fit.shape[i - 1].utilization);
  }
  check(!boost::json::serialize(tightpack::encode_profile(p)).empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = tightpack::parse_json(text);
  if (!doc.ok()) return 0;
  auto config = tightpack::decode_scheduler_configuration(*doc, tightpack::JsonPath());
  if (!config.ok()) {
    check(!config.error().message.empty());
    return 0;
  }
  check(!config->profiles.empty());
  for (const auto& p : config->profiles) {
    check_profile(p);
    check(config->find(p.scheduler_name) == &p);  // names are unique
  }
  return 0;
}
