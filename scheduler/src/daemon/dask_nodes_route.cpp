#include "daemon/dask_nodes_route.hpp"

#include <boost/json.hpp>
#include <cctype>
#include <set>

#include "daemon/json_answers.hpp"
#include "log.hpp"

namespace tightpack::daemon {

namespace json = boost::json;

namespace {

// RFC 1123 label (a namespace's name), or a label value (a Dask cluster's
// name as the operator and dask-gateway label its pods): at most 63 characters,
// alphanumerics at both ends.
bool valid_name(const std::string& s, bool label_value) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [&](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) ||
           std::islower(static_cast<unsigned char>(c)) ||
           (label_value && std::isupper(static_cast<unsigned char>(c)));
  };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && !(label_value && (c == '.' || c == '_'))) return false;
  }
  return true;
}

// A node's name: an RFC 1123 subdomain.
bool valid_node_name(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  auto alnum = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) ||
           std::islower(static_cast<unsigned char>(c));
  };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

// drained=a,b (and raised=, refused=): nodes the cluster's preload names.
Result<std::set<std::string>> parse_nodes(const std::string& field, const std::string& text) {
  constexpr size_t kMostNodes = 64;  // a cluster drains the few nodes moves name
  std::set<std::string> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, end - start);
    start = end + 1;
    if (!valid_node_name(name)) {
      return Error{"query: " + field,
                   quote_value(name) + " is not a node's name (RFC 1123 subdomain)"};
    }
    out.insert(name);
    if (out.size() > kMostNodes) {
      return Error{"query: " + field, "names more than " + std::to_string(kMostNodes) + " nodes"};
    }
  }
  return out;
}

}  // namespace

HttpAnswer dask_nodes_answer(const HttpRequest& request, DelegatedAuth& auth,
                             Scheduler& scheduler) {
  auto params = parse_query(request.query,
                            {"namespace", "cluster", "drained", "raised", "refused", "adaptive"});
  if (!params) return error_answer(400, params.error().what());
  const std::string ns = (*params)["namespace"], cluster = (*params)["cluster"];
  if (!valid_name(ns, false)) {
    return error_answer(
        400, "query: namespace " + quote_value(ns) + " is not a namespace's name (RFC 1123 label)");
  }
  if (!valid_name(cluster, true)) {
    return error_answer(
        400, "query: cluster " + quote_value(cluster) +
                 " is not a Dask cluster's name (a label value: 1-63 of [A-Za-z0-9._-])");
  }
  PreloadReport report;
  for (auto [field, into] :
       {std::pair{"drained", &report.drained}, std::pair{"raised", &report.raised},
        std::pair{"refused", &report.refused}}) {
    auto nodes = parse_nodes(field, (*params)[field]);
    if (!nodes) return error_answer(400, nodes.error().what());
    *into = std::move(*nodes);
  }
  const std::string& adaptive = (*params)["adaptive"];
  if (!adaptive.empty() && adaptive != "true" && adaptive != "false") {
    return error_answer(400, "query: adaptive " + quote_value(adaptive) + " is not true or false");
  }
  report.adaptive = adaptive == "true";
  const AuthDecision decision = auth.check_resource(request.authorization, ns, "list", "pods");
  if (decision.status != 200) {
    if (decision.status == 503)
      log_warning("cannot authorize a request for /dask/v1/nodes: " + decision.reason);
    return error_answer(decision.status, decision.reason);
  }
  if (!scheduler.synced()) return error_answer(503, "the watch cache has not synced yet");
  return json_answer(200, scheduler.dask_nodes(ns, cluster, std::move(report)));
}

}  // namespace tightpack::daemon
