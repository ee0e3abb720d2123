#include "cli/args.hpp"

#include <algorithm>

namespace tightpack::cli {

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

}  // namespace tightpack::cli
