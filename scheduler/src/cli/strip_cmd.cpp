#include <boost/json.hpp>
#include <iostream>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "tightpack/scheduling_fields.hpp"

namespace tightpack::cli {
namespace json = boost::json;

const char* const kStripHelp =
    R"(Usage: tightpack strip [FILE|-]
       tightpack strip --fields

Prints the document (a Kubernetes object or List, JSON or YAML, as
`kubectl get pods,daemonsets -A -o json` writes it) with each Pod, and each
DaemonSet's pod template, cut to the fields kube-scheduler and cluster-autoscaler
read as tightpack's decoders read them; other objects are printed as they are.
Every answer of tightpack is the same for the cut document as for the whole one,
which leaves out environment variables, commands, probes, managedFields and the
status but for the phase, start time and nominated node. The sidebar server
cuts the pods it lists the same way.

--fields prints those fields instead: {"DaemonSet": tree, "Pod": tree}, where a
field that is true is kept whole and one that is an object keeps those of its
members (of each element, for an array). They are learnt from the decoders
themselves, by decoding a probe pod that has every object they descend into.

Exit status: 0 printed, 1 bad input, 2 bad usage.
)";

int strip(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv, {}, {"--help", "--fields"}, a, error) || a.positional.size() > 1 ||
      (has_flag(a, "--fields") && !a.positional.empty())) {
    if (error.empty()) error = "unexpected argument " + a.positional.back();
    err << "tightpack strip: " << error << "\n" << kStripHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kStripHelp;
    return kOk;
  }
  if (has_flag(a, "--fields")) {
    out << json::serialize(fields_read_json()) << "\n";
    return kOk;
  }
  const std::string file = a.positional.empty() ? "-" : a.positional[0];
  json::value doc;
  if (!read_document(file, in, doc, error)) {
    err << "tightpack strip: " << error << "\n";
    return kInputError;
  }
  out << json::serialize(strip_objects(doc)) << "\n";
  return kOk;
}

}  // namespace tightpack::cli
