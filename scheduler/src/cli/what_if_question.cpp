#include "cli/what_if_question.hpp"

#include <charconv>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/document_command.hpp"
#include "tightpack/decode.hpp"

namespace tightpack::cli {

std::optional<WhatIfQuestion> read_what_if_question(Args& a, const char* command, const char* help,
                                                    bool replicas_required, bool infer_pools,
                                                    std::istream& in, std::ostream& err,
                                                    int& code) {
  const std::string name = std::string("tightpack ") + command + ": ";
  auto usage = [&](const std::string& message) {
    err << name << message << "\n" << help;
    code = kUsage;
    return std::nullopt;
  };
  for (const char* required : {"--cluster", "--pod", "--replicas"}) {
    if (!a.options.count(required) && (replicas_required || std::string(required) != "--replicas"))
      return usage(std::string(required) + " is required");
  }
  if ((a.options["--cluster"] == "-") + (a.options["--pod"] == "-") +
          (a.options.count("--pools") && a.options["--pools"] == "-") >
      1) {
    err << name << "only one of --cluster, --pod and --pools can read standard input\n";
    code = kUsage;
    return std::nullopt;
  }
  std::optional<int64_t> replicas;
  if (a.options.count("--replicas")) {
    const std::string& r = a.options["--replicas"];
    int64_t n = 0;
    auto [p, ec] = std::from_chars(r.data(), r.data() + r.size(), n);
    if (ec != std::errc() || p != r.data() + r.size() || n < 1 || n > kMaxWhatIfReplicas) {
      err << name << "--replicas " << quote_value(r)
          << " is not a whole number from 1 to 1000000\n";
      code = kUsage;
      return std::nullopt;
    }
    replicas = n;
  }
  std::string output = a.options.count("--output") ? a.options["--output"] : "table";
  if (output != "table" && output != "json") {
    err << name << "--output must be table or json, not " << quote_value(output) << "\n";
    code = kUsage;
    return std::nullopt;
  }
  // The documents are read here (files, JSON or YAML); the cluster is loaded as
  // the sidebar loads it, by the one loader both builds share.
  std::string error;
  auto read = [&](const char* option, NamedDocument& d) {
    d.name = a.options[option];
    return read_document(d.name, in, d.doc, error);
  };
  auto read_if_given = [&](const char* option, std::optional<NamedDocument>& d) {
    return !a.options.count(option) || read(option, d.emplace());
  };
  WhatIfInputs inputs;
  inputs.infer_pools = infer_pools;
  NamedDocument pod_doc;
  if (!read("--cluster", inputs.snapshot) || !read("--pod", pod_doc) ||
      !read_if_given("--config", inputs.scheduler_config) ||
      !read_if_given("--pools", inputs.pools)) {
    err << name << error << "\n";
    code = kInputError;
    return std::nullopt;
  }
  auto loaded = load_what_if_cluster(inputs);
  if (!loaded) {
    err << name << loaded.error().what() << "\n";
    code = kInputError;
    return std::nullopt;
  }
  // As the sidebar's questions: inferred from the nodes unless a flag says.
  AdmissionOptions admission = loaded->admission();
  if (has_flag(a, "--extended-resource-toleration")) admission.extended_resource_toleration = true;
  if (has_flag(a, "--no-extended-resource-toleration"))
    admission.extended_resource_toleration = false;
  auto admitted = decode_admitted_pod(pod_doc.doc, admission, JsonPath());
  if (!admitted) {
    err << name << pod_doc.name << ": " << admitted.error().what() << "\n";
    code = kInputError;
    return std::nullopt;
  }
  auto profile =
      loaded->profile(a.options.count("--scheduler-name") ? a.options["--scheduler-name"] : "",
                      admitted->pod, a.options.count("--release") ? a.options["--release"] : "");
  if (!profile) {
    err << name << profile.error().what() << "\n";
    code = kUsage;
    return std::nullopt;
  }
  return WhatIfQuestion{std::move(*loaded), std::move(admitted->pod), std::move(admitted->changes),
                        admitted->drain,    std::move(*profile),      replicas,
                        std::move(output)};
}

}  // namespace tightpack::cli
