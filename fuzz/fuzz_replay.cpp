// The whole engine on arbitrary text: scenario decoding, profile resolution
// (including an embedded KubeSchedulerConfiguration), cluster building and
// scheduling. Whatever comes in, replay_text answers with one JSON object,
// {"profile": …, "results": […]} or {"error": "…"}, as replay.hpp promises.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tightpack/decode.hpp"
#include "tightpack/replay.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string out = tightpack::replay_text(text);
  auto doc = tightpack::parse_json(out);
  check(doc.ok() && doc->is_object());
  const auto& o = doc->get_object();
  if (const auto* error = o.if_contains("error")) {
    check(error->is_string() && !error->get_string().empty());
    return 0;
  }
  const auto* profile = o.if_contains("profile");
  const auto* results = o.if_contains("results");
  check(profile && profile->is_object() && results && results->is_array());
  for (const auto& r : results->get_array()) {
    check(r.is_object() && r.get_object().contains("pod"));
  }
  return 0;
}
