// Pods to hold properties over, from outside the engine: the corpora's, the
// repository's examples and fuzzing seeds, the pods the real clients make
// (data/client_pods.json, recorded from KubeSpawner, the dask-kubernetes
// operator and dask-gateway by tests/clients/record_pods.py), and variants
// of the probe pod the decoders are learnt from (scheduling_fields.hpp).
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tightpack/scheduling_fields.hpp"

namespace tightpack::testing {

namespace json = boost::json;
namespace fs = std::filesystem;

struct Sample {
  std::string where;
  std::string kind;  // "Pod" or "DaemonSet"
  json::value object;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every pod-like object in a document: one with spec.containers (a pod or a
// pod template), and every DaemonSet (one with spec.template).
inline void collect(const json::value& v, const std::string& where, std::vector<Sample>& out) {
  if (v.is_array()) {
    for (size_t i = 0; i < v.get_array().size(); ++i)
      collect(v.get_array()[i], where + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (!v.is_object()) return;
  const json::object& o = v.get_object();
  if (const json::value* spec = o.if_contains("spec"); spec && spec->is_object()) {
    if (spec->get_object().contains("containers")) out.push_back({where, "Pod", v});
    if (const json::value* t = spec->get_object().if_contains("template");
        t && t->is_object() && t->get_object().contains("spec")) {
      out.push_back({where, "DaemonSet", v});
    }
  }
  for (const auto& kv : o) collect(kv.value(), where + "." + std::string(kv.key()), out);
}

inline void collect_file(const fs::path& p, std::vector<Sample>& out) {
  const std::string text = read_text(p);
  if (p.extension() == ".jsonl") {
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (line.empty()) continue;
      boost::system::error_code ec;
      json::value v = json::parse(line, ec);
      if (!ec) collect(v, p.filename().string() + ":" + std::to_string(n), out);
    }
    return;
  }
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (!ec) collect(v, p.filename().string(), out);
}

inline std::vector<Sample> repository_samples() {
  const fs::path root = TIGHTPACK_SOURCE_DIR;
  std::vector<Sample> out;
  collect_file(root / "core/tests/data/client_pods.json", out);
  EXPECT_EQ(out.size(), 9u) << "the real clients' pods";
  for (const char* dir : {"examples", "fuzz/corpus/decode", "fuzz/corpus/replay"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      if (e.is_regular_file() && e.path().extension() == ".json") collect_file(e.path(), out);
    }
  }
  return out;
}

// The probe with members left out at random, and values of other types put
// in: the shapes real pods take between none and all of the fields.
inline json::value variant(const json::value& v, std::mt19937& rng) {
  std::uniform_int_distribution<int> die(0, 9);
  if (v.is_array()) {
    json::array out;
    for (const json::value& e : v.get_array()) {
      if (die(rng) > 0) out.push_back(variant(e, rng));
    }
    return out;
  }
  if (!v.is_object()) return die(rng) == 0 ? json::value("x") : v;
  json::object out;
  for (const auto& kv : v.get_object()) {
    const int roll = die(rng);
    if (roll < 3) continue;
    out.emplace(kv.key(), roll == 3 ? json::value(nullptr) : variant(kv.value(), rng));
  }
  return out;
}

// The corpora's pods and DaemonSets, where ../shared is beside the
// repository; none elsewhere.
inline std::vector<Sample> corpus_samples() {
  const fs::path shared = fs::path(TIGHTPACK_SOURCE_DIR) / ".." / "shared";
  std::vector<Sample> out;
  for (const char* file : {"corpus/dev.jsonl", "corpus/edge.jsonl", "autoscaler/dev.jsonl"}) {
    if (fs::exists(shared / file)) collect_file(shared / file, out);
  }
  return out;
}

inline std::vector<Sample> probe_variants(const std::string& kind, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Sample> out;
  for (int i = 0; i < count; ++i)
    out.push_back({kind + " variant " + std::to_string(i), kind, variant(probe_object(kind), rng)});
  return out;
}

}  // namespace tightpack::testing
