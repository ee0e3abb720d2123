// What `tightpack predict` and `tightpack advise` both read: a cluster (with
// its pools and scheduler configuration), a pod admitted as the API server
// would admit it, the profile that places it, and how many copies.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "tightpack/admission.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack::cli {

struct WhatIfQuestion {
  WhatIfCluster cluster;
  Pod pod;
  std::vector<AdmissionChange> admitted;
  autoscaler::PodDrain drain;
  Profile profile;
  std::optional<int64_t> replicas;  // --replicas, when given
  std::string output;               // table or json
};

// The options of both commands, with a value.
inline const std::vector<std::string> kWhatIfOptions = {
    "--cluster",        "--pod",     "--replicas", "--config",
    "--scheduler-name", "--release", "--pools",    "--output"};

// Reads the question; on failure writes "tightpack <command>: …" (and the help
// for usage errors) to `err` and gives the exit code in `code`. Without a
// NodePools document, pools are inferred from the nodes' labels only when
// `infer_pools`.
std::optional<WhatIfQuestion> read_what_if_question(Args& a, const char* command, const char* help,
                                                    bool replicas_required, bool infer_pools,
                                                    std::istream& in, std::ostream& err, int& code);

}  // namespace tightpack::cli
