// Scale-down's drainability against cluster-autoscaler's
// simulator/drainability/rules at the commit tests/conformance/autoscaler-reference
// pins, run in rules.Default's order by simulator/drain.go's GetPodsToMove.
// The first two tests walk several rules at once; each later one pins one
// rule, named with its upstream file, its expectations read off that source
// rather than off the engine. A DISABLED_ test is an upstream rule the engine
// does not follow yet: its comment says how the engine differs.
#include "tightpack/autoscaler/drain.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "test_util.hpp"
#include "tightpack/autoscaler/scenario.hpp"

namespace tightpack::autoscaler {

// A failed expectation names the reason instead of printing its byte.
void PrintTo(DrainBlock b, std::ostream* os) {
  *os << (b == DrainBlock::kNone ? "none" : drain_block_name(b));
}

namespace {

using testing::make_pod;

// A pod whose controller is `kind` `owner` of the kind's own API group (as the
// decoder sets both from the ownerReference).
CaPod ca(Pod pod, std::string kind = "", std::string owner = "") {
  CaPod p;
  p.pod = std::move(pod);
  if (!kind.empty()) {
    std::string api_version = "example.com/v1";  // an operator's custom resource
    if (kind == "ReplicationController") api_version = "v1";
    if (kind == "Job") api_version = "batch/v1";
    if (kind == "ReplicaSet" || kind == "StatefulSet" || kind == "DaemonSet" ||
        kind == "Deployment") {
      api_version = "apps/v1";
    }
    p.pod.controller = OwnerReference{api_version, kind, owner, "uid-" + owner};
  }
  p.controller_kind = std::move(kind);
  p.controller_name = std::move(owner);
  p.daemon_set = p.controller_kind == "DaemonSet";
  return p;
}

// Through the corpus' pod decoder, for the rules that read what it derives
// (volumes, the mirror and DaemonSet annotations, the owner's apiVersion).
CaPod decoded(std::string_view text) {
  auto p = decode_ca_pod(testing::json_of(text), JsonPath());
  if (!p) {
    ADD_FAILURE() << p.error().what();
    return CaPod{};
  }
  return std::move(*p);
}

DrainResult drain(const std::vector<CaPod>& pods, const AutoscaleScenario& s) {
  std::vector<const CaPod*> ptrs;
  for (const CaPod& p : pods) ptrs.push_back(&p);
  const RemainingPdbs remaining = initial_pdbs(s);
  return pods_to_move(ptrs, s, &remaining);
}

DrainBlock first_block(const std::vector<CaPod>& pods, const AutoscaleScenario& s) {
  return drain(pods, s).block;
}

// ReplicaSet "rs" listed in default and kube-system: a pod it owns passes
// replicacount and replicated, and only the rule under test decides.
AutoscaleScenario listed_rs() {
  AutoscaleScenario s;
  s.controllers = {"ReplicaSet/default/rs", "ReplicaSet/kube-system/rs"};
  return s;
}

TEST(AutoscalerDrain, RulesInCaOrder) {
  AutoscaleScenario s;
  s.controllers = {"ReplicaSet/default/rs", "ReplicaSet/kube-system/dns"};
  CaPod mirror = ca(make_pod("mirror"));
  mirror.mirror = true;
  CaPod ds = ca(make_pod("ds"));  // a DaemonSet pod by annotation only
  ds.daemon_set = true;
  CaPod ok = ca(make_pod("ok"), "ReplicaSet", "rs");
  EXPECT_EQ(first_block({mirror, ds, ok}, s), DrainBlock::kNone);
  EXPECT_EQ(pods_to_move({&mirror, &ds, &ok}, s, nullptr).to_move, (std::vector<size_t>{2}));

  CaPod orphan_ds = ca(make_pod("ods"), "DaemonSet", "deleted");
  EXPECT_EQ(first_block({orphan_ds}, s), DrainBlock::kControllerNotFound);
  CaPod missing = ca(make_pod("m"), "ReplicaSet", "deleted");
  EXPECT_EQ(first_block({ok, missing}, s), DrainBlock::kControllerNotFound);
  CaPod bare = ca(make_pod("bare"));
  CaPod operator_owned = ca(make_pod("w"), "DaskWorkerGroup", "g");
  EXPECT_EQ(first_block({bare}, s), DrainBlock::kNotReplicated);
  EXPECT_EQ(first_block({operator_owned}, s), DrainBlock::kNotReplicated);

  CaPod system = ca(make_pod("dns"), "ReplicaSet", "dns");
  system.pod.ns = "kube-system";
  system.pod.labels = testing::labels({{"k8s-app", "kube-dns"}});
  EXPECT_EQ(first_block({system}, s), DrainBlock::kUnmovableKubeSystemPod);
  AutoscaleScenario with_pdb = s;
  with_pdb.pdbs.push_back(
      PdbSpec{"kube-system", LabelSelector{testing::labels({{"k8s-app", "kube-dns"}}), {}}, 1});
  EXPECT_EQ(first_block({system}, with_pdb), DrainBlock::kNone);
  with_pdb.pdbs[0].disruptions_allowed = 0;
  EXPECT_EQ(first_block({system}, with_pdb), DrainBlock::kNotEnoughPdb);

  CaPod scratch = ok;
  scratch.local_volumes = {"cache"};
  EXPECT_EQ(first_block({scratch}, s), DrainBlock::kLocalStorageRequested);
  scratch.pod.annotations = {
      {"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes", "cache"}};
  EXPECT_EQ(first_block({scratch}, s), DrainBlock::kNone);

  CaPod pinned = ok;
  pinned.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  EXPECT_EQ(first_block({pinned}, s), DrainBlock::kNotSafeToEvictAnnotation);
  // The first blocking rule wins: not replicated before the annotation.
  CaPod both = bare;
  both.pod.annotations = pinned.pod.annotations;
  EXPECT_EQ(first_block({both}, s), DrainBlock::kNotReplicated);
  // safe-to-evict: true lifts every later rule, the budgets included
  // (kubernetes/autoscaler#6135 made them one rule, after it).
  CaPod safe = bare;
  safe.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"}};
  EXPECT_EQ(first_block({safe}, s), DrainBlock::kNone);
  AutoscaleScenario no_budget = s;
  no_budget.pdbs.push_back(PdbSpec{"default", LabelSelector{}, 0});
  EXPECT_EQ(first_block({safe}, no_budget), DrainBlock::kNone);
  // Budgets are checked pod by pod in the node's order: a pod without a
  // budget left blocks before a later pod that is not replicated.
  EXPECT_EQ(first_block({ok, bare}, no_budget), DrainBlock::kNotEnoughPdb);
  // Without listers (the empty-candidates sorting) no controller is looked up.
  std::vector<const CaPod*> only_missing = {&missing};
  EXPECT_EQ(pods_to_move(only_missing, s, nullptr, false).block, DrainBlock::kNone);
}

TEST(AutoscalerDrain, KubeSystemPodsWithoutBudgetStopBlockingAfterAnHour) {
  AutoscaleScenario s;
  s.controllers = {"ReplicaSet/kube-system/dns"};
  CaPod system = ca(make_pod("dns"), "ReplicaSet", "dns");
  system.pod.ns = "kube-system";
  EXPECT_EQ(first_block({system}, s), DrainBlock::kUnmovableKubeSystemPod);  // age unknown
  s.options.now = 1'800'000'000;
  system.created = *s.options.now - 3600;  // exactly an hour: not yet (time.After)
  EXPECT_EQ(first_block({system}, s), DrainBlock::kUnmovableKubeSystemPod);
  system.created = *s.options.now - 3601;
  EXPECT_EQ(first_block({system}, s), DrainBlock::kNone);
  // Then it is drainable outright, before the annotation rule.
  system.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  EXPECT_EQ(first_block({system}, s), DrainBlock::kNone);
}

// mirror/rule.go, the first rule: utils/pod IsMirrorPod asks only whether the
// kubernetes.io/config.mirror annotation is there (any value), and a skipped
// pod is neither moved nor asked by the blocking rules after it.
TEST(AutoscalerDrain, MirrorPodIsSkippedBeforeEveryBlockingRule) {
  const CaPod mirror = decoded(R"({"metadata": {"name": "etcd", "namespace": "kube-system",
      "annotations": {"kubernetes.io/config.mirror": ""}},
    "spec": {"containers": [{"name": "c"}],
      "volumes": [{"name": "data", "hostPath": {"path": "/var/lib/etcd"}}]}})");
  const DrainResult r = drain({mirror}, AutoscaleScenario{});
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_TRUE(r.to_move.empty());
}

// daemonset/rule.go returns DrainOk before the blocking rules, and
// simulator/drain.go files such a pod under DaemonSetPods, not the pods to
// move: the node's removal takes it along.
TEST(AutoscalerDrain, DaemonSetPodIsDrainedWithTheNodeNotMoved) {
  AutoscaleScenario s;
  s.controllers = {"DaemonSet/kube-system/fluentd"};
  CaPod ds = ca(make_pod("fluentd-x"), "DaemonSet", "fluentd");
  ds.pod.ns = "kube-system";
  ds.local_volumes = {"varlog"};
  ds.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  const DrainResult r = drain({ds}, s);
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_TRUE(r.to_move.empty());
}

// utils/pod IsDaemonSetPod: a DaemonSet controller, or the annotation
// cluster-autoscaler.kubernetes.io/daemonset-pod equal to "true".
TEST(AutoscalerDrain, DaemonSetPodAnnotationMustBeTrue) {
  const CaPod marked = decoded(R"({"metadata": {"name": "agent", "namespace": "default",
      "annotations": {"cluster-autoscaler.kubernetes.io/daemonset-pod": "true"}},
    "spec": {"containers": [{"name": "c"}]}})");
  EXPECT_TRUE(marked.daemon_set);
  EXPECT_EQ(first_block({marked}, AutoscaleScenario{}), DrainBlock::kNone);
  const CaPod unmarked = decoded(R"({"metadata": {"name": "agent", "namespace": "default",
      "annotations": {"cluster-autoscaler.kubernetes.io/daemonset-pod": "false"}},
    "spec": {"containers": [{"name": "c"}]}})");
  EXPECT_FALSE(unmarked.daemon_set);
  EXPECT_EQ(first_block({unmarked}, AutoscaleScenario{}), DrainBlock::kNotReplicated);
}

// replicacount/rule.go: a ReplicationController, Job, ReplicaSet or
// StatefulSet controller, and a DaemonSet pod's DaemonSet, must be found by
// its lister, or the pod blocks with ControllerNotFound.
TEST(AutoscalerDrain, ControllerTheListersDoNotFindBlocks) {
  for (const char* kind :
       {"ReplicationController", "Job", "ReplicaSet", "StatefulSet", "DaemonSet"}) {
    SCOPED_TRACE(kind);
    AutoscaleScenario s;
    const CaPod pod = ca(make_pod("p"), kind, "owner");
    EXPECT_EQ(first_block({pod}, s), DrainBlock::kControllerNotFound);
    s.controllers = {std::string(kind) + "/default/owner"};
    EXPECT_EQ(first_block({pod}, s), DrainBlock::kNone);
    // The lister is asked in the pod's own namespace.
    s.controllers = {std::string(kind) + "/other/owner"};
    EXPECT_EQ(first_block({pod}, s), DrainBlock::kControllerNotFound);
  }
}

// rules.go leaves replicacount out when --skip-nodes-with-custom-controller-pods
// is false, and replicated/rule.go then takes any controller as replicating.
TEST(AutoscalerDrain, WithoutCustomControllerSkippingAnyControllerReplicates) {
  AutoscaleScenario s;
  s.options.skip_nodes_with_custom_controller_pods = false;
  EXPECT_EQ(first_block({ca(make_pod("w"), "DaskWorkerGroup", "g")}, s), DrainBlock::kNone);
  EXPECT_EQ(first_block({ca(make_pod("m"), "ReplicaSet", "gone")}, s), DrainBlock::kNone);
  EXPECT_EQ(first_block({ca(make_pod("bare"))}, s), DrainBlock::kNotReplicated);
}

// replicacount/rule.go looks a ReplicationController up first; any other
// owner of a DaemonSet pod is looked up only when it is a DaemonSet.
TEST(AutoscalerDrain, DaemonSetPodIsLookedUpOnlyUnderADaemonSetOrAnRc) {
  AutoscaleScenario s;
  CaPod rs_owned = ca(make_pod("agent"), "ReplicaSet", "gone");
  rs_owned.daemon_set = true;
  EXPECT_EQ(first_block({rs_owned}, s), DrainBlock::kNone);
  CaPod rc_owned = ca(make_pod("agent"), "ReplicationController", "gone");
  rc_owned.daemon_set = true;
  EXPECT_EQ(first_block({rc_owned}, s), DrainBlock::kControllerNotFound);
}

// replicacount/rule.go looks a StatefulSet or a DaemonSet up only when the
// owner's apiVersion is of the "apps" group (refGroup.Group != "apps" is
// UndefinedOutcome): OpenKruise's Advanced StatefulSet and DaemonSet
// (apps.kruise.io) are never looked up, and replicated/rule.go takes a
// StatefulSet of any group as replicating.
// Looking them up would block both pods with ControllerNotFound; an "apps"
// owner of the same name that is not listed still does.
TEST(AutoscalerDrain, OwnersOfAnotherApiGroupAreNotLookedUp) {
  const CaPod sts = decoded(R"({"metadata": {"name": "web-0", "namespace": "default",
      "ownerReferences": [{"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet",
        "name": "web", "uid": "u1", "controller": true}]},
    "spec": {"containers": [{"name": "c"}]}})");
  const DrainResult r = drain({sts}, AutoscaleScenario{});
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_EQ(r.to_move, (std::vector<size_t>{0}));
  const CaPod ds = decoded(R"({"metadata": {"name": "agent-x", "namespace": "default",
      "ownerReferences": [{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "DaemonSet",
        "name": "agent", "uid": "u2", "controller": true}]},
    "spec": {"containers": [{"name": "c"}]}})");
  EXPECT_EQ(first_block({ds}, AutoscaleScenario{}), DrainBlock::kNone);
  EXPECT_EQ(first_block({ca(make_pod("web-0"), "StatefulSet", "web")}, AutoscaleScenario{}),
            DrainBlock::kControllerNotFound);
  EXPECT_EQ(first_block({ca(make_pod("agent-x"), "DaemonSet", "agent")}, AutoscaleScenario{}),
            DrainBlock::kControllerNotFound);
}

// safetoevict/rule.go: safe-to-evict "true" is DrainOk ahead of every
// blocking rule (not replicated, kube-system, local storage, budgets); the
// value is compared as is (utils/drain HasSafeToEvictAnnotation).
TEST(AutoscalerDrain, SafeToEvictTrueGoesAheadOfTheBlockingRules) {
  AutoscaleScenario s;
  s.pdbs.push_back(PdbSpec{"kube-system", LabelSelector{}, 0});
  CaPod pod = ca(make_pod("scratch"));
  pod.pod.ns = "kube-system";
  pod.local_volumes = {"tmp"};
  pod.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"}};
  const DrainResult r = drain({pod}, s);
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_EQ(r.to_move, (std::vector<size_t>{0}));
  pod.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "True"}};
  EXPECT_EQ(first_block({pod}, s), DrainBlock::kNotReplicated);
}

// rules.go puts replicacount before safetoevict: the annotation does not
// excuse a controller that is gone.
TEST(AutoscalerDrain, SafeToEvictDoesNotExcuseAMissingController) {
  CaPod pod = ca(make_pod("p"), "ReplicaSet", "gone");
  pod.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"}};
  EXPECT_EQ(first_block({pod}, AutoscaleScenario{}), DrainBlock::kControllerNotFound);
}

// terminal/rule.go: a Failed pod (utils/drain IsPodTerminal, whatever its
// restartPolicy) is DrainOk ahead of the blocking rules.
TEST(AutoscalerDrain, FailedPodIsMovedWhateverElseItIs) {
  CaPod pod = ca(make_pod("evicted"));
  pod.pod.ns = "kube-system";
  pod.pod.phase = "Failed";
  pod.local_volumes = {"tmp"};
  const DrainResult r = drain({pod}, AutoscaleScenario{});
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_EQ(r.to_move, (std::vector<size_t>{0}));
}

// oncompletion/rule.go: safe-to-evict "on-completion" is WaitForCompletion,
// ahead of the blocking rules; simulator/drain.go files the pod under
// OnCompletionPods, neither moved nor blocking (the planner then holds the
// node back as BlockedByOnCompletionPod).
// Disabled: the engine has no such outcome (drain.cpp); it blocks this pod as
// NotReplicated, and would move a replicated one.
TEST(AutoscalerDrain, DISABLED_OnCompletionPodNeitherBlocksNorMoves) {
  CaPod pod = ca(make_pod("job-like"));
  pod.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "on-completion"}};
  const DrainResult r = drain({pod}, AutoscaleScenario{});
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_TRUE(r.to_move.empty());
}

// longterminating/rule.go, second in the list: a pod deleted longer ago than
// its grace period (30 s when unset) plus 30 s (utils/drain
// IsPodLongTerminating) is skipped, neither moved nor blocking.
// Not reading the deletionTimestamp would block the first pod as
// NotReplicated. The grace period comes from spec.terminationGracePeriodSeconds.
TEST(AutoscalerDrain, LongTerminatingPodIsSkipped) {
  AutoscaleScenario s;
  s.options.now = 1'767'268'800;  // 2026-01-01T12:00:00Z
  CaPod gone = ca(make_pod("gone"));
  gone.pod.deletion_timestamp = "2026-01-01T11:58:59Z";  // 61 s before
  const DrainResult r = drain({gone}, s);
  EXPECT_EQ(r.block, DrainBlock::kNone);
  EXPECT_TRUE(r.to_move.empty());
  CaPod going = ca(make_pod("going"));
  going.pod.deletion_timestamp = "2026-01-01T11:59:00Z";  // 60 s: not yet (Before)
  EXPECT_EQ(first_block({going}, s), DrainBlock::kNotReplicated);
  CaPod slow = decoded(R"({"metadata": {"name": "slow", "namespace": "default",
      "deletionTimestamp": "2026-01-01T11:58:30Z"},
    "spec": {"terminationGracePeriodSeconds": 60, "containers": [{"name": "c"}]}})");
  EXPECT_EQ(first_block({slow}, s), DrainBlock::kNotReplicated);  // 90 s: not yet
  slow.pod.deletion_timestamp = "2026-01-01T11:58:29Z";           // 91 s
  EXPECT_EQ(first_block({slow}, s), DrainBlock::kNone);
  EXPECT_TRUE(drain({slow}, s).to_move.empty());
  s.options.now.reset();  // no clock: no pod's deletion is old
  EXPECT_EQ(first_block({gone}, s), DrainBlock::kNotReplicated);
}

// replicated/rule.go: replicatedKind is ReplicationController, Job,
// ReplicaSet and StatefulSet; a pod controlled by anything else (a
// Deployment directly, an operator's custom resource) or by nothing blocks.
TEST(AutoscalerDrain, OnlyFourControllerKindsReplicate) {
  AutoscaleScenario s;
  for (const char* kind : {"ReplicationController", "Job", "ReplicaSet", "StatefulSet"}) {
    s.controllers.insert(std::string(kind) + "/default/owner");
    EXPECT_EQ(first_block({ca(make_pod("p"), kind, "owner")}, s), DrainBlock::kNone) << kind;
  }
  EXPECT_EQ(first_block({ca(make_pod("p"), "Deployment", "owner")}, s), DrainBlock::kNotReplicated);
  EXPECT_EQ(first_block({ca(make_pod("p"), "DaskWorkerGroup", "owner")}, s),
            DrainBlock::kNotReplicated);
  EXPECT_EQ(first_block({ca(make_pod("p"))}, s), DrainBlock::kNotReplicated);
}

// system/rule.go: a kube-system pod blocks unless a budget matches it
// (RemainingPdbTracker.MatchingPdbs: the pod's namespace and the selector;
// a budget without a selector selects nothing); rules.go drops the rule when
// --skip-nodes-with-system-pods is false.
TEST(AutoscalerDrain, KubeSystemPodNeedsABudgetOfItsOwnNamespace) {
  AutoscaleScenario s = listed_rs();
  CaPod dns = ca(make_pod("dns"), "ReplicaSet", "rs");
  dns.pod.ns = "kube-system";
  dns.pod.labels = testing::labels({{"k8s-app", "kube-dns"}});
  const LabelSelector selects_dns{testing::labels({{"k8s-app", "kube-dns"}}), {}};
  EXPECT_EQ(first_block({dns}, s), DrainBlock::kUnmovableKubeSystemPod);
  s.pdbs = {PdbSpec{"default", selects_dns, 1}};
  EXPECT_EQ(first_block({dns}, s), DrainBlock::kUnmovableKubeSystemPod);
  s.pdbs = {PdbSpec{"kube-system", std::nullopt, 1}};
  EXPECT_EQ(first_block({dns}, s), DrainBlock::kUnmovableKubeSystemPod);
  s.pdbs = {PdbSpec{"kube-system", selects_dns, 1}};
  EXPECT_EQ(first_block({dns}, s), DrainBlock::kNone);
  s.pdbs.clear();
  s.options.skip_nodes_with_system_pods = false;
  EXPECT_EQ(first_block({dns}, s), DrainBlock::kNone);
}

// notsafetoevict/rule.go: safe-to-evict equal to "false" blocks a pod that
// got past the rules before it; another spelling is no such annotation.
TEST(AutoscalerDrain, SafeToEvictFalseBlocksAsSpelled) {
  const AutoscaleScenario s = listed_rs();
  CaPod pod = ca(make_pod("p"), "ReplicaSet", "rs");
  pod.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  EXPECT_EQ(first_block({pod}, s), DrainBlock::kNotSafeToEvictAnnotation);
  pod.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "False"}};
  EXPECT_EQ(first_block({pod}, s), DrainBlock::kNone);
}

// localstorage/rule.go with utils/drain HasBlockingLocalStorage: a hostPath
// volume or an emptyDir not in memory blocks unless its name is in the
// comma-separated safe-to-evict-local-volumes list (split, not trimmed);
// rules.go drops the rule when --skip-nodes-with-local-storage is false.
TEST(AutoscalerDrain, LocalStorageBlocksUnlessListedOrInMemory) {
  AutoscaleScenario s = listed_rs();
  auto pod = [](std::string_view volumes, std::string_view allowed) {
    std::string annotations;
    if (!allowed.empty()) {
      annotations = R"(, "annotations": {
          "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": ")" +
                    std::string(allowed) + R"("})";
    }
    return decoded(R"({"metadata": {"name": "p", "namespace": "default")" + annotations + R"(,
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
          "uid": "u", "controller": true}]},
      "spec": {"containers": [{"name": "c"}], "volumes": [)" +
                   std::string(volumes) + "]}}");
  };
  const std::string scratch = R"({"name": "scratch", "emptyDir": {}})";
  const std::string logs = R"({"name": "logs", "hostPath": {"path": "/var/log"}})";
  const std::string shm = R"({"name": "shm", "emptyDir": {"medium": "Memory"}})";
  const std::string conf = R"({"name": "conf", "configMap": {"name": "c"}})";
  EXPECT_EQ(first_block({pod(scratch, "")}, s), DrainBlock::kLocalStorageRequested);
  EXPECT_EQ(first_block({pod(logs, "")}, s), DrainBlock::kLocalStorageRequested);
  EXPECT_EQ(first_block({pod(shm + "," + conf, "")}, s), DrainBlock::kNone);
  EXPECT_EQ(first_block({pod(scratch + "," + logs, "scratch,logs")}, s), DrainBlock::kNone);
  EXPECT_EQ(first_block({pod(scratch + "," + logs, "scratch")}, s),
            DrainBlock::kLocalStorageRequested);
  EXPECT_EQ(first_block({pod(scratch + "," + logs, "scratch, logs")}, s),
            DrainBlock::kLocalStorageRequested);
  s.options.skip_nodes_with_local_storage = false;
  EXPECT_EQ(first_block({pod(scratch, "")}, s), DrainBlock::kNone);
}

// pdb/rule.go: any matching budget (same namespace, selector matches; an
// empty selector matches every pod, an absent one none) with fewer than one
// disruption allowed blocks the pod.
TEST(AutoscalerDrain, BudgetWithoutADisruptionLeftBlocks) {
  AutoscaleScenario s = listed_rs();
  CaPod web = ca(make_pod("web"), "ReplicaSet", "rs");
  web.pod.labels = testing::labels({{"app", "web"}});
  const LabelSelector selects_web{testing::labels({{"app", "web"}}), {}};
  s.pdbs = {PdbSpec{"default", selects_web, 0}};
  EXPECT_EQ(first_block({web}, s), DrainBlock::kNotEnoughPdb);
  s.pdbs = {PdbSpec{"default", selects_web, 1}};
  EXPECT_EQ(first_block({web}, s), DrainBlock::kNone);
  s.pdbs = {PdbSpec{"default", selects_web, 1}, PdbSpec{"default", LabelSelector{}, 0}};
  EXPECT_EQ(first_block({web}, s), DrainBlock::kNotEnoughPdb);
  s.pdbs = {PdbSpec{"default", std::nullopt, 0}, PdbSpec{"other", selects_web, 0}};
  EXPECT_EQ(first_block({web}, s), DrainBlock::kNone);
}

// core/scaledown/pdb/basic.go RemovePods: each pod a removable node moves
// takes one disruption from every budget that matches it, so a later
// candidate's pod meets the budget spent.
TEST(AutoscalerDrain, MovedPodsSpendTheBudget) {
  AutoscaleScenario s = listed_rs();
  const LabelSelector selects_web{testing::labels({{"app", "web"}}), {}};
  s.pdbs = {PdbSpec{"default", selects_web, 1}, PdbSpec{"other", selects_web, 1}};
  CaPod first = ca(make_pod("web-1"), "ReplicaSet", "rs");
  first.pod.labels = testing::labels({{"app", "web"}});
  CaPod second = first;
  second.pod.name = "web-2";
  RemainingPdbs remaining = initial_pdbs(s);
  EXPECT_EQ(pods_to_move({&first}, s, &remaining).block, DrainBlock::kNone);
  remove_pods(s, {&first.pod}, remaining);
  EXPECT_EQ(remaining, (RemainingPdbs{0, 1}));
  EXPECT_EQ(pods_to_move({&second}, s, &remaining).block, DrainBlock::kNotEnoughPdb);
}

// simulator/drain.go GetPodsToMove: pods in the node's order, the first
// blocking pod ends the walk and is the one reported.
TEST(AutoscalerDrain, FirstBlockingPodInTheNodesOrderIsReported) {
  const AutoscaleScenario s = listed_rs();
  const CaPod ok = ca(make_pod("ok"), "ReplicaSet", "rs");
  const CaPod bare = ca(make_pod("bare"));
  CaPod pinned = ok;
  pinned.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  const DrainResult r = drain({ok, pinned, bare}, s);
  EXPECT_EQ(r.block, DrainBlock::kNotSafeToEvictAnnotation);
  EXPECT_EQ(r.blocking_pod, 1u);
  EXPECT_TRUE(r.to_move.empty());
}

}  // namespace
}  // namespace tightpack::autoscaler
