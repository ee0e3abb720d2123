#include "daemon/daemon_config.hpp"

#include <boost/json.hpp>
#include <cmath>
#include <set>

#include "tightpack/known_fields.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

// time.ParseDuration: an optional sign, then one or more decimal numbers,
// each with an optional fraction and a unit (ns, us, µs, ms, s, m, h), or
// "0" alone. Summed exactly in nanoseconds; a total beyond int64 is an
// error, as in Go. The result is in whole milliseconds, rounded toward zero.
Result<std::chrono::milliseconds> parse_go_duration(const std::string& text) {
  const Error invalid{"", "not a duration like 15s, 1m30s or 500ms: " + quote_value(text)};
  if (text.empty()) return Error{"", "empty duration"};
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    ++i;
  }
  if (text.substr(i) == "0") return std::chrono::milliseconds(0);
  if (i == text.size()) return invalid;
  constexpr uint64_t kMax = uint64_t{1} << 63;  // |int64 min|
  uint64_t total = 0;                           // nanoseconds
  while (i < text.size()) {
    // The number: digits, an optional fraction; at least one digit.
    uint64_t whole = 0;
    bool digits = false, overflow = false;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      digits = true;
      if (overflow || whole > kMax / 10) {  // leadingInt
        overflow = true;
        continue;
      }
      whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
      overflow = whole > kMax;
    }
    uint64_t fraction = 0, scale = 1;
    if (i < text.size() && text[i] == '.') {
      ++i;
      for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
        digits = true;
        if (scale <= kMax / 10) {  // digits beyond precision are dropped, as in Go
          fraction = fraction * 10 + static_cast<uint64_t>(text[i] - '0');
          scale *= 10;
        }
      }
    }
    if (!digits || overflow)
      return overflow ? Error{"", "duration out of range: " + quote_value(text)} : invalid;
    // The unit.
    const size_t start = i;
    while (i < text.size() && text[i] != '.' && !std::isdigit(static_cast<unsigned char>(text[i])))
      ++i;
    const std::string unit = text.substr(start, i - start);
    uint64_t ns_per_unit;
    if (unit == "ns")
      ns_per_unit = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs")
      ns_per_unit = 1000;  // µs, μs
    else if (unit == "ms")
      ns_per_unit = 1000000;
    else if (unit == "s")
      ns_per_unit = 1000000000;
    else if (unit == "m")
      ns_per_unit = 60ULL * 1000000000;
    else if (unit == "h")
      ns_per_unit = 3600ULL * 1000000000;
    else
      return invalid;
    if (whole > kMax / ns_per_unit) return Error{"", "duration out of range: " + quote_value(text)};
    uint64_t value = whole * ns_per_unit;
    // The fraction, as Go adds it: fraction × (unit / scale), in float64.
    value += static_cast<uint64_t>(static_cast<double>(fraction) *
                                   (static_cast<double>(ns_per_unit) / static_cast<double>(scale)));
    if (value > kMax || total > kMax - value)
      return Error{"", "duration out of range: " + quote_value(text)};
    total += value;
  }
  if (!negative && total == kMax) return Error{"", "duration out of range: " + quote_value(text)};
  const int64_t ms = static_cast<int64_t>(total / 1000000);
  return std::chrono::milliseconds(negative ? -ms : ms);
}

namespace {

// `where` is "$.<section>", a top-level section of the configuration.
Status check_keys(const json::object& o, const std::string& where,
                  std::initializer_list<std::string_view> known) {
  const JsonPath root;
  const std::string key = where.substr(2);
  const JsonPath section = root.field(key);
  if (auto unknown = unknown_field(o, section, known)) return *unknown;
  return Ok{};
}

Status duration(const json::object& o, const char* key, const std::string& where,
                std::chrono::milliseconds& out) {
  const json::value* v = o.if_contains(key);
  if (!v) return Ok{};
  if (!v->is_string()) return Error{where + "." + key, "expected a duration string like \"15s\""};
  auto d = parse_go_duration(std::string(v->get_string()));
  if (!d) return Error{where + "." + key, d.error().message};
  if (d->count() <= 0)
    return Error{where + "." + key,
                 "must be greater than zero, got " + quote_value(v->get_string())};
  out = *d;
  return Ok{};
}

Status string_field(const json::object& o, const char* key, const std::string& where,
                    std::string& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return Ok{};
  if (!v->is_string()) return Error{where + "." + key, "expected a string"};
  out = std::string(v->get_string());
  return Ok{};
}

Status number_field(const json::object& o, const char* key, const std::string& where, double& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return Ok{};
  if (v->is_int64())
    out = static_cast<double>(v->get_int64());
  else if (v->is_uint64())
    out = static_cast<double>(v->get_uint64());
  else if (v->is_double())
    out = v->get_double();
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
    if (auto s = check_keys(l, w,
                            {"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod",
                             "resourceLock", "resourceName", "resourceNamespace"});
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
    if (auto s = string_field(l, "resourceNamespace", w, e.resource_namespace); !s)
      return s.error();
    // The Lease records whole seconds (leaseDurationSeconds): a standby
    // would take over after the rounded-down duration while this leader
    // still counts on the full one.
    if (e.lease_duration.count() % 1000 != 0) {
      return Error{w + ".leaseDuration",
                   "must be whole seconds (the Lease records leaseDurationSeconds), got " +
                       quote_value(l.at("leaseDuration").get_string())};
    }
    // client-go's leaderelection.NewLeaderElector checks these.
    if (e.lease_duration <= e.renew_deadline) {
      return Error{w + ".leaseDuration", "must be greater than renewDeadline"};
    }
    if (e.renew_deadline.count() <=
        static_cast<int64_t>(1.2 * static_cast<double>(e.retry_period.count()))) {
      return Error{w + ".renewDeadline", "must be greater than 1.2 × retryPeriod"};
    }
  }
  if (const json::value* cc = o.if_contains("clientConnection")) {
    if (!cc->is_object()) return Error{"$.clientConnection", "expected an object"};
    const json::object& l = cc->get_object();
    const std::string w = "$.clientConnection";
    if (auto s =
            check_keys(l, w, {"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"});
        !s)
      return s.error();
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
    if (!v->is_int64() || v->get_int64() <= 0)
      return Error{std::string("$.") + key, "expected a whole number of seconds > 0"};
    *out = std::chrono::seconds(v->get_int64());
  }
  if (c.max_backoff < c.initial_backoff) {
    return Error{"$.podMaxBackoffSeconds", "must be at least podInitialBackoffSeconds"};
  }
  return c;
}

}  // namespace tightpack::daemon
