// The in-cluster scheduler from its checked options to its end: the watches,
// leader election, the secure and the probe listeners, then waiting for
// SIGTERM or SIGINT (or a lost lease), and an orderly stop. `tightpack
// schedule` (cli/schedule_cmd.cpp) reads and checks the options first, so that
// everything that can be wrong with the input is found before a thread starts.
#pragma once

#include <optional>
#include <string>

#include "daemon/hub_auth.hpp"
#include "daemon/mover.hpp"
#include "daemon/scheduler.hpp"
#include "daemon/serving_cert.hpp"
#include "kube/client_config.hpp"
#include "tightpack/error.hpp"

namespace tightpack::daemon {

struct RunOptions {
  SchedulerOptions scheduler;
  kube::ClientConfig client;
  std::string identity;               // leader election's
  std::string listen;                 // HOST:PORT of the secure port
  ServingCertificate certificate;     // its certificate
  std::string probe_listen;           // HOST:PORT of the probes' own port; empty: none
  std::string snapshot_token_file;    // a token that may read /snapshot besides TokenReview's
  std::optional<HubEndpoint> hub;     // serves /home
  std::string hub_namespace;          // /home's claims are there (empty: every namespace)
  std::optional<MoverOptions> moves;  // --move-dask-workers
};

enum class Ending { Signalled, LeadershipLost };

// Runs until a signal or a lost lease; an error when a listener cannot start.
Result<Ending> run(RunOptions options);

}  // namespace tightpack::daemon
