//go:build !kube136 && !kube135 && !kube130

package main

// The few places where kube-scheduler's internal API changed between the
// pinned releases: this file for v1.37.2 (go.mod), release_v136.go for
// v1.36.3 (build.sh --release v1.36.3, tag kube136), release_v135.go for
// v1.35.4 (tag kube135).

import (
	"context"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// noEviction replaces DefaultPreemption's API calls: no victim is evicted.
func noEviction(context.Context, preemption.Candidate, preemption.ExecutorPreemptor, *v1.Pod, string) (bool, error) {
	return false, nil
}

func setDeviceTaintInformers(opts *resourceslicetracker.Options, factory informers.SharedInformerFactory) {
	opts.TaintInformer = factory.Resource().V1().DeviceTaintRules()
}

func releaseFrameworkOptions(snap *swappableSnapshot) []frameworkruntime.Option {
	return []frameworkruntime.Option{
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithMutableSnapshotLister(snap),
	}
}

func newSchedulerCache(ctx context.Context) internalcache.Cache {
	return internalcache.New(ctx, nil,
		utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload),
		utilfeature.DefaultFeatureGate.Enabled(features.CompositePodGroup))
}

// draNoClaims: DynamicResources' PostFilter for a pod without claims.
func draNoClaims() *fwk.Status { return fwk.NewStatus(fwk.Unschedulable) }

// disableEviction: DefaultPreemption's executor evicts no victim.
func disableEviction(dp *defaultpreemption.DefaultPreemption) {
	if dp.Executor != nil {
		dp.Executor.PreemptPod = noEviction
	}
}
