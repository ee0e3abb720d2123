#include "cli/schedule_cmd.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/document_command.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/dask_nodes_route.hpp"
#include "daemon/delegated_auth.hpp"
#include "daemon/http_server.hpp"
#include "daemon/hub_auth.hpp"
#include "daemon/leader_election.hpp"
#include "daemon/metrics.hpp"
#include "daemon/published_profiles.hpp"
#include "daemon/scheduler.hpp"
#include "daemon/serving_cert.hpp"
#include "kube/client_config.hpp"
#include "log.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::cli {
namespace json = boost::json;

const char* const kScheduleHelp = R"(Usage: tightpack schedule --config FILE [options]

Schedules the pods whose spec.schedulerName is one of the configuration's
profiles, on the cluster the kubeconfig or the pod's service account reaches,
until SIGTERM (docs/scheduler.md).

  --config FILE          a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1),
                         YAML or JSON: profiles, leaderElection, clientConnection,
                         podInitialBackoffSeconds, podMaxBackoffSeconds
  --kubeconfig FILE      the API server and credentials (default:
                         clientConnection.kubeconfig, else the in-cluster service account)
  --pools FILE           a NodePools document, published on /snapshot for the sidebar
  --publish FILE         {"profiles": [...], "kubespawnerDefaults": {...},
                         "daskGateway": {"worker": {...}}}: what /snapshot offers the sidebar
                         (KubeSpawner profile_list entries, worker templates)
  --listen HOST:PORT     the secure port, HTTPS: /healthz, /readyz, /livez to anyone;
                         /metrics and /snapshot to callers the API server vouches for
                         (TokenReview, SubjectAccessReview); /dask/v1/nodes?namespace=NS
                         &cluster=NAME (for tightpack-dask) to callers that may list
                         pods in NS; default 0.0.0.0:10259,
                         port 0 picks a free one
  --tls-cert-file FILE, --tls-private-key-file FILE
                         the serving certificate (PEM); without them a self-signed one
                         is made at start, as kube-scheduler does
  --snapshot-token-file FILE
                         a shared bearer token that also gets /snapshot (the notebook
                         servers' token, from a Secret; re-read when it changes)
  --hub-api-url URL      the JupyterHub API (e.g. http://hub:8081/hub/api): serves /home,
                         each notebook user's own home claims and their volumes, to the
                         user's JupyterHub token (as the hub says whose it is)
  --hub-namespace NS     the namespace of that hub's user pods and claims; /home lists
                         claims there only (default: every namespace, for a cluster
                         with one hub)
  --probe-listen HOST:PORT
                         /healthz, /readyz and /livez alone, on a port of their own, so
                         that no load on --listen delays the kubelet's probes (default: none)
  --identity NAME        leader-election identity (default: host name and a random suffix)
  --bind-workers N       concurrent binding calls, 1 to 256 (default 16)

Exit status: 0 after SIGTERM or SIGINT, 1 bad input or lost leadership,
2 bad usage.
)";

namespace {

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "tightpack";
  return buf;
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string random_suffix() {
  std::random_device rd;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

}  // namespace

int schedule(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv,
                  {"--config", "--kubeconfig", "--pools", "--publish", "--listen", "--probe-listen",
                   "--identity", "--bind-workers", "--tls-cert-file", "--tls-private-key-file",
                   "--snapshot-token-file", "--hub-api-url", "--hub-namespace"},
                  {"--help"}, a, error) ||
      !a.positional.empty()) {
    err << "tightpack schedule: "
        << (error.empty() ? "unexpected argument " + quote_value(a.positional[0]) : error) << "\n"
        << kScheduleHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kScheduleHelp;
    return kOk;
  }
  if (!a.options.count("--config")) {
    err << "tightpack schedule: --config is required\n" << kScheduleHelp;
    return kUsage;
  }
  size_t bind_workers = 16;
  if (a.options.count("--bind-workers")) {
    const std::string& v = a.options["--bind-workers"];
    try {
      size_t used = 0;
      bind_workers = std::stoul(v, &used);
      if (used != v.size() || bind_workers < 1 || bind_workers > 256) throw std::out_of_range("");
    } catch (...) {
      err << "tightpack schedule: --bind-workers " << quote_value(v)
          << " is not a whole number from 1 to 256\n";
      return kUsage;
    }
  }
  for (const char* file_option : {"--config", "--pools", "--publish", "--kubeconfig"}) {
    if (a.options.count(file_option) && a.options[file_option] == "-") {
      err << "tightpack schedule: " << file_option << " must name a file, not standard input\n";
      return kUsage;
    }
  }

  // Everything that can be wrong with the input is found before any thread starts.
  daemon::SchedulerOptions options;
  const std::string& config_file = a.options["--config"];
  json::value config_doc;
  if (!read_document(config_file, in, config_doc, error)) {
    err << "tightpack schedule: " << error << "\n";
    return kInputError;
  }
  auto profiles = decode_scheduler_configuration(config_doc, JsonPath());
  if (!profiles) {
    err << "tightpack schedule: " << config_file << ": " << profiles.error().what() << "\n";
    return kInputError;
  }
  auto daemon_config = daemon::decode_daemon_config(config_doc);
  if (!daemon_config) {
    err << "tightpack schedule: " << config_file << ": " << daemon_config.error().what() << "\n";
    return kInputError;
  }
  options.profiles = std::move(*profiles);
  options.daemon = std::move(*daemon_config);
  options.scheduler_configuration = config_doc;
  if (a.options.count("--pools")) {
    json::value pools_doc;
    if (!read_document(a.options["--pools"], in, pools_doc, error)) {
      err << "tightpack schedule: " << error << "\n";
      return kInputError;
    }
    auto pools = pools::decode_pools_config(pools_doc, JsonPath());
    if (!pools) {
      err << "tightpack schedule: " << a.options["--pools"] << ": " << pools.error().what() << "\n";
      return kInputError;
    }
    options.pools = std::move(pools_doc);
    options.pools_config = std::move(*pools);
  }
  if (a.options.count("--publish")) {
    json::value published;
    if (!read_document(a.options["--publish"], in, published, error)) {
      err << "tightpack schedule: " << error << "\n";
      return kInputError;
    }
    auto document = daemon::publishable(published);
    if (!document) {
      err << "tightpack schedule: " << a.options["--publish"] << ": " << document.error().what()
          << "\n";
      return kInputError;
    }
    const auto& withheld = document->withheld;
    if (!withheld.empty()) {
      std::string paths;
      for (size_t i = 0; i < withheld.size() && i < 20; ++i) paths += (i ? ", " : "") + withheld[i];
      if (withheld.size() > 20) paths += " and " + std::to_string(withheld.size() - 20) + " more";
      log_info(
          "tightpack schedule: " + a.options["--publish"] +
          ": kept from /snapshot, which every user can read (the sidebar does not use them): " +
          paths);
    }
    options.published = std::move(document->published);
  }
  const std::string kubeconfig =
      a.options.count("--kubeconfig") ? a.options["--kubeconfig"] : options.daemon.kubeconfig;
  auto client = kubeconfig.empty() ? kube::in_cluster_config() : kube::load_kubeconfig(kubeconfig);
  if (!client) {
    err << "tightpack schedule: " << client.error().what() << "\n";
    return kInputError;
  }
  options.bind_workers = bind_workers;
  options.hostname = hostname();
  const std::string identity = a.options.count("--identity")
                                   ? a.options["--identity"]
                                   : options.hostname + "_" + random_suffix();
  const std::string listen = a.options.count("--listen") ? a.options["--listen"] : "0.0.0.0:10259";
  if (a.options.count("--tls-cert-file") != a.options.count("--tls-private-key-file")) {
    err << "tightpack schedule: --tls-cert-file and --tls-private-key-file go together\n"
        << kScheduleHelp;
    return kUsage;
  }
  auto certificate =
      a.options.count("--tls-cert-file")
          ? daemon::load_serving_certificate(a.options["--tls-cert-file"],
                                             a.options["--tls-private-key-file"])
          : daemon::self_signed_certificate({"localhost", "127.0.0.1", options.hostname});
  if (!certificate) {
    err << "tightpack schedule: " << certificate.error().what() << "\n";
    return kInputError;
  }
  const std::string snapshot_token_file =
      a.options.count("--snapshot-token-file") ? a.options["--snapshot-token-file"] : "";
  const std::string probe_listen =
      a.options.count("--probe-listen") ? a.options["--probe-listen"] : "";
  std::optional<daemon::HubAuth> hub;
  if (a.options.count("--hub-api-url")) {
    auto endpoint = daemon::parse_hub_api_url(a.options["--hub-api-url"]);
    if (!endpoint) {
      err << "tightpack schedule: " << endpoint.error().what() << "\n";
      return kUsage;
    }
    hub.emplace(std::move(*endpoint));
  }
  const std::string hub_namespace =
      a.options.count("--hub-namespace") ? a.options["--hub-namespace"] : "";
  if (!hub_namespace.empty() && !hub) {
    err << "tightpack schedule: --hub-namespace needs --hub-api-url\n" << kScheduleHelp;
    return kUsage;
  }

  // Signals are taken by this thread only, with sigtimedwait: every thread
  // started from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A peer that closes a connection must not kill the process.
  signal(SIGPIPE, SIG_IGN);

  auto client_config = std::make_shared<const kube::ClientConfig>(std::move(*client));
  daemon::Metrics metrics;
  const std::string lease_name = options.daemon.leader_election.resource_name;
  const bool elect = options.daemon.leader_election.enabled;
  const auto election = options.daemon.leader_election;
  std::string profile_names;
  for (const auto& p : options.profiles.profiles)
    profile_names += (profile_names.empty() ? "" : ", ") + p.scheduler_name;
  const double qps = options.daemon.qps;
  const int burst = options.daemon.burst;
  // Made before the scheduler (it fences its writes on the lease, and must go
  // first) and the listeners (their /healthz asks it), started after them.
  std::unique_ptr<daemon::LeaderElector> elector;
  if (elect) {
    elector = std::make_unique<daemon::LeaderElector>(
        election, identity, client_config, std::make_shared<kube::RateLimiter>(qps, burst));
  }
  daemon::Scheduler scheduler(std::move(options), client_config, metrics);
  if (elector) scheduler.set_write_fence([e = elector.get()] { return e->valid_until(); });

  // The watches first: the HTTP thread asks the scheduler whether they synced.
  scheduler.start();
  using daemon::text_answer;
  auto probes = [&](const std::string& path) -> std::optional<daemon::HttpAnswer> {
    if (path == "/healthz" || path == "/livez") {
      if (std::string problem = elector ? elector->health() : ""; !problem.empty()) {
        return text_answer(500, "[-]leaderElection failed: " + problem + "\n");
      }
      return text_answer(200, "ok\n");
    }
    if (path == "/readyz") {
      // A refused list keeps the cache from syncing for ever: say which right is missing.
      if (std::string problem = scheduler.watch_problem(); !problem.empty())
        return text_answer(503, problem + "\n");
      if (!scheduler.synced())
        return text_answer(503, "the watch cache has not synced with the API server yet\n");
      return text_answer(200, "ok\n");
    }
    return std::nullopt;
  };
  daemon::DelegatedAuth auth(client_config, std::make_shared<kube::RateLimiter>(qps, burst),
                             snapshot_token_file);
  daemon::HttpServer http;
  auto serve = [&](const daemon::HttpRequest& req) -> daemon::HttpAnswer {
    if (auto probe = probes(req.path)) return *probe;
    if (req.path == "/home") {
      if (!hub) return text_answer(404, "not found: /home is served with --hub-api-url\n");
      const daemon::HubDecision who = hub->check(req.authorization);
      if (who.status != 200) {
        if (who.status == 503) log_warning(who.reason);
        daemon::HttpAnswer a =
            text_answer(who.status, json::serialize(json::object{{"error", who.reason}}));
        a.content_type = "application/json";
        return a;
      }
      if (!scheduler.synced()) return text_answer(503, "the watch cache has not synced yet\n");
      daemon::HttpAnswer a = text_answer(200, scheduler.home(who.user, hub_namespace));
      a.content_type = "application/json";
      return a;
    }
    if (req.path == "/dask/v1/nodes") return daemon::dask_nodes_answer(req, auth, scheduler);
    if (req.path != "/metrics" && req.path != "/snapshot") {
      return text_answer(404,
                         "not found: try /healthz, /readyz, /livez, /metrics, /snapshot, /home or "
                         "/dask/v1/nodes\n");
    }
    if (auto decision = auth.check(req.authorization, req.path); decision.status != 200) {
      if (decision.status == 503)
        log_warning("cannot authorize a request for " + req.path + ": " + decision.reason);
      return text_answer(decision.status, decision.reason + "\n");
    }
    if (req.path == "/metrics") {
      daemon::HttpAnswer a = text_answer(200, metrics.text(lease_name));
      a.content_type = "text/plain; version=0.0.4; charset=utf-8";
      return a;
    }
    if (req.path == "/snapshot") {
      if (!scheduler.synced()) return text_answer(503, "the watch cache has not synced yet\n");
      auto snapshot = scheduler.snapshot();
      daemon::HttpAnswer a;
      a.etag = snapshot->etag;
      if (req.if_none_match == snapshot->etag) {
        a.status = 304;
        return a;
      }
      a.content_type = "application/json";
      a.shared_body = std::shared_ptr<const std::string>(snapshot, &snapshot->body);
      return a;
    }
    return text_answer(404, "not found\n");
  };
  daemon::HttpLimits secure_limits;
  // What costs the daemon (and, for a caller it cannot vouch for, the API
  // server a TokenReview) waits its turn; probes never do.
  secure_limits.paced_paths = {"/metrics", "/snapshot", "/home", "/dask/v1/nodes"};
  auto started = http.start(listen, serve, secure_limits, "--listen", &*certificate);
  if (!started) {
    err << "tightpack schedule: " << started.error().what() << "\n";
    return kInputError;
  }
  daemon::HttpServer probe_http;
  if (!probe_listen.empty()) {
    auto probe_started = probe_http.start(
        probe_listen,
        [&](const daemon::HttpRequest& req) -> daemon::HttpAnswer {
          if (auto probe = probes(req.path)) return *probe;
          return text_answer(404, "not found: this port serves /healthz, /readyz and /livez\n");
        },
        daemon::HttpLimits{}, "--probe-listen");
    if (!probe_started) {
      err << "tightpack schedule: " << probe_started.error().what() << "\n";
      return kInputError;
    }
  }
  log_info(
      "tightpack schedule: profiles " + profile_names + "; API " + client_config->server + " (" +
      client_config->source + "); qps " + (qps > 0 ? number(qps) : std::string("unlimited")) +
      ", burst " + std::to_string(burst) + "; serving HTTPS on " +
      listen.substr(0, listen.rfind(':')) + ":" + std::to_string(http.port()) +
      (probe_listen.empty() ? std::string()
                            : "; probes on " + probe_listen.substr(0, probe_listen.rfind(':')) +
                                  ":" + std::to_string(probe_http.port())));

  std::atomic<bool> lost{false};
  if (elector) {
    log_info("leader election: " + identity + " waits for the lease " +
             election.resource_namespace + "/" + election.resource_name);
    elector->start(
        [&] {
          metrics.leader(true);
          scheduler.set_active(true);
        },
        [&] {
          metrics.leader(false);
          scheduler.set_active(false);
          lost = true;
        });
  } else {
    metrics.leader(true);
    scheduler.set_active(true);
  }

  int signal_number = 0;
  while (!lost) {
    timespec tick{0, 200 * 1000 * 1000};
    const int s = sigtimedwait(&signals, nullptr, &tick);
    if (s == SIGTERM || s == SIGINT) {
      signal_number = s;
      break;
    }
  }
  log_info(lost ? "shutting down: leadership lost"
                : std::string("shutting down on ") +
                      (signal_number == SIGTERM ? "SIGTERM" : "SIGINT"));
  // A deposed leader drops what it has not sent: the next leader decides
  // those pods again, and the fence stops anything late.
  const size_t abandoned =
      scheduler.stop(lost ? std::chrono::seconds(0) : std::chrono::seconds(10));
  if (abandoned) log_warning("abandoned " + std::to_string(abandoned) + " API calls still waiting");
  if (elector) elector->stop(/*release=*/!lost);
  http.stop();
  probe_http.stop();
  log_info("stopped");
  return lost ? kInputError : kOk;
}

}  // namespace tightpack::cli
