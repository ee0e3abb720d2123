// What the in-cluster scheduler reads from files and flags, by the first
// byte: the KubeSchedulerConfiguration's daemon part (YAML or JSON through
// the YAML-to-JSON reader), a kubeconfig, a kubectl label selector, a
// NodePools document, a Go duration. Refusals are fine (each must say what
// is wrong); what is accepted must hold what its decoder promises.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "cli/yaml_json.hpp"
#include "daemon/daemon_config.hpp"
#include "kube/client_config.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/pools/pools.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

template <class R>
void check_refusal(const R& r) {
  if (!r) check(!r.error().what().empty());
}

void daemon_config(std::string_view text) {
  auto doc = tightpack::cli::parse_document(text);
  check_refusal(doc);
  if (!doc) return;
  auto c = tightpack::daemon::decode_daemon_config(*doc);
  check_refusal(c);
  if (!c) return;
  const auto& le = c->leader_election;
  if (le.enabled) {
    check(le.retry_period.count() > 0);
    check(le.lease_duration > le.renew_deadline);
    check(le.renew_deadline.count() * 5 > le.retry_period.count() * 6);  // > 1.2 × retryPeriod
    check(le.lease_duration.count() % 1000 == 0);
    check(!le.resource_namespace.empty() && !le.resource_name.empty());
  }
  check(c->burst >= 0);
  check(c->initial_backoff.count() > 0 && c->max_backoff >= c->initial_backoff);
}

void kubeconfig(std::string_view text) {
  // load_kubeconfig reads a file, as the daemon does.
  static const std::string path =
      "/tmp/fuzz_daemon_inputs." + std::to_string(getpid()) + ".kubeconfig";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  auto c = tightpack::kube::load_kubeconfig(path);
  check_refusal(c);
  if (!c) return;
  check(!c->server.empty() && !c->host.empty() && !c->port.empty());
  check(c->token != nullptr);
}

void selector(std::string_view text) {
  auto s = tightpack::parse_label_selector(text);
  check_refusal(s);
  if (!s) return;
  // An accepted selector is a valid LabelSelector, and matching never fails.
  check(!tightpack::validate_label_selector(*s, tightpack::JsonPath("selector")));
  tightpack::Labels labels;
  for (const auto& [k, v] : s->match_labels) labels.emplace_back(k, v);
  for (const auto& r : s->match_expressions) {
    if (!r.values.empty()) labels.emplace_back(r.key, r.values.front());
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               labels.end());
  (void)tightpack::label_selector_matches(*s, labels);
}

void pools(std::string_view text) {
  auto doc = tightpack::cli::parse_document(text);
  if (!doc) return;
  check_refusal(tightpack::pools::decode_pools_config(*doc, tightpack::JsonPath()));
}

void duration(std::string_view text) {
  auto d = tightpack::daemon::parse_go_duration(std::string(text));
  check_refusal(d);
  // Go durations may be negative ("-1.5h"), and only those that say so are.
  if (d && d->count() < 0) check(!text.empty() && text[0] == '-');
  auto s = tightpack::pools::parse_duration(text);
  check_refusal(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 5) {
    case 0:
      daemon_config(text);
      break;
    case 1:
      kubeconfig(text);
      break;
    case 2:
      selector(text);
      break;
    case 3:
      pools(text);
      break;
    default:
      duration(text);
      break;
  }
  return 0;
}
