// The subcommands of `tightpack`: each one's function and help, defined in its
// <name>_cmd.cpp, and the record of one in the command table (cli.cpp), from
// which `tightpack --help`, `help NAME` and dispatch are derived.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

struct Command {
  const char* name;
  const char* synopsis;  // its lines under "Usage:" in `tightpack --help`
  const char* summary;   // its line under "Commands:"
  const char* help;      // `tightpack help NAME`, `tightpack NAME --help`
  int (*run)(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err);
};

// `tightpack replay`: kube-scheduler's decisions on scenarios in the shared
// corpus format (the conformance interface).
int replay(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
           std::ostream& err);
extern const char* const kReplayHelp;

// `tightpack autoscale`: cluster-autoscaler's decisions on corpus scenarios,
// with the input and output conventions of `tightpack replay`.
int autoscale(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
              std::ostream& err);
extern const char* const kAutoscaleHelp;

// `tightpack forecast`: which nodes cluster-autoscaler would remove from a
// cluster, and what keeps the others.
int forecast(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err);
extern const char* const kForecastHelp;

// `tightpack predict`: where N copies of a pod go in a cluster and, with
// NodePools, which pools cluster-autoscaler grows for the rest.
int predict(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
            std::ostream& err);
extern const char* const kPredictHelp;

// `tightpack advise`: how copies of a pod tile each pool's new node, the
// shapes that fit more, and the fixes for copies that never run, each decided
// again by the engine.
int advise(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
           std::ostream& err);
extern const char* const kAdviseHelp;

// `tightpack admit`: a pod as the API server would store it, after defaulting
// and the admission plugins scheduling depends on.
int admit(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err);
extern const char* const kAdmitHelp;

// `tightpack strip`: a Kubernetes document with its pods cut to what
// scheduling reads (scheduling_fields.hpp).
int strip(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err);
extern const char* const kStripHelp;

// `tightpack pack-report`: how many nodes a sequence of workloads leaves busy
// under each scheduler profile, next to the lower bound.
int pack_report(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
                std::ostream& err);
extern const char* const kPackReportHelp;

// `tightpack moves`: which nodes to empty by moving their Dask workers first,
// planned as the in-cluster scheduler plans them (the conformance interface).
int moves(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err);
extern const char* const kMovesHelp;

// `tightpack schedule`: the in-cluster scheduler (docs/scheduler.md).
// Runs until SIGTERM or SIGINT (exit 0), or until leadership is lost (exit 1).
int schedule(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err);
extern const char* const kScheduleHelp;

}  // namespace tightpack::cli
