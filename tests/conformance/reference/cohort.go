//go:build !kube130

package main

import (
	"context"
	"math/bits"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
)

// TightpackCohort is not a kube-scheduler plugin: it is tightpack's own score
// (docs/packing.md, core/src/plugins/cohort.cpp), written here from its
// specification as an out-of-tree plugin so that the tightpack profile
// (config/tightpack.yaml) runs in the real framework with every in-tree
// plugin around it. A node scores the share of its allocatable cpu or memory
// (the larger, whole percent, at most 100) requested by the pods of the
// incoming pod's cohort; 0 everywhere for a pod without a cohort label.
const cohortName = "TightpackCohort"

var cohortLabels = []string{"dask.org/cluster-name", "gateway.dask.org/cluster", "tightpack.io/cohort"}

type cohort struct{}

var _ fwk.ScorePlugin = cohort{}

func newCohort(_ context.Context, _ runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	return cohort{}, nil
}

func (cohort) Name() string { return cohortName }

func cohortOf(p *v1.Pod) string {
	for _, k := range cohortLabels {
		if v, ok := p.Labels[k]; ok {
			return k + "=" + v
		}
	}
	return ""
}

func share(used, alloc int64) int64 {
	if alloc <= 0 || used <= 0 {
		return 0
	}
	if used >= alloc {
		return 100
	}
	hi, lo := bits.Mul64(uint64(used), 100)
	q, _ := bits.Div64(hi, lo, uint64(alloc))
	return int64(q)
}

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
