// What the daemon serves, path by path, in one table (routes.cpp): the probes,
// without authentication and also alone on --probe-listen; /metrics and
// /snapshot to callers the API server vouches for (delegated authentication);
// /home to a JupyterHub token; /dask/v1/nodes, which authorizes per cluster;
// /spawn/v1/profiles (a POST), which authorizes per namespace.
#pragma once

#include <optional>
#include <string>

#include "daemon/delegated_auth.hpp"
#include "daemon/http_server.hpp"
#include "daemon/hub_auth.hpp"
#include "daemon/leader_election.hpp"
#include "daemon/metrics.hpp"
#include "daemon/scheduler.hpp"

namespace tightpack::daemon {

class Routes {
 public:
  // `elector` and `hub` may be null: no leader election, no --hub-api-url.
  Routes(Scheduler& scheduler, const LeaderElector* elector, DelegatedAuth& auth, HubAuth* hub,
         std::string hub_namespace, Metrics& metrics, std::string lease_name);

  // The secure port (--listen): every route.
  HttpAnswer secure(const HttpRequest& request);
  // --probe-listen: the probes alone.
  HttpAnswer probes_only(const HttpRequest& request);
  // The secure port's limits: what costs the daemon (and, for a caller it
  // cannot vouch for, the API server a TokenReview) waits its turn; probes
  // never do, answered on the listener's own thread; a credential other than
  // the shared snapshot token is paced as one caller (HttpLimits).
  HttpLimits secure_limits();
  // --probe-listen's: the probes answered on the listener's own thread.
  static HttpLimits probe_limits();

  // One path: who may ask, whether it is paced, what answers it.
  struct Route;
  static const Route kRoutes[];

 private:
  std::optional<HttpAnswer> probe(const std::string& path) const;
  HttpAnswer health(const HttpRequest& request);
  HttpAnswer ready(const HttpRequest& request);
  HttpAnswer ready_verbose(const HttpRequest& request);  // the secure port's /readyz?…
  HttpAnswer home(const HttpRequest& request);
  HttpAnswer dask_nodes(const HttpRequest& request);
  HttpAnswer spawn(const HttpRequest& request);
  HttpAnswer metrics(const HttpRequest& request);
  HttpAnswer snapshot(const HttpRequest& request);

  Scheduler& scheduler_;
  const LeaderElector* elector_;
  DelegatedAuth& auth_;
  HubAuth* hub_;
  std::string hub_namespace_;
  Metrics& metrics_;
  std::string lease_name_;
};

}  // namespace tightpack::daemon
