package main

// --compat ordered: cluster-autoscaler's own round-robin over one fixed node
// order. CA places a pod "on any node" from the node after its last match
// (clustersnapshot.NewLastIndexOrderMapping(1): one per plugin runner, so one
// for filter-out-schedulable, every estimation fork and scale-down's
// findPlaceFor, loop after loop), over its snapshot's node list. That list
// comes from Go maps, and the delta store builds it again whenever a node
// leaves, so with more than two candidate nodes CA's answer can change from
// run to run. This switch keeps everything but the order: the list is sorted
// (the scenario's nodes in their order, then the upcoming nodes by group and
// number, then the estimator's new nodes by number: a fork's added nodes come
// after its base's in CA's list too), and the last match is remembered as its
// place in that list, as CA remembers its index in its own. tightpack models
// CA with this order; the differential judge names a disagreement this
// switch explains "node-order".

import (
	"sort"
	"strconv"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
)

func init() {
	compatSwitches["ordered"] = compatSwitch{
		what:   "round-robin from the last match as CA does, over the scenario's node order instead of Go-map order (tightpack's model)",
		not126: true,
	}
}

type nodeOrder struct {
	rank     map[string]int
	prefixes []string // per group, in scenario order
}

func newNodeOrder(s *scenario) *nodeOrder {
	o := &nodeOrder{rank: map[string]int{}}
	for i, n := range s.Nodes {
		o.rank[n.Name] = i
	}
	// SanitizedTemplateNodeInfoFromNodeInfo names every template
	// template-node-for-<group>-<random>, whatever the group's template is called.
	for _, g := range s.Groups {
		o.prefixes = append(o.prefixes, "template-node-for-"+g.Name+"-")
	}
	return o
}

// key: scenario nodes by index; upcoming nodes (…-upcoming-N) by group and
// number; the estimator's new nodes (…-e-N) by group and number.
func (o *nodeOrder) key(name string) (int, int, int, string) {
	if r, ok := o.rank[name]; ok {
		return 0, r, 0, ""
	}
	group, best := len(o.prefixes), 0
	for i, p := range o.prefixes {
		if strings.HasPrefix(name, p) && len(p) > best {
			group, best = i, len(p)
		}
	}
	n := 0
	if i := strings.LastIndex(name, "-"); i >= 0 {
		n, _ = strconv.Atoi(name[i+1:])
	}
	if strings.Contains(name, "-upcoming-") {
		return 1, group, n, name
	}
	return 2, group, n, name
}

func (o *nodeOrder) less(a, b *framework.NodeInfo) bool {
	a0, a1, a2, a3 := o.key(a.Node().Name)
	b0, b1, b2, b3 := o.key(b.Node().Name)
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

// orderedLastMatch is NewLastIndexOrderMapping(1) over the sorted list.
type orderedLastMatch struct {
	less  func(a, b *framework.NodeInfo) bool
	last  int   // place in `order` of the last match
	order []int // collection indices in sorted order
}

func (m *orderedLastMatch) Reset(collection []*framework.NodeInfo) {
	m.order = make([]int, len(collection))
	for i := range collection {
		m.order[i] = i
	}
	sort.SliceStable(m.order, func(i, j int) bool { return m.less(collection[m.order[i]], collection[m.order[j]]) })
}

func (m *orderedLastMatch) At(i int) int {
	if len(m.order) == 0 {
		return -1
	}
	return m.order[(i+1+m.last)%len(m.order)]
}

func (m *orderedLastMatch) MarkMatch(index int) {
	for p, k := range m.order {
		if k == index {
			m.last = p
			return
		}
	}
}

// orderedSnapshot hands every "any node" placement the one shared mapping,
// where CA's plugin runner would use its own.
type orderedSnapshot struct {
	clustersnapshot.ClusterSnapshot
	mapping *orderedLastMatch
}

func (o *orderedSnapshot) SchedulePodOnAnyNodeMatching(pod *apiv1.Pod, opts clustersnapshot.SchedulingOptions) (string, clustersnapshot.SchedulingError) {
	if opts.NodeOrdering == nil {
		opts.NodeOrdering = o.mapping
	}
	return o.ClusterSnapshot.SchedulePodOnAnyNodeMatching(pod, opts)
}

// clusterSnapshot wraps CA's snapshot when the switch is on.
func (c compatSet) clusterSnapshot(inner clustersnapshot.ClusterSnapshot, s *scenario) clustersnapshot.ClusterSnapshot {
	if !c["ordered"] {
		return inner
	}
	return &orderedSnapshot{ClusterSnapshot: inner, mapping: &orderedLastMatch{less: newNodeOrder(s).less}}
}
