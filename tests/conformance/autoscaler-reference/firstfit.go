package main

// --compat first-fit: not a cluster-autoscaler 1.26 behaviour but the
// engine's model of one CA behaviour, so that the differential judge can name
// the disagreements it explains. CA places a pod "on any node" round-robin:
// from the node after the last one that took a pod
// (clustersnapshot.NewLastIndexOrderMapping, one per PluginRunner, shared by
// filter-out-schedulable, the estimator and scale-down's findPlaceFor), over
// its snapshot's node list, whose order comes from Go maps. tightpack packs
// first fit in the scenario's order. With this switch every such placement
// walks the nodes first fit in that order instead, through CA's own
// priority ordering (clustersnapshot.NewPriorityNodeOrderMapping):
// the scenario's nodes in their order, then each group's upcoming nodes and
// the estimator's new nodes, group by group in the scenario's order and by
// their number.

import (
	"strconv"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
)

func init() {
	compatSwitches["first-fit"] = compatSwitch{
		what:   "pods go to the first node that fits, in the scenario's node order (tightpack's model; CA walks round-robin from the last match)",
		not126: true,
	}
}

type firstFitSnapshot struct {
	clustersnapshot.ClusterSnapshot
	rank map[string]int
	// group name prefixes of nodes made from templates, in scenario order
	prefixes []string
}

func newFirstFitSnapshot(inner clustersnapshot.ClusterSnapshot, s *scenario) *firstFitSnapshot {
	f := &firstFitSnapshot{ClusterSnapshot: inner, rank: map[string]int{}}
	for i, n := range s.Nodes {
		f.rank[n.Name] = i
	}
	for _, g := range s.Groups {
		p := "template-node-for-" + g.Name + "-"
		if g.Template != nil && g.Template.Name != "" {
			p = g.Template.Name + "-"
		}
		f.prefixes = append(f.prefixes, p)
	}
	return f
}

// key orders nodes: scenario nodes by index; then nodes made from a group's
// template, by group and by the number that ends their name (upcoming-N, e-N).
func (f *firstFitSnapshot) key(name string) (int, int, int, string) {
	if r, ok := f.rank[name]; ok {
		return 0, r, 0, ""
	}
	group, best := len(f.prefixes), 0
	for i, p := range f.prefixes {
		if strings.HasPrefix(name, p) && len(p) > best {
			group, best = i, len(p)
		}
	}
	n := 0
	if i := strings.LastIndex(name, "-"); i >= 0 {
		n, _ = strconv.Atoi(name[i+1:])
	}
	return 1, group, n, name
}

func (f *firstFitSnapshot) less(a, b *framework.NodeInfo) bool {
	a0, a1, a2, a3 := f.key(a.Node().Name)
	b0, b1, b2, b3 := f.key(b.Node().Name)
	if a0 != b0 {
		return a0 < b0
	}
	if a1 != b1 {
		return a1 < b1
	}
	if a2 != b2 {
		return a2 < b2
	}
	return a3 < b3
}

func (f *firstFitSnapshot) SchedulePodOnAnyNodeMatching(pod *apiv1.Pod, opts clustersnapshot.SchedulingOptions) (string, clustersnapshot.SchedulingError) {
	if opts.NodeOrdering == nil {
		opts.NodeOrdering = clustersnapshot.NewPriorityNodeOrderMapping(f.less)
	}
	return f.ClusterSnapshot.SchedulePodOnAnyNodeMatching(pod, opts)
}

// clusterSnapshot wraps CA's snapshot when the switch is on.
func (c compatSet) clusterSnapshot(inner clustersnapshot.ClusterSnapshot, s *scenario) clustersnapshot.ClusterSnapshot {
	if !c["first-fit"] {
		return inner
	}
	return newFirstFitSnapshot(inner, s)
}
