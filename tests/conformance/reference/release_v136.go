//go:build kube136

package main

// release_v137.go's functions for kube-scheduler v1.36.x.

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

func noEviction(context.Context, preemption.Candidate, preemption.ExecutorPreemptor, *v1.Pod, string) error {
	return nil
}

func setDeviceTaintInformers(opts *resourceslicetracker.Options, factory informers.SharedInformerFactory) {
	opts.TaintInformer = factory.Resource().V1beta2().DeviceTaintRules()
	opts.ClassInformer = factory.Resource().V1().DeviceClasses()
}

func releaseFrameworkOptions(*swappableSnapshot) []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap())}
}

func newSchedulerCache(ctx context.Context) internalcache.Cache {
	return internalcache.New(ctx, nil, utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload))
}

// draNoClaims: v1.36 words it (kubernetes#140222 dropped the text in v1.37).
func draNoClaims() *fwk.Status {
	return fwk.NewStatus(fwk.Unschedulable, "no new claims to deallocate")
}

func disableEviction(dp *defaultpreemption.DefaultPreemption) {
	if dp.Executor != nil {
		dp.Executor.PreemptPod = noEviction
	}
}
