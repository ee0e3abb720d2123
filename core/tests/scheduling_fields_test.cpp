// What scheduling reads of a pod, as the decoders themselves say it
// (scheduling_fields.hpp), held as a property over pods from outside the
// engine (pod_samples.hpp): for each, the decoders look up nothing outside
// the tree, and a pod cut to the tree decodes to the same CaPod, or fails
// with the same error.
#include "tightpack/scheduling_fields.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pod_samples.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/decode.hpp"

namespace tightpack {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using testing::read_text;
using testing::Sample;

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
  hold_property(testing::probe_variants("Pod", 400, 20261207));
  hold_property(testing::probe_variants("DaemonSet", 400, 20261208));
}

TEST(SchedulingFields, RepositoryPodsDecodeAlikeCut) {
  const std::vector<Sample> samples = testing::repository_samples();
  ASSERT_GT(samples.size(), 50u);
  hold_property(samples);
}

TEST(SchedulingFields, CorpusPodsDecodeAlikeCut) {
  const std::vector<Sample> samples = testing::corpus_samples();
  if (samples.empty()) GTEST_SKIP() << "no corpora beside the repository (../shared)";
  ASSERT_GT(samples.size(), 1000u);
  hold_property(samples);
}

}  // namespace
}  // namespace tightpack
