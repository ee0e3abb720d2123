#include <boost/json.hpp>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "cli/yaml_json.hpp"
#include "tightpack/packing/pack_report.hpp"

namespace tightpack::cli {

const char* const kPackReportHelp = R"(Usage: tightpack pack-report [--output table|json] SCENARIO|-

Replays workloads arriving and leaving (users starting and stopping Dask
clusters, adapt() scaling them down) under kube-scheduler's default profile, the
zero-to-jupyterhub user-scheduler and tightpack's own profile, and prints how
many nodes each leaves busy (nodes cluster-autoscaler cannot remove) next to the
lower bound: the workload's requests over one node's room, rounded up per pool.
With "pools" in the scenario the cluster also autoscales as cluster-autoscaler
would, and node-hours per pool are reported. Format: docs/packing.md.

  --output table|json   (default: table)
  SCENARIO              JSON or YAML file; '-' reads standard input

Exit status: 0, 1 bad input, 2 bad usage.
)";

namespace {

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

void print_table(const packing::PackReport& r, std::ostream& out) {
  const bool autoscaled = std::any_of(r.profiles.begin(), r.profiles.end(), [](const auto& f) {
    return f.nodes_added > 0 || f.nodes_removed > 0;
  });
  size_t width = 7;
  for (const auto& f : r.profiles)
    width = std::max(width, f.profile.size() + f.scheduler_name.size() + 3);
  out << std::left << std::setw(static_cast<int>(width)) << "PROFILE" << std::right << std::setw(14)
      << "BUSY AT END" << std::setw(12) << "PEAK BUSY" << std::setw(16) << "BUSY NODE-H";
  if (autoscaled) {
    out << std::setw(12) << "NODE-H" << std::setw(8) << "ADDED" << std::setw(9) << "REMOVED"
        << std::setw(9) << "EVICTED";
  }
  out << std::setw(10) << "WAITING" << std::setw(13) << "LOWER BOUND"
      << "\n";
  for (const auto& f : r.profiles) {
    out << std::left << std::setw(static_cast<int>(width))
        << (f.profile + " (" + f.scheduler_name + ")") << std::right << std::setw(14)
        << f.busy_at_end << std::setw(12) << f.peak_busy << std::setw(16)
        << fixed2(f.busy_node_hours);
    if (autoscaled) {
      out << std::setw(12) << fixed2(f.node_hours) << std::setw(8) << f.nodes_added << std::setw(9)
          << f.nodes_removed << std::setw(9) << f.pods_evicted;
    }
    out << std::setw(10) << f.pending_at_end << std::setw(13) << f.lower_bound << "\n";
  }
  out << "\nPer pool at the end (busy / nodes, lower bound";
  out << (autoscaled ? ", node-hours):\n" : "):\n");
  for (const auto& f : r.profiles) {
    out << "  " << f.profile << ":";
    for (const auto& p : f.pools) {
      out << (&p == &f.pools.front() ? " " : ", ") << p.pool << " " << p.busy_at_end << "/"
          << p.nodes_at_end << " (" << p.lower_bound;
      if (autoscaled) out << ", " << fixed2(p.node_hours) << " h";
      out << ")";
    }
    out << "\n";
  }
  out << "\nA shrink retires: " << packing::retire_name(r.retire)
      << " (the scenario's \"retire\")\n";
}

}  // namespace

int pack_report(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
                std::ostream& err) {
  std::string output = "table", file;
  bool have_file = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      out << kPackReportHelp;
      return kOk;
    }
    if (a == "--output" || a.rfind("--output=", 0) == 0) {
      if (a == "--output") {
        if (i + 1 >= argv.size()) {
          err << "tightpack pack-report: option --output needs a value\n" << kPackReportHelp;
          return kUsage;
        }
        output = argv[++i];
      } else {
        output = a.substr(9);
      }
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && a != "-") {
      err << "tightpack pack-report: unknown option " << a << "\n" << kPackReportHelp;
      return kUsage;
    }
    if (have_file) {
      err << "tightpack pack-report: one scenario at a time, got " << file << " and " << a << "\n";
      return kUsage;
    }
    file = a;
    have_file = true;
  }
  if (!have_file) {
    err << "tightpack pack-report: SCENARIO is required ('-' reads standard input)\n"
        << kPackReportHelp;
    return kUsage;
  }
  if (output != "table" && output != "json") {
    err << "tightpack pack-report: --output must be table or json, not " << quote_value(output)
        << "\n";
    return kUsage;
  }
  std::string text, error;
  if (!read_input(file, in, text, error)) {
    err << "tightpack pack-report: " << error << "\n";
    return kInputError;
  }
  auto doc = parse_document(text);
  if (!doc) {
    err << "tightpack pack-report: " << file << ": " << doc.error().what() << "\n";
    return kInputError;
  }
  auto scenario = packing::decode_pack_scenario(*doc);
  if (!scenario) {
    err << "tightpack pack-report: " << file << ": " << scenario.error().what() << "\n";
    return kInputError;
  }
  auto report = packing::run_pack_report(*scenario);
  if (!report) {
    err << "tightpack pack-report: " << report.error().what() << "\n";
    return kInputError;
  }
  if (output == "json") {
    out << boost::json::serialize(packing::encode_pack_report(*report)) << "\n";
  } else {
    print_table(*report, out);
  }
  return kOk;
}

}  // namespace tightpack::cli
