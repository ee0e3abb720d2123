package main

// The scenario's objects as cluster-autoscaler reads them: the client-go
// listers its informers would give (kube_util.NewListerRegistry), over
// indexers filled once. Nodes and pods are listed in the scenario's order, so
// that a run does not depend on the order of a Go map where the informer's
// store would (cluster-autoscaler's own maps still vary; see --repeat).

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apiv1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kube_util "k8s.io/autoscaler/cluster-autoscaler/utils/kubernetes"
	v1appslister "k8s.io/client-go/listers/apps/v1"
	v1batchlister "k8s.io/client-go/listers/batch/v1"
	v1lister "k8s.io/client-go/listers/core/v1"
	v1policylister "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
)

func newIndexer(objs ...runtime.Object) cache.Indexer {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, o := range objs {
		idx.Add(o)
	}
	return idx
}

// orderedNodeLister lists nodes in the scenario's order.
type orderedNodeLister struct {
	v1lister.NodeLister
	nodes []*apiv1.Node
}

func (l *orderedNodeLister) List(selector labels.Selector) ([]*apiv1.Node, error) {
	out := make([]*apiv1.Node, 0, len(l.nodes))
	for _, n := range l.nodes {
		if selector.Matches(labels.Set(n.Labels)) {
			out = append(out, n)
		}
	}
	return out, nil
}

// orderedPodLister lists pods in the scenario's order: bound pods, then the
// pending ones.
type orderedPodLister struct {
	v1lister.PodLister
	pods []*apiv1.Pod
}

func (l *orderedPodLister) List(selector labels.Selector) ([]*apiv1.Pod, error) {
	out := make([]*apiv1.Pod, 0, len(l.pods))
	for _, p := range l.pods {
		if selector.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out, nil
}

func listerRegistry(nodes []*apiv1.Node, pods []*apiv1.Pod, s *scenario) kube_util.ListerRegistry {
	nodeObjs := make([]runtime.Object, len(nodes))
	for i, n := range nodes {
		nodeObjs[i] = n
	}
	podObjs := make([]runtime.Object, len(pods))
	for i, p := range pods {
		podObjs[i] = p
	}
	nl := &orderedNodeLister{NodeLister: v1lister.NewNodeLister(newIndexer(nodeObjs...)), nodes: nodes}
	pl := &orderedPodLister{PodLister: v1lister.NewPodLister(newIndexer(podObjs...)), pods: pods}
	var pdbs, dss, rcs, jobs, rss, sss []runtime.Object
	for _, o := range s.PDBs {
		pdbs = append(pdbs, o)
	}
	for _, o := range s.DaemonSets {
		dss = append(dss, o)
	}
	for _, o := range s.ReplicationControllers {
		rcs = append(rcs, o)
	}
	for _, o := range s.Jobs {
		jobs = append(jobs, o)
	}
	for _, o := range s.ReplicaSets {
		rss = append(rss, o)
	}
	for _, o := range s.StatefulSets {
		sss = append(sss, o)
	}
	return kube_util.NewListerRegistry(
		kube_util.NewAllNodeLister(nl),
		kube_util.NewReadyNodeLister(nl),
		kube_util.NewAllPodLister(pl),
		kube_util.NewPodDisruptionBudgetLister(v1policylister.NewPodDisruptionBudgetLister(newIndexer(pdbs...))),
		v1appslister.NewDaemonSetLister(newIndexer(dss...)),
		v1lister.NewReplicationControllerLister(newIndexer(rcs...)),
		v1batchlister.NewJobLister(newIndexer(jobs...)),
		v1appslister.NewReplicaSetLister(newIndexer(rss...)),
		v1appslister.NewStatefulSetLister(newIndexer(sss...)),
	)
}

// configMapLister serves the priority expander's ConfigMap
// (cluster-autoscaler-priority-expander in the config namespace).
type configMapLister struct{ cm *apiv1.ConfigMap }

func (l configMapLister) List(labels.Selector) ([]*apiv1.ConfigMap, error) {
	if l.cm == nil {
		return nil, nil
	}
	return []*apiv1.ConfigMap{l.cm}, nil
}

func (l configMapLister) Get(name string) (*apiv1.ConfigMap, error) {
	if l.cm == nil || l.cm.Name != name {
		return nil, errors.NewNotFound(apiv1.Resource("configmaps"), name)
	}
	return l.cm, nil
}

var (
	_ v1lister.ConfigMapNamespaceLister = configMapLister{}
	_                                   = appsv1.DaemonSet{}
	_                                   = batchv1.Job{}
	_                                   = policyv1.PodDisruptionBudget{}
)
