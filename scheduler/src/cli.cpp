#include "cli.hpp"

#include <boost/json.hpp>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "autoscale_cmd.hpp"
#include "forecast_cmd.hpp"
#include "pack_report_cmd.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/quantity.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/simulate.hpp"
#include "document_command.hpp"
#include "predict_pools.hpp"
#include "yaml_json.hpp"

namespace tightpack::cli {
namespace json = boost::json;
namespace {

constexpr const char* kUsageText = R"(tightpack — Kubernetes-exact placement engine

Usage:
  tightpack replay [--jsonl] [FILE|-]
  tightpack autoscale [--jsonl] [FILE|-]
  tightpack forecast --cluster FILE [--pools FILE] [--remove SELECTOR]
                     [--output table|json]
  tightpack predict --cluster FILE --pod FILE --replicas N [--config FILE]
                    [--scheduler-name NAME] [--pools FILE] [--output table|json]
  tightpack pack-report [--output table|json] SCENARIO
  tightpack help [COMMAND]
  tightpack --version

Commands:
  replay    Decide scenarios in the shared corpus format (conformance interface).
  autoscale What cluster-autoscaler decides: scale-up and scale-down of node groups.
  forecast  Which nodes cluster-autoscaler would remove, and what keeps the others.
  predict   Where would N copies of a pod go in a cluster?
  pack-report
            How many nodes workloads arriving and leaving keep busy, per profile.

Run 'tightpack COMMAND --help' for a command's options.
)";

constexpr const char* kReplayHelp = R"(Usage: tightpack replay [--jsonl] [FILE|-]

Reads a scenario ({"profile", "nodes", "pods", "incoming"}, or a corpus line with
"scenario") and prints kube-scheduler's decisions as one JSON document:
{"profile": …, "results": [{"pod", "filter", "filterPlugin", "scores", "feasible",
"scored", "top", "chosen", "message"}]}. A scenario that cannot be decoded prints
{"error": "…"}.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
)";

constexpr const char* kPredictHelp = R"(Usage: tightpack predict --cluster FILE --pod FILE --replicas N [options]

Places N copies of the pod, one after another, the way kube-scheduler would, and
shows how many land on each node with the node's fill before and after, then the
copies that fit nowhere with kube-scheduler's FailedScheduling message. With
--pools, cluster-autoscaler's scale-up for those copies follows: the nodes each
pool adds, the copies they take, when they are ready, and why the rest can never
run (docs/pools.md).

  --cluster FILE         nodes and pods: `kubectl get nodes,pods -A -o json`, a
                         NodeList/PodList, or {"nodes": […], "pods": […]}; JSON or YAML
  --pod FILE             the pod (a v1 Pod, JSON or YAML); '-' reads standard input
  --replicas N           how many copies (1 to 1000000)
  --config FILE          a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1);
                         without it, kube-scheduler's default profile
  --scheduler-name NAME  the profile to use (default: the pod's spec.schedulerName
                         when the configuration has it, else the first profile)
  --pools FILE           a NodePools document (tightpack.io/v1alpha1), JSON or YAML;
                         pools it does not name are inferred from the nodes' pool
                         labels (GKE, EKS, AKS, Karpenter, instance type)
  --output table|json    (default: table)

Exit status: 0 every copy placed (with --pools: today or on the nodes a scale-up
adds), 3 some copies can never run, 1 bad input, 2 bad usage.
)";

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  std::vector<std::string> flags;
};

bool parse_args(const std::vector<std::string>& in, const std::vector<std::string>& with_value,
                const std::vector<std::string>& flags, Args& out, std::string& error) {
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (a.size() > 2 && a.rfind("--", 0) == 0) {
      std::string name = a, value;
      bool inline_value = false;
      if (auto eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        inline_value = true;
      }
      if (std::find(flags.begin(), flags.end(), name) != flags.end() && !inline_value) {
        out.flags.push_back(name);
      } else if (std::find(with_value.begin(), with_value.end(), name) != with_value.end()) {
        if (!inline_value) {
          if (i + 1 >= in.size()) {
            error = "option " + name + " needs a value";
            return false;
          }
          value = in[++i];
        }
        out.options[name] = value;
      } else {
        error = "unknown option " + a;
        return false;
      }
    } else {
      out.positional.push_back(a);
    }
  }
  return true;
}

bool has_flag(const Args& a, const std::string& f) {
  return std::find(a.flags.begin(), a.flags.end(), f) != a.flags.end();
}

std::string replay_answer(std::string_view scenario) { return replay_text(scenario); }

int replay(const std::vector<std::string>& argv, std::istream& in, std::ostream& out, std::ostream& err) {
  return run_document_command({"replay", kReplayHelp, replay_answer}, argv, in, out, err);
}

std::string percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return std::to_string(part * 100 / whole) + "%";
}

int predict(const std::vector<std::string>& argv, std::istream& in, std::ostream& out, std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv, {"--cluster", "--pod", "--replicas", "--config", "--scheduler-name", "--pools", "--output"},
                  {"--help"}, a, error) ||
      !a.positional.empty()) {
    err << "tightpack predict: " << (error.empty() ? "unexpected argument " + a.positional[0] : error) << "\n"
        << kPredictHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kPredictHelp;
    return kOk;
  }
  for (const char* required : {"--cluster", "--pod", "--replicas"}) {
    if (!a.options.count(required)) {
      err << "tightpack predict: " << required << " is required\n" << kPredictHelp;
      return kUsage;
    }
  }
  if ((a.options["--cluster"] == "-") + (a.options["--pod"] == "-") +
          (a.options.count("--pools") && a.options["--pools"] == "-") > 1) {
    err << "tightpack predict: only one of --cluster, --pod and --pools can read standard input\n";
    return kUsage;
  }
  int64_t replicas = 0;
  {
    const std::string& r = a.options["--replicas"];
    auto [p, ec] = std::from_chars(r.data(), r.data() + r.size(), replicas);
    if (ec != std::errc() || p != r.data() + r.size() || replicas < 1 || replicas > 1000000) {
      err << "tightpack predict: --replicas " << quote_value(r) << " is not a whole number from 1 to 1000000\n";
      return kUsage;
    }
  }
  std::string output = a.options.count("--output") ? a.options["--output"] : "table";
  if (output != "table" && output != "json") {
    err << "tightpack predict: --output must be table or json, not " << quote_value(output) << "\n";
    return kUsage;
  }
  auto load = [&](const std::string& option, json::value& doc) {
    std::string text;
    if (!read_input(a.options[option], in, text, error)) return false;
    auto parsed = parse_document(text);
    if (!parsed) {
      error = a.options[option] + ": " + parsed.error().what();
      return false;
    }
    doc = std::move(*parsed);
    return true;
  };
  json::value cluster_doc, pod_doc, config_doc, pools_doc;
  if (!load("--cluster", cluster_doc) || !load("--pod", pod_doc) ||
      (a.options.count("--config") && !load("--config", config_doc)) ||
      (a.options.count("--pools") && !load("--pools", pools_doc))) {
    err << "tightpack predict: " << error << "\n";
    return kInputError;
  }
  ClusterObjects objects;
  if (auto s = decode_objects(cluster_doc, JsonPath(), objects); !s) {
    err << "tightpack predict: " << a.options["--cluster"] << ": " << s.error().what() << "\n";
    return kInputError;
  }
  auto pod = decode_pod(pod_doc, JsonPath());
  if (!pod) {
    err << "tightpack predict: " << a.options["--pod"] << ": " << pod.error().what() << "\n";
    return kInputError;
  }
  SchedulerConfiguration config;
  if (a.options.count("--config")) {
    auto decoded = decode_scheduler_configuration(config_doc, JsonPath());
    if (!decoded) {
      err << "tightpack predict: " << a.options["--config"] << ": " << decoded.error().what() << "\n";
      return kInputError;
    }
    config = std::move(*decoded);
  } else {
    config.profiles.push_back(default_profile());
  }
  const Profile* profile = &config.profiles.front();
  if (a.options.count("--scheduler-name")) {
    profile = config.find(a.options["--scheduler-name"]);
    if (!profile) {
      err << "tightpack predict: no profile with schedulerName " << quote_value(a.options["--scheduler-name"])
          << " in the configuration\n";
      return kUsage;
    }
  } else if (const Profile* own = config.find(pod->scheduler_name)) {
    profile = own;
  }
  auto cluster = Cluster::build(objects.nodes, objects.pods);
  if (!cluster) {
    err << "tightpack predict: " << a.options["--cluster"] << ": " << cluster.error().what() << "\n";
    return kInputError;
  }
  const Cluster before = *cluster;
  auto result = simulate_replicas(*cluster, *profile, *pod, replicas);
  if (!result) {
    err << "tightpack predict: " << result.error().what() << "\n";
    return kInputError;
  }
  std::map<NodeIndex, int64_t> landed;
  int64_t unschedulable = 0;
  for (const auto& r : result->replicas) {
    if (r.node) {
      ++landed[*r.node];
    } else {
      ++unschedulable;
    }
  }
  std::optional<PoolsAnswer> pools;
  if (a.options.count("--pools")) {
    auto answer = predict_pools(pools_doc, a.options["--pools"], cluster_doc, a.options["--cluster"], *pod,
                                *result, *cluster);
    if (!answer) {
      err << "tightpack predict: " << answer.error().what() << "\n";
      return kInputError;
    }
    pools = std::move(*answer);
  }
  if (output == "json") {
    json::object o;
    o["schedulerName"] = profile->scheduler_name;
    o["replicas"] = replicas;
    o["placed"] = replicas - unschedulable;
    json::array nodes;
    for (const auto& [n, count] : landed) {
      nodes.push_back(json::object{
          {"node", cluster->name(n)},
          {"replicas", count},
          {"cpu", json::object{{"allocatable", format_milli(before.alloc_cpu()[n])},
                               {"requestedBefore", format_milli(before.req_cpu()[n])},
                               {"requestedAfter", format_milli(cluster->req_cpu()[n])}}},
          {"memory", json::object{{"allocatable", format_bytes(before.alloc_memory()[n])},
                                  {"requestedBefore", format_bytes(before.req_memory()[n])},
                                  {"requestedAfter", format_bytes(cluster->req_memory()[n])}}},
      });
    }
    o["nodes"] = std::move(nodes);
    json::array placements;
    for (const auto& r : result->replicas) {
      placements.push_back(json::object{{"pod", r.pod},
                                        {"node", r.node ? json::value(cluster->name(*r.node)) : json::value(nullptr)},
                                        {"tiedNodes", r.tied}});
    }
    o["placements"] = std::move(placements);
    if (unschedulable > 0) {
      o["unschedulable"] = json::object{{"replicas", unschedulable}, {"message", result->unschedulable_message}};
    }
    if (pools) o["scaleUp"] = scale_up_json(*pools);
    out << json::serialize(o) << "\n";
  } else {
    out << "Profile " << profile->scheduler_name << ": " << (replicas - unschedulable) << " of " << replicas
        << " replicas placed on " << landed.size() << " node(s)\n\n";
    if (!landed.empty()) {
      size_t width = 4;
      for (const auto& [n, count] : landed) width = std::max(width, cluster->name(n).size());
      out << std::left << std::setw(static_cast<int>(width)) << "NODE" << "  REPLICAS  CPU BEFORE->AFTER  "
          << "MEMORY BEFORE->AFTER\n";
      for (const auto& [n, count] : landed) {
        std::string cpu = percent(before.req_cpu()[n], before.alloc_cpu()[n]) + " -> " +
                          percent(cluster->req_cpu()[n], cluster->alloc_cpu()[n]);
        std::string mem = percent(before.req_memory()[n], before.alloc_memory()[n]) + " -> " +
                          percent(cluster->req_memory()[n], cluster->alloc_memory()[n]);
        out << std::left << std::setw(static_cast<int>(width)) << cluster->name(n) << "  " << std::right
            << std::setw(8) << count << "  " << std::left << std::setw(18) << cpu << mem << "\n";
      }
    }
    if (unschedulable > 0) {
      out << "\n" << unschedulable << " replica(s) unschedulable: " << result->unschedulable_message << "\n";
    }
    if (pools) print_scale_up(out, *pools);
  }
  if (pools) return pools->prediction.every_replica_runs() ? kOk : kUnschedulable;
  return unschedulable > 0 ? kUnschedulable : kOk;
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsageText;
    return kUsage;
  }
  const std::string& cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "--help" || cmd == "-h") {
    out << kUsageText;
    return kOk;
  }
  if (cmd == "help") {
    if (rest.empty()) {
      out << kUsageText;
    } else if (rest[0] == "replay") {
      out << kReplayHelp;
    } else if (rest[0] == "predict") {
      out << kPredictHelp;
    } else if (rest[0] == "autoscale") {
      out << kAutoscaleHelp;
    } else if (rest[0] == "pack-report") {
      out << kPackReportHelp;
    } else if (rest[0] == "forecast") {
      out << kForecastHelp;
    } else {
      err << "tightpack help: unknown command " << quote_value(rest[0]) << "\n";
      return kUsage;
    }
    return kOk;
  }
  if (cmd == "--version") {
    out << "tightpack 0.1.0\n";
    return kOk;
  }
  if (cmd == "replay") return replay(rest, in, out, err);
  if (cmd == "autoscale") return autoscale(rest, in, out, err);
  if (cmd == "forecast") return forecast(rest, in, out, err);
  if (cmd == "pack-report") return pack_report(rest, in, out, err);
  if (cmd == "predict") return predict(rest, in, out, err);
  err << "tightpack: unknown command " << quote_value(cmd) << "\n" << kUsageText;
  return kUsage;
}

}  // namespace tightpack::cli
