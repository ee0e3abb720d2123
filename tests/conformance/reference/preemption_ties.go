package main

import (
	"context"
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
)

// deterministicTies is DefaultPreemption with pickOneNodeForPreemption's
// criteria made repeatable. Upstream, two things there are left to chance:
// candidates that tie on every criterion are taken in Go's map iteration
// order (random), and a victim without status.startTime counts as starting
// time.Now() at each call, so of two such nodes the one scored later looks
// younger. The corpus settles the first as it settles `top`, by the smallest
// name, and tightpack does the same (core/src/framework/preemption.cpp); a pod that has
// not started counts as starting last. The five criteria are upstream's own
// (pkg/scheduler/framework/preemption, pickOneNodeForPreemption), in its order;
// only the start-time reading and the final name order are this harness's.
// Returning them from OrderedScoreFuncs is the extension point upstream gives
// plugins for this.
type deterministicTies struct {
	*defaultpreemption.DefaultPreemption
}

func (d *deterministicTies) OrderedScoreFuncs(_ context.Context, victims map[string]*extenderv1.Victims) []func(node string) int64 {
	names := make([]string, 0, len(victims))
	for n := range victims {
		names = append(names, n)
	}
	sort.Strings(names)
	rank := make(map[string]int64, len(names))
	for i, n := range names {
		rank[n] = int64(i)
	}
	return []func(string) int64{
		func(n string) int64 { return -victims[n].NumPDBViolations },
		func(n string) int64 { return -int64(corev1helpers.PodPriority(victims[n].Pods[0])) },
		func(n string) int64 {
			var sum int64
			for _, p := range victims[n].Pods {
				sum += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
			}
			return -sum
		},
		func(n string) int64 { return -int64(len(victims[n].Pods)) },
		func(n string) int64 { return earliestStart(victims[n].Pods) },
		func(n string) int64 { return -rank[n] },
	}
}

// GetEarliestPodStartTime with a pod that has not started counting as the
// latest possible start.
func earliestStart(pods []*v1.Pod) int64 {
	start := func(p *v1.Pod) int64 {
		if p.Status.StartTime == nil {
			return math.MaxInt64
		}
		return p.Status.StartTime.UnixNano()
	}
	earliest, top := start(pods[0]), corev1helpers.PodPriority(pods[0])
	for _, p := range pods {
		switch prio := corev1helpers.PodPriority(p); {
		case prio == top:
			earliest = min(earliest, start(p))
		case prio > top:
			top, earliest = prio, start(p)
		}
	}
	return earliest
}
