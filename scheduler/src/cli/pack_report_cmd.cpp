#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "cli/yaml_json.hpp"
#include "tightpack/packing/levers.hpp"
#include "tightpack/packing/pack_report.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/quantity.hpp"

namespace tightpack::cli {

const char* const kPackReportHelp =
    R"(Usage: tightpack pack-report [--tile] [--unneeded-times LIST] [--output table|json] SCENARIO|-

Replays workloads arriving and leaving (users starting and stopping Dask
clusters, adapt() scaling them down) under kube-scheduler's default profile, the
zero-to-jupyterhub user-scheduler and tightpack's own profile, and prints how
many nodes each leaves busy (nodes cluster-autoscaler cannot remove) next to the
lower bound: the workload's requests over one node's room, rounded up per pool.
With "pools" in the scenario the cluster also autoscales as cluster-autoscaler
would, and node-hours per pool are reported. Format: docs/packing.md.

  --tile                 every workload at the first shape that tiles its pool's
                         new node (as `tightpack advise` suggests it), where that
                         node would be more than 10 % idle; the shapes are listed
  --unneeded-times LIST  the day again with cluster-autoscaler's
                         --scale-down-unneeded-time at each of LIST (Go durations,
                         "5m,2m"): node-hours against pod-hours waiting for nodes
  --output table|json    (default: table)
  SCENARIO               JSON or YAML file; '-' reads standard input

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
  if (r.consolidate != packing::Consolidate::kMove) return;
  out << "\nMoves (the scenario's \"consolidate\": move): moves made and broken, nodes emptied, "
         "workers moved, moves abandoned, emptied nodes taken back by waiting pods, tasks "
         "interrupted, replacements' overlap\n";
  for (const auto& f : r.profiles) {
    out << "  " << f.profile << ": " << f.moves << " moves, " << f.nodes_emptied << " nodes, "
        << f.workers_moved << " workers, " << f.moves_abandoned << " abandoned, "
        << f.emptied_taken_back << " taken back, " << f.tasks_interrupted << " tasks interrupted, "
        << fixed2(f.move_overlap_worker_hours) << " worker-hours\n";
  }
}

// Workloads of one shape, counted.
struct TiledShape {
  std::string pool;
  int64_t per_node_before = 0, per_node_after = 0;
  ResourceList before, after;
  int64_t workloads = 0;
};

std::vector<TiledShape> shapes_of(const std::vector<packing::TiledWorkload>& tiled) {
  std::vector<TiledShape> out;
  for (const auto& t : tiled) {
    auto it = std::find_if(out.begin(), out.end(), [&](const TiledShape& s) {
      return s.pool == t.pool && s.before == t.before && s.after == t.after;
    });
    if (it == out.end()) {
      out.push_back(TiledShape{t.pool, t.per_node_before, t.per_node_after, t.before, t.after, 0});
      it = std::prev(out.end());
    }
    ++it->workloads;
  }
  return out;
}

boost::json::object quantities(const ResourceList& list) {
  boost::json::object o;
  for (const auto& [name, v] : list) o[name] = format_resource(name, v);
  return o;
}

// "cpu 4 -> 3950m": the resources a shape changes.
std::string change_text(const ResourceList& before, const ResourceList& after) {
  std::string out;
  for (const auto& [name, v] : after) {
    const int64_t* was = find_resource(before, name);
    if (!was || *was == v) continue;
    out += (out.empty() ? "" : ", ") + name + " " + format_resource(name, *was) + " -> " +
           format_resource(name, v);
  }
  return out;
}

void print_tiled(const std::vector<TiledShape>& shapes, std::ostream& out) {
  out << "\nTiled (--tile): workloads at their pool's first shape that tiles its node\n";
  if (shapes.empty()) out << "  none: every pod already fills its pool's node\n";
  for (const TiledShape& t : shapes) {
    out << "  " << t.workloads << " workload(s) on " << t.pool << ": " << t.per_node_before
        << " -> " << t.per_node_after << " per node, " << change_text(t.before, t.after) << "\n";
  }
}

// As a Go duration is written: "10m", "90s", "1h".
std::string duration_text(int64_t seconds) {
  if (seconds > 0 && seconds % 3600 == 0) return std::to_string(seconds / 3600) + "h";
  if (seconds > 0 && seconds % 60 == 0) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds) + "s";
}

struct UnneededRun {
  std::string time;
  packing::PackReport report;
};

void print_unneeded(const std::vector<UnneededRun>& runs, bool tiled, std::ostream& out) {
  out << "\ncluster-autoscaler's --scale-down-unneeded-time" << (tiled ? ", workloads tiled" : "")
      << ": node-hours / pod-hours waiting for a node / nodes added\n";
  out << std::left << std::setw(8) << "TIME";
  for (const auto& f : runs.front().report.profiles) out << std::setw(26) << f.profile;
  out << "\n";
  for (const UnneededRun& r : runs) {
    out << std::left << std::setw(8) << r.time;
    for (const auto& f : r.report.profiles) {
      out << std::setw(26)
          << (fixed2(f.node_hours) + " / " + fixed2(f.pending_pod_hours) + " / " +
              std::to_string(f.nodes_added));
    }
    out << "\n";
  }
}

// "5m,2m" as (text, seconds) pairs; an error names the one that is not a duration.
std::optional<std::vector<std::pair<std::string, int64_t>>> unneeded_times(const std::string& list,
                                                                           std::ostream& err) {
  std::vector<std::pair<std::string, int64_t>> times;
  for (size_t start = 0; !list.empty() && start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string text = list.substr(start, comma - start);
    auto seconds = pools::parse_duration(text);
    if (!seconds || *seconds < 0) {
      err << "tightpack pack-report: --unneeded-times " << quote_value(text)
          << " is not a Go duration such as 5m or 90s\n";
      return std::nullopt;
    }
    times.emplace_back(text, *seconds);
    start = comma + 1;
  }
  return times;
}

// The scenario the report runs on, tiled when asked; what was tiled in `tiled`.
Result<packing::PackScenario> read_scenario(const std::string& file, std::istream& in, bool tile,
                                            std::vector<packing::TiledWorkload>& tiled) {
  std::string text, error;
  if (!read_input(file, in, text, error)) return Error{"", error};
  auto doc = parse_document(text);
  if (!doc) return Error{"", file + ": " + doc.error().what()};
  auto scenario = packing::decode_pack_scenario(*doc);
  if (!scenario) return Error{"", file + ": " + scenario.error().what()};
  if (!tile) return scenario;
  auto changed = packing::tile_workloads(*scenario, tiled);
  if (!changed) return Error{"", "--tile: " + file + ": " + changed.error().what()};
  return changed;
}

// The day again at each unneeded time, after the day as given (`report`).
Result<std::vector<UnneededRun>> unneeded_runs(
    const packing::PackScenario& scenario, const packing::PackReport& report,
    const std::vector<std::pair<std::string, int64_t>>& times) {
  std::vector<UnneededRun> runs;
  if (times.empty()) return runs;
  runs.push_back(UnneededRun{
      duration_text(scenario.pools ? scenario.pools->scale_down_unneeded_seconds : 0), report});
  for (const auto& [text, seconds] : times) {
    auto changed = packing::with_unneeded_time(scenario, seconds);
    if (!changed) return Error{"", "--unneeded-times: " + changed.error().what()};
    auto again = packing::run_pack_report(*changed);
    if (!again) return again.error();
    runs.push_back(UnneededRun{text, std::move(*again)});
  }
  return runs;
}

}  // namespace

int pack_report(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
                std::ostream& err) {
  Args a;
  std::string error;
  if (std::find(argv.begin(), argv.end(), "-h") != argv.end()) {
    out << kPackReportHelp;
    return kOk;
  }
  if (!parse_args(argv, {"--output", "--unneeded-times"}, {"--help", "--tile"}, a, error)) {
    err << "tightpack pack-report: " << error << "\n" << kPackReportHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kPackReportHelp;
    return kOk;
  }
  for (const std::string& p : a.positional) {
    if (p.size() > 1 && p[0] == '-') {
      err << "tightpack pack-report: unknown option " << p << "\n" << kPackReportHelp;
      return kUsage;
    }
  }
  if (a.positional.size() > 1) {
    err << "tightpack pack-report: one scenario at a time, got " << a.positional[0] << " and "
        << a.positional[1] << "\n";
    return kUsage;
  }
  if (a.positional.empty()) {
    err << "tightpack pack-report: SCENARIO is required ('-' reads standard input)\n"
        << kPackReportHelp;
    return kUsage;
  }
  const std::string& file = a.positional[0];
  const std::string output = a.options.count("--output") ? a.options["--output"] : "table";
  if (output != "table" && output != "json") {
    err << "tightpack pack-report: --output must be table or json, not " << quote_value(output)
        << "\n";
    return kUsage;
  }
  auto times = unneeded_times(a.options["--unneeded-times"], err);
  if (!times) return kUsage;
  const bool tile = has_flag(a, "--tile");
  std::vector<packing::TiledWorkload> tiled;
  auto scenario = read_scenario(file, in, tile, tiled);
  if (!scenario) {
    err << "tightpack pack-report: " << scenario.error().what() << "\n";
    return kInputError;
  }
  auto report = packing::run_pack_report(*scenario);
  if (!report) {
    err << "tightpack pack-report: " << report.error().what() << "\n";
    return kInputError;
  }
  auto runs = unneeded_runs(*scenario, *report, *times);
  if (!runs) {
    err << "tightpack pack-report: " << runs.error().what() << "\n";
    return kInputError;
  }
  const std::vector<TiledShape> shapes = shapes_of(tiled);
  if (output == "json") {
    boost::json::value doc_out = packing::encode_pack_report(*report);
    boost::json::object& o = doc_out.as_object();
    if (tile) {
      boost::json::array list;
      for (const TiledShape& t : shapes) {
        list.push_back(boost::json::object{
            {"pool", t.pool},
            {"perNode", boost::json::array{t.per_node_before, t.per_node_after}},
            {"from", quantities(t.before)},
            {"to", quantities(t.after)},
            {"workloads", t.workloads}});
      }
      o["tiled"] = std::move(list);
    }
    if (!runs->empty()) {
      boost::json::array list;
      for (const UnneededRun& r : *runs) {
        if (&r == &runs->front()) continue;  // the report itself
        boost::json::value one = packing::encode_pack_report(r.report);
        one.as_object()["unneededTime"] = r.time;
        list.push_back(std::move(one));
      }
      o["unneededTimes"] = std::move(list);
    }
    out << boost::json::serialize(doc_out) << "\n";
  } else {
    print_table(*report, out);
    if (tile) print_tiled(shapes, out);
    if (!runs->empty()) print_unneeded(*runs, tile, out);
  }
  return kOk;
}

}  // namespace tightpack::cli
