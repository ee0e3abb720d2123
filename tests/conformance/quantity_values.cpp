// quantity_values: what tightpack's Quantity makes of each spelling, in the
// shape `kube-scheduler-reference --quantities` prints (quantities.py compares
// the two). One JSON string per input line; per output line
// {"value":V,"milli":M} or {"error":"…"}. A spelling whose allocation-free
// path (Quantity::fast_scaled, which the decoder tries first) answers
// differently from the exact one is printed as an error naming both, so that
// the comparison fails on it.
//
// With --pods: one JSON pod per line, and what the engine's NodeInfo columns
// count of it (Cluster::usage_of, PodRequests summed as kube-scheduler sums
// them), in the shape `kube-scheduler-reference --pod-requests` prints.
#include <boost/json.hpp>
#include <iostream>
#include <string>
#include <string_view>

#include "tightpack/cluster.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/pod_resources.hpp"
#include "tightpack/quantity.hpp"

namespace {

int pods() {
  std::string line;
  while (std::getline(std::cin, line)) {
    boost::json::error_code ec;
    boost::json::value v = boost::json::parse(line, ec);
    if (ec) {
      std::cerr << "quantity_values: not JSON: " << line << "\n";
      return 2;
    }
    auto pod = tightpack::decode_pod(v, tightpack::JsonPath());
    if (!pod) {
      std::cout << "{\"error\":" << boost::json::serialize(boost::json::value(pod.error().what()))
                << "}\n";
      continue;
    }
    const tightpack::Cluster cluster;
    const tightpack::PodUsage u = cluster.usage_of(*pod);
    boost::json::object requested;
    if (u.cpu != 0) requested["cpu"] = u.cpu;
    if (u.memory != 0) requested["memory"] = u.memory;
    if (u.ephemeral != 0) requested["ephemeral-storage"] = u.ephemeral;
    // No node offers the scalars here: the cluster keeps them by name.
    for (const auto& [name, amount] : u.unknown_scalars) {
      if (amount != 0) requested[name] = amount;
    }
    boost::json::object out{
        {"requested", std::move(requested)},
        {"nonZero", boost::json::object{{"cpu", u.nz_cpu}, {"memory", u.nz_memory}}}};
    std::cout << boost::json::serialize(out) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  if (argc > 1 && std::string_view(argv[1]) == "--pods") return pods();
  std::string line;
  while (std::getline(std::cin, line)) {
    boost::json::error_code ec;
    boost::json::value v = boost::json::parse(line, ec);
    if (ec || !v.is_string()) {
      std::cerr << "quantity_values: not a JSON string: " << line << "\n";
      return 2;
    }
    const std::string text(v.get_string());
    auto q = tightpack::Quantity::parse(text);
    if (!q &&
        (tightpack::Quantity::fast_scaled(text, 0) || tightpack::Quantity::fast_scaled(text, 3))) {
      std::cout << "{\"value\":\"fast_scaled answers what parse refuses\"}\n";
      continue;
    }
    if (!q) {
      std::cout << "{\"error\":" << boost::json::serialize(boost::json::value(q.error().what()))
                << "}\n";
      continue;
    }
    const int64_t value = q->value(), milli = q->milli_value();
    bool fast_agrees = true;
    for (int32_t shift : {0, 3}) {
      bool whole = false;
      auto fast = tightpack::Quantity::fast_scaled(text, shift, &whole);
      if (fast && *fast != (shift == 3 ? milli : value)) fast_agrees = false;
      // The decoder sums a pod's amounts in int64 only where this says so.
      if (fast && whole && !q->whole_in(shift)) fast_agrees = false;
    }
    if (!fast_agrees) {
      std::cout << "{\"error\":\"fast_scaled disagrees with parse\"}\n";
      continue;
    }
    std::cout << "{\"value\":" << value << ",\"milli\":" << milli << "}\n";
  }
  return 0;
}
