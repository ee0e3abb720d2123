#include "daemon/daemon_config.hpp"

#include <boost/json.hpp>
#include <cmath>
#include <set>

namespace tightpack::daemon {
namespace json = boost::json;

Result<std::chrono::milliseconds> parse_go_duration(const std::string& text) {
  if (text.empty()) return Error{"", "empty duration"};
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == i) return Error{"", "not a duration like 15s or 1m30s: " + quote_value(text)};
    const double number = std::stod(text.substr(i, j - i));
    size_t k = j;
    while (k < text.size() && std::isalpha(static_cast<unsigned char>(text[k]))) ++k;
    const std::string unit = text.substr(j, k - j);
    double scale;
    if (unit == "ms") scale = 1;
    else if (unit == "s") scale = 1000;
    else if (unit == "m") scale = 60000;
    else if (unit == "h") scale = 3600000;
    else return Error{"", "not a duration like 15s or 1m30s: " + quote_value(text)};
    total_ms += number * scale;
    i = k;
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(total_ms)));
}

namespace {

Status check_keys(const json::object& o, const std::string& where, const std::set<std::string>& known) {
  for (const auto& kv : o) {
    if (!known.count(std::string(kv.key()))) return Error{where + "." + std::string(kv.key()), "unknown field"};
  }
  return Ok{};
}

Status duration(const json::object& o, const char* key, const std::string& where, std::chrono::milliseconds& out) {
  const json::value* v = o.if_contains(key);
  if (!v) return Ok{};
  if (!v->is_string()) return Error{where + "." + key, "expected a duration string like \"15s\""};
  auto d = parse_go_duration(std::string(v->get_string()));
  if (!d) return Error{where + "." + key, d.error().message};
  if (d->count() <= 0) return Error{where + "." + key, "must be greater than zero, got " + quote_value(v->get_string())};
  out = *d;
  return Ok{};
}

Status string_field(const json::object& o, const char* key, const std::string& where, std::string& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return Ok{};
  if (!v->is_string()) return Error{where + "." + key, "expected a string"};
  out = std::string(v->get_string());
  return Ok{};
}

Status number_field(const json::object& o, const char* key, const std::string& where, double& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return Ok{};
  if (v->is_int64()) out = static_cast<double>(v->get_int64());
  else if (v->is_uint64()) out = static_cast<double>(v->get_uint64());
  else if (v->is_double()) out = v->get_double();
  else if (v->is_string()) {  // YAML numbers with a fraction stay strings (yaml_json.hpp)
    try {
      size_t used = 0;
      out = std::stod(std::string(v->get_string()), &used);
      if (used != v->get_string().size()) throw std::invalid_argument("");
    } catch (...) {
      return Error{where + "." + key, "expected a number, got " + quote_value(v->get_string())};
    }
  } else {
    return Error{where + "." + key, "expected a number"};
  }
  return Ok{};
}

}  // namespace

Result<DaemonConfig> decode_daemon_config(const json::value& doc) {
  DaemonConfig c;
  if (!doc.is_object()) return Error{"$", "expected a KubeSchedulerConfiguration object"};
  const json::object& o = doc.get_object();
  if (const json::value* le = o.if_contains("leaderElection")) {
    if (!le->is_object()) return Error{"$.leaderElection", "expected an object"};
    const json::object& l = le->get_object();
    const std::string w = "$.leaderElection";
    if (auto s = check_keys(l, w, {"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
                                   "resourceName", "resourceNamespace"});
        !s)
      return s.error();
    if (const json::value* v = l.if_contains("leaderElect")) {
      if (!v->is_bool()) return Error{w + ".leaderElect", "expected true or false"};
      c.leader_election.enabled = v->get_bool();
    }
    LeaderElection& e = c.leader_election;
    if (auto s = duration(l, "leaseDuration", w, e.lease_duration); !s) return s.error();
    if (auto s = duration(l, "renewDeadline", w, e.renew_deadline); !s) return s.error();
    if (auto s = duration(l, "retryPeriod", w, e.retry_period); !s) return s.error();
    std::string lock;
    if (auto s = string_field(l, "resourceLock", w, lock); !s) return s.error();
    if (!lock.empty() && lock != "leases") {
      return Error{w + ".resourceLock", "only leases is supported, got " + quote_value(lock)};
    }
    if (auto s = string_field(l, "resourceName", w, e.resource_name); !s) return s.error();
    if (auto s = string_field(l, "resourceNamespace", w, e.resource_namespace); !s) return s.error();
    // client-go's leaderelection.NewLeaderElector checks these.
    if (e.lease_duration <= e.renew_deadline) {
      return Error{w + ".leaseDuration", "must be greater than renewDeadline"};
    }
    if (e.renew_deadline.count() <= static_cast<int64_t>(1.2 * static_cast<double>(e.retry_period.count()))) {
      return Error{w + ".renewDeadline", "must be greater than 1.2 × retryPeriod"};
    }
  }
  if (const json::value* cc = o.if_contains("clientConnection")) {
    if (!cc->is_object()) return Error{"$.clientConnection", "expected an object"};
    const json::object& l = cc->get_object();
    const std::string w = "$.clientConnection";
    if (auto s = check_keys(l, w, {"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"}); !s) return s.error();
    if (auto s = string_field(l, "kubeconfig", w, c.kubeconfig); !s) return s.error();
    if (auto s = number_field(l, "qps", w, c.qps); !s) return s.error();
    double burst = c.burst;
    if (auto s = number_field(l, "burst", w, burst); !s) return s.error();
    if (burst < 0 || burst != std::floor(burst) || burst > 1e9) {
      return Error{w + ".burst", "expected a whole number ≥ 0"};
    }
    c.burst = static_cast<int>(burst);
  }
  for (auto [key, out] : {std::pair{"podInitialBackoffSeconds", &c.initial_backoff},
                          std::pair{"podMaxBackoffSeconds", &c.max_backoff}}) {
    const json::value* v = o.if_contains(key);
    if (!v) continue;
    if (!v->is_int64() || v->get_int64() <= 0) return Error{std::string("$.") + key, "expected a whole number of seconds > 0"};
    *out = std::chrono::seconds(v->get_int64());
  }
  if (c.max_backoff < c.initial_backoff) {
    return Error{"$.podMaxBackoffSeconds", "must be at least podInitialBackoffSeconds"};
  }
  return c;
}

}  // namespace tightpack::daemon
