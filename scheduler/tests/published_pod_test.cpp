// What /snapshot publishes of a bound pod, read back through core's decoder:
// exactly the pod with what the snapshot withholds cleared (published_view),
// over pods from outside the engine (pod_samples.hpp). A field the decoder
// comes to read is in the view until it is withheld by name, so this fails
// until the template writes it or published_view says why it may not.
#include "daemon/published_pod.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "pod_samples.hpp"
#include "tightpack/autoscaler/scenario.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;
using testing::Sample;

void hold_the_template_to_the_view(const std::vector<Sample>& samples) {
  size_t pods = 0;
  for (const Sample& s : samples) {
    if (s.kind != "Pod") continue;
    auto decoded = autoscaler::decode_ca_pod(s.object, JsonPath("$"));
    if (!decoded) continue;  // what the cache never holds
    ++pods;
    const std::string text = published_template(*decoded);
    auto read = autoscaler::decode_ca_pod(json::parse(text), JsonPath("template"));
    ASSERT_TRUE(read) << s.where << ": " << read.error().what() << "\n" << text;
    EXPECT_TRUE(*read == published_view(*decoded))
        << s.where << ": the template says otherwise than published_view\n"
        << text << "\nof " << json::serialize(s.object);
  }
  EXPECT_GT(pods, 0u);
}

TEST(PublishedPod, TheTemplateReadsBackAsThePublishedView) {
  hold_the_template_to_the_view(testing::repository_samples());
  hold_the_template_to_the_view(testing::probe_variants("Pod", 300, 20261207));
  hold_the_template_to_the_view(testing::corpus_samples());
}

TEST(PublishedPod, TheViewWithholdsWhatNamesAUserAndKeepsWhatTakesRoom) {
  auto probe = autoscaler::decode_ca_pod(probe_object("Pod"), JsonPath("$"));
  ASSERT_TRUE(probe) << probe.error().what();
  const autoscaler::CaPod view = published_view(*probe);
  EXPECT_TRUE(view.pod.name.empty() && view.pod.uid.empty() && view.pod.labels.empty());
  EXPECT_TRUE(view.pod.start_time.empty() && view.pod.deletion_timestamp.empty());
  EXPECT_EQ(view.pod.containers[0].name, "c0");
  EXPECT_TRUE(view.pod.containers[0].image.empty());
  EXPECT_EQ(view.pod.containers[0].requests, probe->pod.containers[0].requests);
  EXPECT_EQ(view.pod.containers[0].ports, probe->pod.containers[0].ports);  // a host port
  EXPECT_EQ(view.pod.tolerations, probe->pod.tolerations);
  EXPECT_EQ(view.pod.priority, probe->pod.priority);
  EXPECT_EQ(view.controller_kind, "ReplicaSet");
}

}  // namespace
}  // namespace tightpack::daemon
