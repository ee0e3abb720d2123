// The shape `tightpack replay` and `tightpack autoscale` share: a scenario
// document (or JSON Lines of them) in, one JSON answer per scenario out.
#pragma once

#include <boost/json/value.hpp>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace tightpack::cli {

struct DocumentCommand {
  const char* name;  // for messages: "tightpack <name>: …"
  const char* help;
  std::string (*answer)(std::string_view scenario);
};

// Options: --jsonl, --help; one FILE or '-' (standard input, the default).
int run_document_command(const DocumentCommand& command, const std::vector<std::string>& argv,
                         std::istream& in, std::ostream& out, std::ostream& err);

// The whole of FILE, or of standard input for "-" or "".
bool read_input(const std::string& path, std::istream& in, std::string& text, std::string& error);

// FILE (or standard input) parsed as JSON or YAML; the error names the file.
bool read_document(const std::string& path, std::istream& in, boost::json::value& doc,
                   std::string& error);

}  // namespace tightpack::cli
