// The parts of a KubeSchedulerConfiguration that concern the daemon rather
// than a decision: leader election, the API client, backoff. Core decodes the
// profiles from the same document; this reads the rest, with kube-scheduler's
// defaults and messages that name the field.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <string>

#include "tightpack/error.hpp"

namespace tightpack::daemon {

struct LeaderElection {
  bool enabled = true;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  std::string resource_namespace = "kube-system";
  std::string resource_name =
      "tightpack";  // kube-scheduler's default is kube-scheduler: never share its lease
};

struct DaemonConfig {
  LeaderElection leader_election;
  std::string kubeconfig;  // clientConnection.kubeconfig
  double qps = 50;         // clientConnection.qps; <= 0: no limit
  int burst = 100;
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{10000};
};

Result<DaemonConfig> decode_daemon_config(const boost::json::value& doc);

// A Go duration ("15s", "1m30s", "500ms") in milliseconds.
Result<std::chrono::milliseconds> parse_go_duration(const std::string& text);

}  // namespace tightpack::daemon
