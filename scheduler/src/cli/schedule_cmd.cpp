#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <iostream>
#include <random>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/published_profiles.hpp"
#include "daemon/run.hpp"
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
  --move-dask-workers    move, don't evict: the leader empties nodes by moving the
                         workers of Dask operator and dask-gateway clusters labelled
                         tightpack.io/move=true (make before break, through the operator
                         or the cluster's count, and tightpack-dask; docs/packing.md);
                         needs --pools
  --move-interval D      between two plans of moves (Go duration, default 1m); the
                         moves in flight are looked at four times as often, at most
                         every 2s
  --move-make-timeout D  for a move's replacements to run (default 5m)
  --move-drain-timeout D for the cluster's tightpack-dask to drain the workers (default 12m)
  --move-rest D          a Dask cluster's rest after one of its moves ends (default 10m)
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

std::string random_suffix() {
  std::random_device rd;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

// --publish FILE: what /snapshot may carry of it. What it must keep back
// (every user can read /snapshot) is logged by path, never by value.
bool read_published(const std::string& file, std::istream& in, daemon::Published& into,
                    std::ostream& err) {
  json::value published;
  std::string error;
  if (!read_document(file, in, published, error)) {
    err << "tightpack schedule: " << error << "\n";
    return false;
  }
  auto document = daemon::publishable(published);
  if (!document) {
    err << "tightpack schedule: " << file << ": " << document.error().what() << "\n";
    return false;
  }
  const auto& withheld = document->withheld;
  if (!withheld.empty()) {
    std::string paths;
    for (size_t i = 0; i < withheld.size() && i < 20; ++i) paths += (i ? ", " : "") + withheld[i];
    if (withheld.size() > 20) paths += " and " + std::to_string(withheld.size() - 20) + " more";
    log_info("tightpack schedule: " + file +
             ": kept from /snapshot, which every user can read (the sidebar does not use them): " +
             paths);
  }
  into = std::move(document->published);
  return true;
}

// --move-dask-workers and its durations; false (and a message) when they are wrong.
bool read_moves(Args& a, bool has_pools, std::optional<daemon::MoverOptions>& into,
                std::ostream& err) {
  const std::vector<const char*> durations{"--move-interval", "--move-make-timeout",
                                           "--move-drain-timeout", "--move-rest"};
  if (!has_flag(a, "--move-dask-workers")) {
    for (const char* flag : durations) {
      if (a.options.count(flag)) {
        err << "tightpack schedule: " << flag << " needs --move-dask-workers\n";
        return false;
      }
    }
    return true;
  }
  if (!has_pools) {
    err << "tightpack schedule: --move-dask-workers needs --pools: a move empties a node only "
           "where cluster-autoscaler removes it (node groups, min sizes)\n";
    return false;
  }
  daemon::MoverOptions mover;
  for (const char* flag : durations) {
    if (!a.options.count(flag)) continue;
    auto d = daemon::parse_go_duration(a.options[flag]);
    if (!d || d->count() < 1000) {
      err << "tightpack schedule: " << flag << " " << quote_value(a.options[flag])
          << " is not a duration of at least 1s (such as 30s or 5m)\n";
      return false;
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*d);
    if (std::string_view(flag) == "--move-interval") {
      mover.interval = *d;
      // A move's steps are looked at four times a plan, at most every 2 s: a
      // replay on a condensed clock keeps the steps' pace to the plans'.
      mover.tick = std::min(mover.tick, *d / 4);
    } else if (std::string_view(flag) == "--move-make-timeout") {
      mover.timeouts.make = seconds;
    } else if (std::string_view(flag) == "--move-drain-timeout") {
      mover.timeouts.drain = seconds;
    } else {
      mover.cooldown = seconds;
    }
  }
  into = mover;
  return true;
}

}  // namespace

int schedule(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv,
                  {"--config", "--kubeconfig", "--pools", "--publish", "--listen", "--probe-listen",
                   "--identity", "--bind-workers", "--tls-cert-file", "--tls-private-key-file",
                   "--snapshot-token-file", "--hub-api-url", "--hub-namespace", "--move-interval",
                   "--move-make-timeout", "--move-drain-timeout", "--move-rest"},
                  {"--help", "--move-dask-workers"}, a, error) ||
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
  daemon::RunOptions run;
  daemon::SchedulerOptions& options = run.scheduler;
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
  if (a.options.count("--publish") &&
      !read_published(a.options["--publish"], in, options.published, err)) {
    return kInputError;
  }
  if (!read_moves(a, options.pools_config.has_value(), run.moves, err)) return kUsage;
  const std::string kubeconfig =
      a.options.count("--kubeconfig") ? a.options["--kubeconfig"] : options.daemon.kubeconfig;
  auto client = kubeconfig.empty() ? kube::in_cluster_config() : kube::load_kubeconfig(kubeconfig);
  if (!client) {
    err << "tightpack schedule: " << client.error().what() << "\n";
    return kInputError;
  }
  run.client = std::move(*client);
  options.bind_workers = bind_workers;
  options.hostname = hostname();
  run.identity = a.options.count("--identity") ? a.options["--identity"]
                                               : options.hostname + "_" + random_suffix();
  run.listen = a.options.count("--listen") ? a.options["--listen"] : "0.0.0.0:10259";
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
  run.certificate = std::move(*certificate);
  run.snapshot_token_file =
      a.options.count("--snapshot-token-file") ? a.options["--snapshot-token-file"] : "";
  run.probe_listen = a.options.count("--probe-listen") ? a.options["--probe-listen"] : "";
  if (a.options.count("--hub-api-url")) {
    auto endpoint = daemon::parse_hub_api_url(a.options["--hub-api-url"]);
    if (!endpoint) {
      err << "tightpack schedule: " << endpoint.error().what() << "\n";
      return kUsage;
    }
    run.hub = std::move(*endpoint);
  }
  run.hub_namespace = a.options.count("--hub-namespace") ? a.options["--hub-namespace"] : "";
  if (!run.hub_namespace.empty() && !run.hub) {
    err << "tightpack schedule: --hub-namespace needs --hub-api-url\n" << kScheduleHelp;
    return kUsage;
  }

  auto ending = daemon::run(std::move(run));
  if (!ending) {
    err << "tightpack schedule: " << ending.error().what() << "\n";
    return kInputError;
  }
  return *ending == daemon::Ending::LeadershipLost ? kInputError : kOk;
}

}  // namespace tightpack::cli
