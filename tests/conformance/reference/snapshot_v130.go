//go:build kube130

package main

// kube-scheduler v1.30's cache and snapshot, which live in
// pkg/scheduler/internal/cache: Go's internal rule keeps this module from
// importing them, so they are copied here, as far as one scheduling cycle
// after another sees them. Followed: v1.30.14's
// pkg/scheduler/internal/cache/cache.go (AddNode, AddPod, the image states,
// UpdateSnapshot and updateNodeInfoSnapshotList), node_tree.go (the order of
// the node list: zones in order of first appearance, one node of each in
// turn) and snapshot.go (the SharedLister the plugins read). Nodes are never
// removed and pods never updated or deleted here, so those paths are left out.

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilnode "k8s.io/component-helpers/node/topology"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// nodeTree is node_tree.go's.
type nodeTree struct {
	tree     map[string][]string
	zones    []string
	numNodes int
}

func (nt *nodeTree) addNode(n *v1.Node) {
	zone := utilnode.GetZoneKey(n)
	if na, ok := nt.tree[zone]; ok {
		for _, nodeName := range na {
			if nodeName == n.Name {
				return
			}
		}
		nt.tree[zone] = append(na, n.Name)
	} else {
		nt.zones = append(nt.zones, zone)
		nt.tree[zone] = []string{n.Name}
	}
	nt.numNodes++
}

func (nt *nodeTree) list() ([]string, error) {
	if len(nt.zones) == 0 {
		return nil, nil
	}
	nodesList := make([]string, 0, nt.numNodes)
	numExhaustedZones := 0
	nodeIndex := 0
	for len(nodesList) < nt.numNodes {
		if numExhaustedZones >= len(nt.zones) {
			return nodesList, errors.New("all zones exhausted before reaching count of nodes expected")
		}
		for zoneIndex := 0; zoneIndex < len(nt.zones); zoneIndex++ {
			na := nt.tree[nt.zones[zoneIndex]]
			if nodeIndex >= len(na) {
				if nodeIndex == len(na) {
					numExhaustedZones++
				}
				continue
			}
			nodesList = append(nodesList, na[nodeIndex])
		}
		nodeIndex++
	}
	return nodesList, nil
}

// schedulerCache is cache.go's cacheImpl without the assumed pods' expiry,
// the locks and the generation-ordered list (UpdateSnapshot compares every
// node's generation with the snapshot's instead of walking that list, which
// finds the same nodes).
type schedulerCache struct {
	nodes       map[string]*framework.NodeInfo
	nodeTree    *nodeTree
	imageStates map[string]*framework.ImageStateSummary
	podStates   sets.Set[string]
}

func newSchedulerCache() *schedulerCache {
	return &schedulerCache{
		nodes:       map[string]*framework.NodeInfo{},
		nodeTree:    &nodeTree{tree: map[string][]string{}},
		imageStates: map[string]*framework.ImageStateSummary{},
		podStates:   sets.New[string](),
	}
}

func (c *schedulerCache) AddNode(node *v1.Node) {
	n, ok := c.nodes[node.Name]
	if !ok {
		n = framework.NewNodeInfo()
		c.nodes[node.Name] = n
	} else {
		c.removeNodeImageStates(n.Node())
	}
	c.nodeTree.addNode(node)
	c.addNodeImageStates(node, n)
	n.SetNode(node)
}

// addNodeImageStates: an image's size is the one the first node listing it
// reported; its ImageStateSummary is shared by every node that has it, and
// its count of nodes is read when the node is snapshotted.
func (c *schedulerCache) addNodeImageStates(node *v1.Node, nodeInfo *framework.NodeInfo) {
	newSum := make(map[string]*framework.ImageStateSummary)
	for _, image := range node.Status.Images {
		for _, name := range image.Names {
			state, ok := c.imageStates[name]
			if !ok {
				state = &framework.ImageStateSummary{Size: image.SizeBytes, Nodes: sets.New(node.Name)}
				c.imageStates[name] = state
			} else {
				state.Nodes.Insert(node.Name)
			}
			if _, ok := newSum[name]; !ok {
				newSum[name] = state
			}
		}
	}
	nodeInfo.ImageStates = newSum
}

func (c *schedulerCache) removeNodeImageStates(node *v1.Node) {
	if node == nil {
		return
	}
	for _, image := range node.Status.Images {
		for _, name := range image.Names {
			if state, ok := c.imageStates[name]; ok {
				state.Nodes.Delete(node.Name)
				if state.Nodes.Len() == 0 {
					delete(c.imageStates, name)
				}
			}
		}
	}
}

// AddPod: a pod on a node the cache does not know gets a NodeInfo without a
// node, which no snapshot lists, as in cache.go.
func (c *schedulerCache) AddPod(pod *v1.Pod) error {
	key, err := framework.GetPodKey(pod)
	if err != nil {
		return err
	}
	if c.podStates.Has(key) {
		return fmt.Errorf("pod %v(%v/%v) was already in added state", key, pod.Namespace, pod.Name)
	}
	n, ok := c.nodes[pod.Spec.NodeName]
	if !ok {
		n = framework.NewNodeInfo()
		c.nodes[pod.Spec.NodeName] = n
	}
	n.AddPod(pod)
	c.podStates.Insert(key)
	return nil
}

// UpdateSnapshot brings the snapshot up to date as cache.go's does: every
// NodeInfo changed since the last snapshot is cloned into it (in place, so
// that the lists keep their pointers), then the lists are made again in the
// node tree's order.
func (c *schedulerCache) UpdateSnapshot(s *nodeSnapshot) error {
	generation := s.generation
	for _, n := range c.nodes {
		if n.Generation <= s.generation {
			continue
		}
		generation = max(generation, n.Generation)
		if np := n.Node(); np != nil {
			existing, ok := s.nodeInfoMap[np.Name]
			if !ok {
				existing = &framework.NodeInfo{}
				s.nodeInfoMap[np.Name] = existing
			}
			*existing = *n.Snapshot()
		}
	}
	s.generation = generation
	// updateNodeInfoSnapshotList(updateAll: true): the lists that a partial
	// update would keep are the same, in the same order.
	s.nodeInfoList = make([]*framework.NodeInfo, 0, c.nodeTree.numNodes)
	s.havePodsWithAffinityNodeInfoList = make([]*framework.NodeInfo, 0, c.nodeTree.numNodes)
	s.havePodsWithRequiredAntiAffinityNodeInfoList = make([]*framework.NodeInfo, 0, c.nodeTree.numNodes)
	s.usedPVCSet = sets.New[string]()
	names, err := c.nodeTree.list()
	if err != nil {
		return err
	}
	for _, name := range names {
		nodeInfo := s.nodeInfoMap[name]
		if nodeInfo == nil {
			return fmt.Errorf("node %q is in the node tree but not in the snapshot", name)
		}
		s.nodeInfoList = append(s.nodeInfoList, nodeInfo)
		if len(nodeInfo.PodsWithAffinity) > 0 {
			s.havePodsWithAffinityNodeInfoList = append(s.havePodsWithAffinityNodeInfoList, nodeInfo)
		}
		if len(nodeInfo.PodsWithRequiredAntiAffinity) > 0 {
			s.havePodsWithRequiredAntiAffinityNodeInfoList = append(s.havePodsWithRequiredAntiAffinityNodeInfoList, nodeInfo)
		}
		for key := range nodeInfo.PVCRefCounts {
			s.usedPVCSet.Insert(key)
		}
	}
	return nil
}

// nodeSnapshot is snapshot.go's Snapshot: what the plugins list and get
// during one scheduling cycle.
type nodeSnapshot struct {
	nodeInfoMap                                  map[string]*framework.NodeInfo
	nodeInfoList                                 []*framework.NodeInfo
	havePodsWithAffinityNodeInfoList             []*framework.NodeInfo
	havePodsWithRequiredAntiAffinityNodeInfoList []*framework.NodeInfo
	usedPVCSet                                   sets.Set[string]
	generation                                   int64
}

var _ framework.SharedLister = &nodeSnapshot{}

func newEmptySnapshot() *nodeSnapshot {
	return &nodeSnapshot{nodeInfoMap: map[string]*framework.NodeInfo{}, usedPVCSet: sets.New[string]()}
}

func (s *nodeSnapshot) NodeInfos() framework.NodeInfoLister       { return s }
func (s *nodeSnapshot) StorageInfos() framework.StorageInfoLister { return s }
func (s *nodeSnapshot) NumNodes() int                             { return len(s.nodeInfoList) }
func (s *nodeSnapshot) List() ([]*framework.NodeInfo, error)      { return s.nodeInfoList, nil }

func (s *nodeSnapshot) HavePodsWithAffinityList() ([]*framework.NodeInfo, error) {
	return s.havePodsWithAffinityNodeInfoList, nil
}

func (s *nodeSnapshot) HavePodsWithRequiredAntiAffinityList() ([]*framework.NodeInfo, error) {
	return s.havePodsWithRequiredAntiAffinityNodeInfoList, nil
}

func (s *nodeSnapshot) Get(nodeName string) (*framework.NodeInfo, error) {
	if v, ok := s.nodeInfoMap[nodeName]; ok && v.Node() != nil {
		return v, nil
	}
	return nil, fmt.Errorf("nodeinfo not found for node name %q", nodeName)
}

func (s *nodeSnapshot) IsPVCUsedByPods(key string) bool { return s.usedPVCSet.Has(key) }

// swappableSnapshot lets one framework decide scenario after scenario: the
// framework keeps this lister, and each scenario puts its own snapshot in.
type swappableSnapshot struct {
	*nodeSnapshot
}

func (s *swappableSnapshot) NodeInfos() framework.NodeInfoLister       { return s }
func (s *swappableSnapshot) StorageInfos() framework.StorageInfoLister { return s }
