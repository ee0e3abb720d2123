#include "cli/document_command.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/yaml_json.hpp"

namespace tightpack::cli {

bool read_input(const std::string& path, std::istream& in, std::string& text, std::string& error) {
  std::ostringstream buf;
  if (path.empty() || path == "-") {
    buf << in.rdbuf();
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      error = "cannot read " + path + ": " + std::strerror(errno);
      return false;
    }
    buf << f.rdbuf();
  }
  text = buf.str();
  return true;
}

bool read_document(const std::string& path, std::istream& in, boost::json::value& doc,
                   std::string& error) {
  std::string text;
  if (!read_input(path, in, text, error)) return false;
  auto parsed = parse_document(text);
  if (!parsed) {
    error = path + ": " + parsed.error().what();
    return false;
  }
  doc = std::move(*parsed);
  return true;
}

int run_document_command(const DocumentCommand& command, const std::vector<std::string>& argv,
                         std::istream& in, std::ostream& out, std::ostream& err) {
  bool jsonl = false, help = false;
  std::vector<std::string> positional;
  for (const std::string& a : argv) {
    if (a == "--jsonl") {
      jsonl = true;
    } else if (a == "--help") {
      help = true;
    } else if (a.size() > 2 && a.rfind("--", 0) == 0) {
      err << "tightpack " << command.name << ": unknown option " << a << "\n" << command.help;
      return kUsage;
    } else {
      positional.push_back(a);
    }
  }
  if (help) {
    out << command.help;
    return kOk;
  }
  if (positional.size() > 1) {
    err << "tightpack " << command.name << ": at most one FILE\n" << command.help;
    return kUsage;
  }
  std::string text, error;
  if (!read_input(positional.empty() ? "-" : positional[0], in, text, error)) {
    err << "tightpack " << command.name << ": " << error << "\n";
    return kInputError;
  }
  if (!jsonl) {
    out << command.answer(text) << "\n";
    return kOk;
  }
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos)
      out << command.answer(line) << "\n";
    start = end + 1;
  }
  return kOk;
}

}  // namespace tightpack::cli
