//go:build kube135

package main

// release_v137.go's functions for kube-scheduler v1.35.x, the minor release
// the next zero-to-jupyterhub pins (v1.35.7; the module proxy serves v1.35.4).

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// disableEviction: v1.35's evaluator evicts through its own PreemptPod.
func disableEviction(dp *defaultpreemption.DefaultPreemption) {
	if dp.Evaluator != nil {
		dp.Evaluator.PreemptPod = func(context.Context, preemption.Candidate, *v1.Pod, *v1.Pod, string) error {
			return nil
		}
	}
}

func setDeviceTaintInformers(opts *resourceslicetracker.Options, factory informers.SharedInformerFactory) {
	opts.TaintInformer = factory.Resource().V1alpha3().DeviceTaintRules()
	opts.ClassInformer = factory.Resource().V1().DeviceClasses()
}

func releaseFrameworkOptions(*swappableSnapshot) []frameworkruntime.Option { return nil }

// newSchedulerCache: as v1.35's scheduler.New makes it (durationToExpireAssumedPod 0).
func newSchedulerCache(ctx context.Context) internalcache.Cache {
	return internalcache.New(ctx, time.Duration(0), nil)
}

// draNoClaims: v1.35 words it (kubernetes#140222 dropped the text in v1.37).
func draNoClaims() *fwk.Status {
	return fwk.NewStatus(fwk.Unschedulable, "no new claims to deallocate")
}
