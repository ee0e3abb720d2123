#include "daemon/routes.hpp"

#include <boost/json.hpp>

#include "daemon/dask_nodes_route.hpp"
#include "daemon/json_answers.hpp"
#include "daemon/spawn_route.hpp"
#include "log.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

// Who may ask: anyone (probes), whom the API server vouches for, or whoever
// the route itself checks (/home asks the hub, /dask/v1/nodes per cluster,
// /spawn/v1/profiles per namespace).
enum class Caller { Anyone, Vouched, CheckedByRoute };

struct Routes::Route {
  const char* path;
  Caller caller;
  bool paced;  // waits its turn under load (HttpLimits::paced_paths)
  HttpAnswer (Routes::*answer)(const HttpRequest&);
  bool body = false;  // takes a POST with a JSON body (HttpLimits::body_paths)
};

// In the order the not-found answers list them.
const Routes::Route Routes::kRoutes[] = {
    {"/healthz", Caller::Anyone, false, &Routes::health},
    {"/readyz", Caller::Anyone, false, &Routes::ready},
    {"/livez", Caller::Anyone, false, &Routes::health},
    {"/metrics", Caller::Vouched, true, &Routes::metrics},
    {"/snapshot", Caller::Vouched, true, &Routes::snapshot},
    {"/home", Caller::CheckedByRoute, true, &Routes::home},
    {"/dask/v1/nodes", Caller::CheckedByRoute, true, &Routes::dask_nodes},
    {"/spawn/v1/profiles", Caller::CheckedByRoute, true, &Routes::spawn, true},
};

namespace {

const Routes::Route* find_route(const std::string& path) {
  for (const Routes::Route& r : Routes::kRoutes) {
    if (path == r.path) return &r;
  }
  return nullptr;
}

// "/a, /b or /c" over the routes `keep` selects.
template <typename Keep>
std::string path_list(Keep keep) {
  std::vector<std::string> paths;
  for (const Routes::Route& r : Routes::kRoutes) {
    if (keep(r)) paths.emplace_back(r.path);
  }
  std::string list;
  for (size_t i = 0; i < paths.size(); ++i)
    list += (i == 0 ? "" : i + 1 == paths.size() ? " or " : ", ") + paths[i];
  return list;
}

bool is_probe(const Routes::Route& r) {
  return r.caller == Caller::Anyone;
}

}  // namespace

Routes::Routes(Scheduler& scheduler, const LeaderElector* elector, DelegatedAuth& auth,
               HubAuth* hub, std::string hub_namespace, Metrics& metrics, std::string lease_name)
    : scheduler_(scheduler),
      elector_(elector),
      auth_(auth),
      hub_(hub),
      hub_namespace_(std::move(hub_namespace)),
      metrics_(metrics),
      lease_name_(std::move(lease_name)) {}

HttpLimits Routes::secure_limits() {
  HttpLimits limits = probe_limits();
  // Reviews (DelegatedAuth::kConcurrentReviews) and the hub's asks
  // (HubAuth::kConcurrentAsks) can each hold a thread for seconds; one more
  // is always free for a caller whose decision is cached.
  limits.handler_threads =
      static_cast<unsigned>(DelegatedAuth::kConcurrentReviews + HubAuth::kConcurrentAsks + 1);
  for (const Route& r : kRoutes) {
    if (r.paced) limits.paced_paths.emplace_back(r.path);
    if (r.body) limits.body_paths.emplace_back(r.path);
  }
  limits.shared_credential = [this](const std::string& token) {
    return auth_.is_shared_token(token);
  };
  return limits;
}

HttpLimits Routes::probe_limits() {
  HttpLimits limits;
  for (const Route& r : kRoutes) {
    if (is_probe(r)) limits.inline_paths.emplace_back(r.path);
  }
  return limits;
}

HttpAnswer Routes::secure(const HttpRequest& request) {
  const Route* route = find_route(request.path);
  if (!route) {
    static const std::string not_found =
        "not found: try " + path_list([](const Route&) { return true; }) + "\n";
    return text_answer(404, not_found);
  }
  if (route->answer == &Routes::ready && !request.query.empty()) return ready_verbose(request);
  if (route->caller == Caller::Vouched) {
    if (auto decision = auth_.check(request.authorization, request.path); decision.status != 200) {
      if (decision.status == 503)
        log_warning("cannot authorize a request for " + request.path + ": " + decision.reason);
      return text_answer(decision.status, decision.reason + "\n");
    }
  }
  return (this->*route->answer)(request);
}

HttpAnswer Routes::probes_only(const HttpRequest& request) {
  const Route* route = find_route(request.path);
  if (route && is_probe(*route)) return (this->*route->answer)(request);
  static const std::string not_found = "not found: this port serves " + path_list(is_probe) + "\n";
  return text_answer(404, not_found);
}

HttpAnswer Routes::health(const HttpRequest&) {
  if (std::string problem = elector_ ? elector_->health() : ""; !problem.empty()) {
    return text_answer(500, "[-]leaderElection failed: " + problem + "\n");
  }
  return text_answer(200, "ok\n");
}

HttpAnswer Routes::ready(const HttpRequest&) {
  // Anyone may ask, so which right is missing (the RBAC the daemon runs
  // with) is said only in the log and to a caller the API server vouches for
  // (/readyz?verbose).
  if (!scheduler_.watch_problem().empty())
    return text_answer(503,
                       "not ready: the API server refuses the watches (the log and an "
                       "authenticated /readyz?verbose say which)\n");
  if (!scheduler_.synced())
    return text_answer(503, "the watch cache has not synced with the API server yet\n");
  return text_answer(200, "ok\n");
}

HttpAnswer Routes::ready_verbose(const HttpRequest& request) {
  if (auto decision = auth_.check(request.authorization, request.path); decision.status != 200)
    return text_answer(decision.status, decision.reason + "\n");
  // A refused list keeps the cache from syncing for ever: say which right is missing.
  if (std::string problem = scheduler_.watch_problem(); !problem.empty())
    return text_answer(503, problem + "\n");
  return ready(request);
}

HttpAnswer Routes::home(const HttpRequest& request) {
  if (!hub_) return text_answer(404, "not found: /home is served with --hub-api-url\n");
  const HubDecision who = hub_->check(request.authorization);
  if (who.status != 200) {
    if (who.status == 503) log_warning(who.reason);
    return error_answer(who.status, who.reason);
  }
  if (!scheduler_.synced()) return text_answer(503, "the watch cache has not synced yet\n");
  return json_answer(200, scheduler_.home(who.user, hub_namespace_));
}

HttpAnswer Routes::dask_nodes(const HttpRequest& request) {
  return dask_nodes_answer(request, auth_, scheduler_);
}

HttpAnswer Routes::spawn(const HttpRequest& request) {
  return spawn_answer(request, auth_, scheduler_);
}

HttpAnswer Routes::metrics(const HttpRequest&) {
  HttpAnswer a = text_answer(200, metrics_.text(lease_name_));
  a.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return a;
}

HttpAnswer Routes::snapshot(const HttpRequest& request) {
  if (!scheduler_.synced()) return text_answer(503, "the watch cache has not synced yet\n");
  // The sidebar asks for grouped pods; a client that does not know PodGroups
  // gets every pod (snapshot.hpp).
  PodForm form = PodForm::kExpanded;
  if (request.query == "pods=grouped") {
    form = PodForm::kGrouped;
  } else if (!request.query.empty() && request.query != "pods=expanded") {
    return text_answer(
        400, "/snapshot takes ?pods=grouped or ?pods=expanded, not ?" + request.query + "\n");
  }
  auto snapshot = scheduler_.snapshot(form);
  HttpAnswer a;
  a.etag = snapshot->etag;
  if (request.if_none_match == snapshot->etag) {
    a.status = 304;
    return a;
  }
  a.content_type = "application/json";
  a.shared_body = std::shared_ptr<const std::string>(snapshot, &snapshot->body);
  return a;
}

}  // namespace tightpack::daemon
