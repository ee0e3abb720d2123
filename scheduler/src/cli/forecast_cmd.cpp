#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <tuple>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/pools/forecast.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::cli {
namespace json = boost::json;

const char* const kForecastHelp =
    R"(Usage: tightpack forecast --cluster FILE [--pools FILE] [--remove SELECTOR]
                          [--remove-pods NS/NAME,...] [--remove-deployments NS/NAME,...]
                          [--now TIME] [--output table|json]

Which nodes cluster-autoscaler would remove (scale-down), and for every other
node what keeps it, in cluster-autoscaler's reason names: utilization above
the threshold (GPU nodes by GPU), a pod that fits on no other node, a pod
without a controller (dask-gateway's workers) or of a custom controller,
safe-to-evict "false", local storage, kube-system pods younger than an hour
without a disruption budget, a budget used up, a pool at its minimum size, a
node in no pool. Nodes are judged one after another, as cluster-autoscaler's
scale-down planner does.

  --cluster FILE       the cluster: `kubectl get nodes,pods,daemonsets,replicasets,
                       statefulsets,jobs,pdb -A -o json`; with only nodes and pods,
                       the controllers pods name are taken to exist and no pod has
                       a disruption budget. JSON or YAML; '-' reads standard input
  --pools FILE         a NodePools document (apiVersion tightpack.io/v1alpha1):
                       pools, min sizes, cluster-autoscaler's flags; without it,
                       pools are inferred from the nodes' pool labels (min size 0)
  --remove SELECTOR    take the pods this label selector selects away first (a
                       user's workers leaving), in kubectl's syntax:
                       'dask.org/cluster-name=alice', 'app in (a,b)', '!k', 'k!=v'
  --remove-pods NS/NAME,...
                       take these pods away first (dask-gateway names a worker
                       after its pod)
  --remove-deployments NS/NAME,...
                       take these Deployments' pods away first (the dask-kubernetes
                       operator runs each worker as a Deployment of the worker's name)
  --now TIME           the time to judge pods' ages at, RFC 3339 (default: now);
                       kube-system pods without a budget stop blocking after an hour
  --output table|json  (default: table)

Exit status: 0 forecast printed, 1 bad input, 2 bad usage.
)";

namespace {

struct ForecastArgs {
  std::map<std::string, std::string> options;
  bool help = false;
};

// --name VALUE or --name=VALUE for the options that take one; --help.
bool parse(const std::vector<std::string>& argv, ForecastArgs& a, std::string& error) {
  static const char* const kWithValue[] = {
      "--cluster", "--pools", "--remove", "--remove-pods", "--remove-deployments",
      "--output",  "--now"};
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--help") {
      a.help = true;
      continue;
    }
    std::string name = arg, value;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    bool known = false;
    for (const char* k : kWithValue) known = known || name == k;
    if (!known) {
      error = arg.rfind("--", 0) == 0 && arg.size() > 2 ? "unknown option " + arg
                                                        : "unexpected argument " + arg;
      return false;
    }
    if (eq == std::string::npos) {
      if (i + 1 >= argv.size()) {
        error = "option " + name + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    a.options[name] = value;
  }
  return true;
}

// kubectl's table layout: upper-case headers, columns three spaces apart.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 3, ' ');
    }
    out << line << "\n";
  }
}

void print_forecast(std::ostream& out, const pools::ScaleDownForecast& f,
                    const std::string& removed_what) {
  if (!removed_what.empty()) {
    out << "Removed first: " << f.removed_pods.size()
        << (f.removed_pods.size() == 1 ? " pod" : " pods") << removed_what << "\n";
  }
  out << "Scale-down forecast: " << f.removable << " of " << f.nodes.size()
      << " nodes removable after " << pools::format_duration(f.unneeded_seconds)
      << " unneeded (cluster-autoscaler rules)\n\n";
  bool any_inferred = false;
  std::vector<std::vector<std::string>> rows{
      {"NODE", "POOL", "UTILIZATION", "REMOVABLE", "REASON", "DETAIL"}};
  for (const pools::NodeForecast& n : f.nodes) {
    any_inferred = any_inferred || n.pool_inferred;
    rows.push_back({n.node, n.pool.empty() ? "<none>" : n.pool + (n.pool_inferred ? "*" : ""),
                    n.utilization.resource + " " + pools::format_percent(n.utilization.value),
                    n.removable ? "yes" : "no", n.removable ? "-" : n.reason, n.message});
  }
  print_table(out, rows);

  if (!f.pools.empty() || f.not_autoscaled > 0) {
    out << "\n";
    std::vector<std::vector<std::string>> pool_rows{{"POOL", "NODES", "REMOVABLE", "MIN SIZE"}};
    for (const pools::PoolForecast& p : f.pools) {
      pool_rows.push_back({p.name + (p.inferred ? "*" : ""), std::to_string(p.nodes),
                           std::to_string(p.removable),
                           std::to_string(p.min_size) + (p.inferred ? " (assumed)" : "")});
    }
    if (f.not_autoscaled > 0) {
      pool_rows.push_back({"<none>", std::to_string(f.not_autoscaled), "0", "-"});
    }
    print_table(out, pool_rows);
  }
  if (any_inferred) {
    out << "\n* inferred from node labels: min size unknown, assumed 0 (name the pool in a "
           "NodePools document, --pools, to set it)\n";
  }

  // One line per kind of blocker present, with what to do about it.
  std::map<std::string, int64_t> blockers;
  for (const pools::NodeForecast& n : f.nodes) {
    if (!n.removable && !pools::blocker_fix(n.reason).empty()) ++blockers[n.reason];
  }
  if (!blockers.empty()) {
    out << "\nTo unblock:\n";
    for (const auto& [reason, count] : blockers) {
      out << "  " << reason << " (" << count << (count == 1 ? " node" : " nodes")
          << "): " << pools::blocker_fix(reason) << "\n";
    }
  }
  if (!f.notes.empty()) {
    out << "\nNotes:\n";
    for (const std::string& note : f.notes) out << "  - " << note << "\n";
  }
}

}  // namespace

int forecast(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err) {
  ForecastArgs a;
  std::string error;
  if (!parse(argv, a, error)) {
    err << "tightpack forecast: " << error << "\n" << kForecastHelp;
    return kUsage;
  }
  if (a.help) {
    out << kForecastHelp;
    return kOk;
  }
  if (!a.options.count("--cluster")) {
    err << "tightpack forecast: --cluster is required\n" << kForecastHelp;
    return kUsage;
  }
  if (a.options.count("--pools") && a.options["--cluster"] == "-" && a.options["--pools"] == "-") {
    err << "tightpack forecast: only one of --cluster and --pools can read standard input\n";
    return kUsage;
  }
  const std::string output = a.options.count("--output") ? a.options["--output"] : "table";
  if (output != "table" && output != "json") {
    err << "tightpack forecast: --output must be table or json, not " << quote_value(output)
        << "\n";
    return kUsage;
  }
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  if (a.options.count("--now")) {
    auto t = rfc3339_seconds(a.options["--now"]);
    if (!t) {
      err << "tightpack forecast: --now must be an RFC 3339 time such as 2026-11-30T12:00:00Z, not "
          << quote_value(a.options["--now"]) << "\n";
      return kUsage;
    }
    now = *t;
  }
  pools::PodRemoval remove;
  std::string removed_what;  // for the table's first line: " matching …", " (Deployments …)"
  if (a.options.count("--remove")) {
    const std::string& text = a.options["--remove"];
    if (text.find_first_not_of(" \t") == std::string::npos) {
      // kubectl's empty selector selects every pod: never what a user means here.
      err << "tightpack forecast: --remove needs a selector, such as dask.org/cluster-name=alice\n";
      return kUsage;
    }
    auto parsed = parse_label_selector(text);
    if (!parsed) {
      err << "tightpack forecast: --remove: " << parsed.error().what() << "\n";
      return kUsage;
    }
    remove.selector = std::move(*parsed);
    removed_what = " matching " + text;
  }
  std::string named;
  for (const auto& [option, what, list] :
       {std::tuple{"--remove-pods", "pod", &remove.pods},
        std::tuple{"--remove-deployments", "Deployment", &remove.deployments}}) {
    if (!a.options.count(option)) continue;
    const std::string& text = a.options[option];
    for (size_t start = 0; start <= text.size();) {
      const size_t comma = std::min(text.find(',', start), text.size());
      std::string key = text.substr(start, comma - start);
      if (auto bad = pools::object_key_error(key, what)) {
        err << "tightpack forecast: " << option << ": " << *bad << "\n";
        return kUsage;
      }
      list->push_back(std::move(key));
      start = comma + 1;
    }
    named += (named.empty() ? "" : "; ") + std::string(what) + "s " + text;
  }
  if (!named.empty()) removed_what += " (" + named + ")";

  auto load = [&](const std::string& option, json::value& doc) {
    return read_document(a.options[option], in, doc, error);
  };
  json::value cluster_doc, pools_doc;
  if (!load("--cluster", cluster_doc) ||
      (a.options.count("--pools") && !load("--pools", pools_doc))) {
    err << "tightpack forecast: " << error << "\n";
    return kInputError;
  }
  auto snapshot = pools::decode_cluster_snapshot(cluster_doc, JsonPath());
  if (!snapshot) {
    err << "tightpack forecast: " << a.options["--cluster"] << ": " << snapshot.error().what()
        << "\n";
    return kInputError;
  }
  pools::PoolsConfig config;
  if (a.options.count("--pools")) {
    auto decoded = pools::decode_pools_config(pools_doc, JsonPath());
    if (!decoded) {
      err << "tightpack forecast: " << a.options["--pools"] << ": " << decoded.error().what()
          << "\n";
      return kInputError;
    }
    config = std::move(*decoded);
  }
  std::vector<Node> nodes;
  nodes.reserve(snapshot->nodes.size());
  for (const autoscaler::CaNode& n : snapshot->nodes) nodes.push_back(n.node);
  const pools::ResolvedPools resolved = pools::resolve_pools(config, nodes);
  auto f = pools::forecast_scale_down(*snapshot, resolved, config, remove, now);
  if (!f) {
    err << "tightpack forecast: " << a.options["--cluster"] << ": " << f.error().what() << "\n";
    return kInputError;
  }
  if (output == "json") {
    out << json::serialize(pools::forecast_json(*f)) << "\n";
  } else {
    print_forecast(out, *f, removed_what);
  }
  return kOk;
}

}  // namespace tightpack::cli
