// What scheduling reads of a pod, as the decoders themselves say it
// (scheduling_fields.hpp), held as a property over real pods: the corpora's,
// the repository's examples and fuzzing seeds, the pods the real clients make
// (data/client_pods.json, recorded from KubeSpawner, the dask-kubernetes
// operator and dask-gateway by tests/clients/record_pods.py), and variants of
// the probe. For each, the decoders look up nothing outside the tree, and a
// pod cut to the tree decodes to the same CaPod, or fails with the same error.
#include "tightpack/scheduling_fields.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/decode.hpp"

namespace tightpack {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

struct Sample {
  std::string where;
  std::string kind;  // "Pod" or "DaemonSet"
  json::value object;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every pod-like object in a document: one with spec.containers (a pod or a
// pod template), and every DaemonSet (one with spec.template).
void collect(const json::value& v, const std::string& where, std::vector<Sample>& out) {
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

void collect_file(const fs::path& p, std::vector<Sample>& out) {
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

std::vector<Sample> repository_samples() {
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
json::value variant(const json::value& v, std::mt19937& rng) {
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

// Whether `full` and `stripped` decode alike; a message saying how not.
::testing::AssertionResult decodes_alike(const Sample& s, const json::value& stripped) {
  const JsonPath root("$");
  if (s.kind == "Pod") {
    auto a = autoscaler::decode_ca_pod(s.object, root);
    auto b = autoscaler::decode_ca_pod(stripped, root);
    if (!a && !b && a.error().what() == b.error().what()) return ::testing::AssertionSuccess();
    if (a && b && *a == *b) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << s.where << ": the pod decodes otherwise cut to the fields read ("
           << (a ? "decodes" : a.error().what()) << " / " << (b ? "decodes" : b.error().what())
           << ")\nfull: " << json::serialize(s.object) << "\ncut:  " << json::serialize(stripped);
  }
  auto a = autoscaler::decode_daemon_set(s.object, root);
  auto b = autoscaler::decode_daemon_set(stripped, root);
  if (!a && !b && a.error().what() == b.error().what()) return ::testing::AssertionSuccess();
  if (a && b && a->ns == b->ns && a->name == b->name && a->pod_template == b->pod_template)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << s.where << ": the DaemonSet decodes otherwise cut to the fields read\nfull: "
         << json::serialize(s.object) << "\ncut:  " << json::serialize(stripped);
}

void hold_property(const std::vector<Sample>& samples) {
  for (const Sample& s : samples) {
    auto looked_up = fields_looked_up(s.kind, s.object);
    ASSERT_TRUE(looked_up) << s.where << ": " << looked_up.error().what();
    EXPECT_TRUE(looked_up->within(*fields_read(s.kind)))
        << s.where << ": the decoders looked up\n"
        << looked_up->paths() << "beyond what the probe showed\n"
        << fields_read(s.kind)->paths();
    EXPECT_TRUE(decodes_alike(s, strip_objects(s.object)));
  }
}

TEST(SchedulingFields, TheProbesDecode) {
  const JsonPath root("$");
  auto pod = autoscaler::decode_ca_pod(probe_object("Pod"), root);
  ASSERT_TRUE(pod) << pod.error().what();
  EXPECT_EQ(pod->pod.image_volumes.size(), 1u);
  EXPECT_EQ(pod->local_volumes.size(), 0u);  // its emptyDir is in memory
  auto ds = autoscaler::decode_daemon_set(probe_object("DaemonSet"), root);
  ASSERT_TRUE(ds) << ds.error().what();
  EXPECT_EQ(ds->pod_template.containers.size(), 1u);
}

TEST(SchedulingFields, ThePodTreeHoldsWhatTheEngineReads) {
  const std::string paths = fields_read("Pod")->paths();
  for (const char* read :
       {"metadata.deletionTimestamp", "metadata.labels", "status.startTime", "spec.schedulingGates",
        "spec.resourceClaims", "spec.volumes.image.reference", "spec.volumes.persistentVolumeClaim",
        "spec.volumes.gcePersistentDisk", "spec.terminationGracePeriodSeconds",
        "spec.containers.resources.requests",
        "metadata.annotations.cluster-autoscaler.kubernetes.io/safe-to-evict"}) {
    EXPECT_NE(paths.find(std::string(read) + "\n"), std::string::npos) << read << " in\n" << paths;
  }
  for (const char* unread : {"spec.containers.env", "spec.containers.command", "status.conditions",
                             "metadata.managedFields"}) {
    EXPECT_EQ(paths.find(unread), std::string::npos) << unread << " in\n" << paths;
  }
  EXPECT_NE(fields_read("DaemonSet")->paths().find("spec.template.spec.tolerations."),
            std::string::npos);
  EXPECT_EQ(fields_read("Node"), nullptr);
}

TEST(SchedulingFields, KeepCutsEachElementAndLeavesOtherShapes) {
  FieldTree t;
  t.add("spec").add("containers").add("name");
  t.add("kind");
  const json::value v = json::parse(R"({"kind": "Pod", "x": 1,
      "spec": {"containers": [{"name": "a", "env": []}, 7], "y": 2}})");
  EXPECT_EQ(json::serialize(t.keep(v)), R"({"kind":"Pod","spec":{"containers":[{"name":"a"},7]}})");
  EXPECT_EQ(json::serialize(t.keep(json::value("s"))), R"("s")");
  FieldTree narrower;
  narrower.add("kind");
  EXPECT_TRUE(narrower.within(t));
  EXPECT_FALSE(t.within(narrower));
  EXPECT_TRUE(t.within(FieldTree{}));  // a whole tree keeps everything
}

TEST(SchedulingFields, StripObjectsCutsPodsAndDaemonSetsOfAList) {
  const json::value list = json::parse(R"({"kind": "List", "apiVersion": "v1", "items": [
      {"kind": "Pod", "metadata": {"name": "p", "managedFields": []},
       "spec": {"containers": [{"name": "c", "env": [{"name": "SECRET"}]}]}},
      {"kind": "Node", "metadata": {"name": "n", "managedFields": []}}]})");
  EXPECT_EQ(json::serialize(strip_objects(list)),
            R"({"kind":"List","apiVersion":"v1","items":[)"
            R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}},)"
            R"({"kind":"Node","metadata":{"name":"n","managedFields":[]}}]})");
}

TEST(SchedulingFields, TheSidebarServerShipsTheseFields) {
  const fs::path file = fs::path(TIGHTPACK_SOURCE_DIR) /
                        "labextension/jupyterlab_tightpack/sources/scheduling_fields.json";
  boost::system::error_code ec;
  const json::value shipped = json::parse(read_text(file), ec);
  ASSERT_FALSE(ec) << file << ": " << ec.message();
  EXPECT_EQ(shipped, fields_read_json())
      << file << " is not what the decoders read; write it again:\n"
      << "  tightpack strip --fields | python3 -m json.tool --indent 1 --sort-keys > " << file;
}

TEST(SchedulingFields, StripObjectsCutsTheKindlessItemsOfAPodList) {
  const json::value list = json::parse(R"({"kind": "PodList", "items": [
      {"metadata": {"name": "p", "resourceVersion": "7"}, "spec": {"dnsPolicy": "None"}}]})");
  EXPECT_EQ(json::serialize(strip_objects(list)),
            R"({"kind":"PodList","items":[{"metadata":{"name":"p"},"spec":{}}]})");
}

TEST(SchedulingFields, VariantsOfTheProbeDecodeAlikeCut) {
  std::mt19937 rng(20261207);
  std::vector<Sample> samples;
  for (int i = 0; i < 400; ++i) {
    for (const char* kind : {"Pod", "DaemonSet"}) {
      samples.push_back({std::string(kind) + " variant " + std::to_string(i), kind,
                         variant(probe_object(kind), rng)});
    }
  }
  hold_property(samples);
}

TEST(SchedulingFields, RepositoryPodsDecodeAlikeCut) {
  const std::vector<Sample> samples = repository_samples();
  ASSERT_GT(samples.size(), 50u);
  hold_property(samples);
}

TEST(SchedulingFields, CorpusPodsDecodeAlikeCut) {
  const fs::path shared = fs::path(TIGHTPACK_SOURCE_DIR) / ".." / "shared";
  if (!fs::exists(shared / "corpus")) GTEST_SKIP() << "no corpora at " << shared;
  std::vector<Sample> samples;
  for (const char* file : {"corpus/dev.jsonl", "corpus/edge.jsonl", "autoscaler/dev.jsonl"}) {
    collect_file(shared / file, samples);
  }
  ASSERT_GT(samples.size(), 1000u);
  hold_property(samples);
}

}  // namespace
}  // namespace tightpack
