#include <boost/json.hpp>
#include <iostream>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "tightpack/admission.hpp"

namespace tightpack::cli {
namespace json = boost::json;

const char* const kAdmitHelp =
    R"(Usage: tightpack admit [--extended-resource-toleration] [FILE|-]

Prints {"pod": <the pod>, "admission": [<each change>]}: the pod (a v1 Pod, JSON
or YAML) as the API server would store it and what scheduling reads, after
defaulting (a container's requests from its limits), DefaultTolerationSeconds
and, with --extended-resource-toleration (on in GKE), ExtendedResourceToleration.
Pod-level resource defaulting, Priority, LimitRanger, RuntimeClass and webhooks
are not applied. `tightpack predict` and the sidebar admit every pod this way.

Exit status: 0 admitted, 1 bad input, 2 bad usage.
)";

int admit(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv, {}, {"--help", "--extended-resource-toleration"}, a, error) ||
      a.positional.size() > 1) {
    err << "tightpack admit: " << (error.empty() ? "unexpected argument " + a.positional[1] : error)
        << "\n"
        << kAdmitHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kAdmitHelp;
    return kOk;
  }
  const std::string file = a.positional.empty() ? "-" : a.positional[0];
  json::value doc;
  if (!read_document(file, in, doc, error)) {
    err << "tightpack admit: " << error << "\n";
    return kInputError;
  }
  AdmissionOptions options;
  options.extended_resource_toleration = has_flag(a, "--extended-resource-toleration");
  auto admitted = admit_pod(doc, options, JsonPath());
  if (!admitted) {
    err << "tightpack admit: " << file << ": " << admitted.error().what() << "\n";
    return kInputError;
  }
  out << json::serialize(json::object{{"pod", admitted->pod},
                                      {"admission", encode_admission_changes(admitted->changes)}})
      << "\n";
  return kOk;
}

}  // namespace tightpack::cli
