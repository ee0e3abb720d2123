//go:build kube130

package main

// cohort.go's TightpackCohort in v1.30's plugin API: Score gets the node's
// name and reads its NodeInfo from the snapshot.

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourcehelper "k8s.io/kubernetes/pkg/api/v1/resource"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type cohort struct {
	handle framework.Handle
}

var _ framework.ScorePlugin = &cohort{}

func newCohort(_ context.Context, _ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &cohort{handle: h}, nil
}

func (*cohort) Name() string { return cohortName }

func (c *cohort) Score(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeName string) (int64, *framework.Status) {
	co := cohortOf(pod)
	if co == "" {
		return 0, nil
	}
	nodeInfo, err := c.handle.SnapshotSharedLister().NodeInfos().Get(nodeName)
	if err != nil {
		return 0, framework.AsStatus(fmt.Errorf("getting node %q from Snapshot: %w", nodeName, err))
	}
	var cpu, memory int64
	for _, pi := range nodeInfo.Pods {
		if cohortOf(pi.Pod) != co {
			continue
		}
		// The requests NodeInfo adds for the pod (types.go, calculateResource).
		r := resourcehelper.PodRequests(pi.Pod, resourcehelper.PodResourcesOptions{
			InPlacePodVerticalScalingEnabled: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling),
		})
		cpu += r.Cpu().MilliValue()
		memory += r.Memory().Value()
	}
	return min(100, max(share(cpu, nodeInfo.Allocatable.MilliCPU), share(memory, nodeInfo.Allocatable.Memory))), nil
}

func (*cohort) ScoreExtensions() framework.ScoreExtensions { return nil }
