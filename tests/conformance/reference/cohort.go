//go:build !kube130

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
)

// TightpackCohort in the plugin API of k8s.io/kube-scheduler/framework
// (cohort_score.go has what every release shares).
type cohort struct{}

var _ fwk.ScorePlugin = cohort{}

func newCohort(_ context.Context, _ runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	return cohort{}, nil
}

func (cohort) Name() string { return cohortName }

func (cohort) Score(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	c := cohortOf(pod)
	if c == "" {
		return 0, nil
	}
	var cpu, memory int64
	for _, pi := range nodeInfo.GetPods() {
		if cohortOf(pi.GetPod()) != c {
			continue
		}
		r := pi.CalculateResource().Resource
		cpu += r.GetMilliCPU()
		memory += r.GetMemory()
	}
	alloc := nodeInfo.GetAllocatable()
	return min(100, max(share(cpu, alloc.GetMilliCPU()), share(memory, alloc.GetMemory()))), nil
}

func (cohort) ScoreExtensions() fwk.ScoreExtensions { return nil }
