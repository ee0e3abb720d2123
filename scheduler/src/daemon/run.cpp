#include "daemon/run.hpp"

#include <signal.h>

#include <atomic>
#include <memory>
#include <sstream>

#include "daemon/delegated_auth.hpp"
#include "daemon/http_server.hpp"
#include "daemon/leader_election.hpp"
#include "daemon/metrics.hpp"
#include "daemon/routes.hpp"
#include "daemon/wait_outlooks.hpp"
#include "log.hpp"

namespace tightpack::daemon {
namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string host_of(const std::string& listen) {
  return listen.substr(0, listen.rfind(':'));
}

}  // namespace

Result<Ending> run(RunOptions options) {
  // Signals are taken by this thread only, with sigtimedwait: every thread
  // started from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A peer that closes a connection must not kill the process.
  signal(SIGPIPE, SIG_IGN);

  auto client_config = std::make_shared<const kube::ClientConfig>(std::move(options.client));
  Metrics metrics;
  const auto election = options.scheduler.daemon.leader_election;
  std::string profile_names;
  for (const auto& p : options.scheduler.profiles.profiles)
    profile_names += (profile_names.empty() ? "" : ", ") + p.scheduler_name;
  const double qps = options.scheduler.daemon.qps;
  const int burst = options.scheduler.daemon.burst;
  // Made before the scheduler (it fences its writes on the lease, and must go
  // first) and the listeners (their /healthz asks it), started after them.
  std::unique_ptr<LeaderElector> elector;
  if (election.enabled) {
    elector = std::make_unique<LeaderElector>(election, options.identity, client_config,
                                              std::make_shared<kube::RateLimiter>(qps, burst));
  }
  Scheduler scheduler(std::move(options.scheduler), client_config, metrics);
  if (elector) scheduler.set_write_fence([e = elector.get()] { return e->valid_until(); });
  std::unique_ptr<Mover> mover;
  if (options.moves) {
    options.moves->identity = options.identity;
    mover = std::make_unique<Mover>(*options.moves, scheduler, client_config,
                                    std::make_shared<kube::RateLimiter>(qps, burst), metrics);
    if (elector) mover->set_write_fence([e = elector.get()] { return e->valid_until(); });
  }

  // With the pools cluster-autoscaler manages, a pod that waits for a node
  // hears what it will do (wait_outlooks.hpp).
  std::unique_ptr<WaitOutlooks> outlooks;
  if (scheduler.pools_config()) {
    outlooks = std::make_unique<WaitOutlooks>(scheduler, *scheduler.pools_config());
  }

  // The watches first: the HTTP thread asks the scheduler whether they synced.
  scheduler.start();
  if (mover) mover->start();
  if (outlooks) outlooks->start();
  DelegatedAuth auth(client_config, std::make_shared<kube::RateLimiter>(qps, burst),
                     options.snapshot_token_file);
  std::optional<HubAuth> hub;
  if (options.hub) hub.emplace(std::move(*options.hub));
  Routes routes(scheduler, elector.get(), auth, hub ? &*hub : nullptr, options.hub_namespace,
                metrics, election.resource_name);
  HttpServer http;
  auto started = http.start(
      options.listen, [&](const HttpRequest& req) { return routes.secure(req); },
      routes.secure_limits(), "--listen", &options.certificate);
  if (!started) return started.error();
  HttpServer probe_http;
  if (!options.probe_listen.empty()) {
    auto probe_started = probe_http.start(
        options.probe_listen, [&](const HttpRequest& req) { return routes.probes_only(req); },
        Routes::probe_limits(), "--probe-listen");
    if (!probe_started) return probe_started.error();
  }
  log_info("tightpack schedule: profiles " + profile_names + "; API " + client_config->server +
           " (" + client_config->source + "); qps " +
           (qps > 0 ? number(qps) : std::string("unlimited")) + ", burst " + std::to_string(burst) +
           "; serving HTTPS on " + host_of(options.listen) + ":" + std::to_string(http.port()) +
           (options.probe_listen.empty() ? std::string()
                                         : "; probes on " + host_of(options.probe_listen) + ":" +
                                               std::to_string(probe_http.port())));

  std::atomic<bool> lost{false};
  if (elector) {
    log_info("leader election: " + options.identity + " waits for the lease " +
             election.resource_namespace + "/" + election.resource_name);
    elector->start(
        [&] {
          metrics.leader(true);
          scheduler.set_active(true);
          if (mover) mover->set_active(true);
        },
        [&] {
          metrics.leader(false);
          if (mover) mover->set_active(false);
          scheduler.set_active(false);
          lost = true;
        });
  } else {
    metrics.leader(true);
    scheduler.set_active(true);
    if (mover) mover->set_active(true);
  }

  int signal_number = 0;
  while (!lost) {
    timespec tick{0, 200'000'000};
    const int s = sigtimedwait(&signals, nullptr, &tick);
    if (s == SIGTERM || s == SIGINT) {
      signal_number = s;
      break;
    }
  }
  log_info(lost ? "shutting down: leadership lost"
                : std::string("shutting down on ") +
                      (signal_number == SIGTERM ? "SIGTERM" : "SIGINT"));
  // A move in flight is left as it is: the next leader undoes it (mover.hpp).
  if (mover) mover->stop();
  if (outlooks) outlooks->stop();
  // A deposed leader drops what it has not sent: the next leader decides
  // those pods again, and the fence stops anything late.
  const size_t abandoned =
      scheduler.stop(lost ? std::chrono::seconds(0) : std::chrono::seconds(10));
  if (abandoned) log_warning("abandoned " + std::to_string(abandoned) + " API calls still waiting");
  if (elector) elector->stop(/*release=*/!lost);
  http.stop();
  probe_http.stop();
  log_info("stopped");
  return lost ? Ending::LeadershipLost : Ending::Signalled;
}

}  // namespace tightpack::daemon
