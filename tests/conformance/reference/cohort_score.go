package main

// TightpackCohort is not a kube-scheduler plugin: it is tightpack's own score
// (docs/packing.md, core/src/plugins/cohort.cpp), written here from its
// specification as an out-of-tree plugin so that the tightpack profile
// (config/tightpack.yaml) runs in the real framework with every in-tree
// plugin around it. A node scores the share of its allocatable cpu or memory
// (the larger, whole percent, at most 100) requested by the pods of the
// incoming pod's cohort; 0 everywhere for a pod without a cohort label.
// This file is the part every release shares; cohort.go and cohort_v130.go
// fit it to each release's plugin API.

import (
	"math/bits"

	v1 "k8s.io/api/core/v1"
)

const cohortName = "TightpackCohort"

var cohortLabels = []string{"dask.org/cluster-name", "gateway.dask.org/cluster", "tightpack.io/cohort"}

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
