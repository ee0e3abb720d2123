// A whole file's bytes, for the small files the daemon reads: certificates,
// keys, kubeconfigs, tokens.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace tightpack {

inline bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

}  // namespace tightpack
