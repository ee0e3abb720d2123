package main

// The scenario (the shared corpus format) and the result, the same for every
// release the reference is built against.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install" // storage.k8s.io/v1 defaulting (StorageClass volumeBindingMode, CSIDriver)
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// ---- output, in the corpus result format ----

type profileOut struct {
	Name          string           `json:"name"`
	SchedulerName string           `json:"schedulerName"`
	FilterPlugins []string         `json:"filterPlugins"`
	ScorePlugins  []string         `json:"scorePlugins"`
	ScoreWeights  map[string]int32 `json:"scoreWeights"`
	PostFilter    []string         `json:"postFilterPlugins"`
	Percentage    int32            `json:"percentageOfNodesToScore"`
	KubeScheduler string           `json:"kubeScheduler"`
}

type podResult struct {
	Pod                  string                      `json:"pod"`
	Filter               map[string]any              `json:"filter,omitempty"`
	FilterPlugin         map[string]string           `json:"filterPlugin,omitempty"`
	Scores               map[string]map[string]int64 `json:"scores,omitempty"`
	Feasible             int                         `json:"feasible"`
	Scored               bool                        `json:"scored"`
	Top                  []string                    `json:"top"`
	Chosen               *string                     `json:"chosen"`
	Message              string                      `json:"message,omitempty"`
	UnschedulablePlugins []string                    `json:"unschedulablePlugins,omitempty"`
	Error                string                      `json:"error,omitempty"`
}

type scenarioResult struct {
	Profile *profileOut `json:"profile,omitempty"`
	// --compat: the switches that changed something in this scenario.
	Compat  []string     `json:"compat,omitempty"`
	Results []*podResult `json:"results,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// ---- scenario decoding ----

type scenarioIn struct {
	Profile  json.RawMessage   `json:"profile"`
	Nodes    []json.RawMessage `json:"nodes"`
	Pods     []json.RawMessage `json:"pods"`
	Incoming []json.RawMessage `json:"incoming"`
	// The cluster objects beyond nodes and pods (../shared/corpus/README.md).
	Namespaces             []json.RawMessage `json:"namespaces"`
	Services               []json.RawMessage `json:"services"`
	ReplicaSets            []json.RawMessage `json:"replicaSets"`
	StatefulSets           []json.RawMessage `json:"statefulSets"`
	ReplicationControllers []json.RawMessage `json:"replicationControllers"`
	PersistentVolumeClaims []json.RawMessage `json:"persistentVolumeClaims"`
	PersistentVolumes      []json.RawMessage `json:"persistentVolumes"`
	StorageClasses         []json.RawMessage `json:"storageClasses"`
	CSINodes               []json.RawMessage `json:"csiNodes"`
	CSIDrivers             []json.RawMessage `json:"csiDrivers"`
	CSIStorageCapacities   []json.RawMessage `json:"csiStorageCapacities"`
	PodDisruptionBudgets   []json.RawMessage `json:"podDisruptionBudgets"`
}

// scenarioKeys are the keys a scenario may have; tightpack replay refuses
// any other, and so does the reference, so that a misspelt key is an error
// on both sides rather than objects quietly left out of one.
var scenarioKeys = map[string]bool{
	"profile": true, "nodes": true, "pods": true, "incoming": true,
	"namespaces": true, "services": true, "replicaSets": true, "statefulSets": true,
	"replicationControllers": true, "persistentVolumeClaims": true, "persistentVolumes": true,
	"storageClasses": true, "csiNodes": true, "csiDrivers": true, "csiStorageCapacities": true,
	"podDisruptionBudgets": true,
}

type decoded struct {
	nodes    []*v1.Node
	pods     []*v1.Pod
	incoming []*v1.Pod
	// What the plugins' listers hold, by informer.
	namespaces             []any
	services               []any
	replicaSets            []any
	statefulSets           []any
	replicationControllers []any
	// VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits.
	persistentVolumeClaims []any
	persistentVolumes      []any
	storageClasses         []any
	csiNodes               []any
	csiDrivers             []any
	csiStorageCapacities   []any
}

func decodeScenario(data []byte) (*scenarioIn, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	body := data
	bare := true
	if inner, ok := top["scenario"]; ok {
		body = inner
		bare = false
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	for k := range keys {
		if !scenarioKeys[k] && !(bare && (k == "expected" || k == "meta")) {
			return nil, fmt.Errorf("scenario: unknown key %q", k)
		}
	}
	var s scenarioIn
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return &s, nil
}

// API defaulting, as the API server applies it on create (status.allocatable
// from capacity, container requests from limits, ...). Admission is not run.
func decodeObjects(s *scenarioIn) (*decoded, error) {
	d := &decoded{}
	uid := 0
	newUID := func() types.UID {
		uid++
		return types.UID(fmt.Sprintf("uid-%d", uid))
	}
	// A pod keeps the uid the scenario gives it (a generic ephemeral
	// volume's claim names its pod's uid in its controller reference); the
	// counter moves all the same, so the other pods' uids stay what they were.
	podUID := func(p *v1.Pod) {
		if u := newUID(); p.UID == "" {
			p.UID = u
		}
	}
	for i, raw := range s.Nodes {
		n := &v1.Node{}
		if err := utiljson.Unmarshal(raw, n); err != nil {
			return nil, fmt.Errorf("nodes[%d]: %w", i, err)
		}
		legacyscheme.Scheme.Default(n)
		if n.UID == "" {
			n.UID = newUID()
		}
		d.nodes = append(d.nodes, n)
	}
	decodePod := func(raw json.RawMessage, path string) (*v1.Pod, int, error) {
		p := &v1.Pod{}
		if err := utiljson.Unmarshal(raw, p); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		var extra struct {
			Replicas *int `json:"replicas"`
		}
		json.Unmarshal(raw, &extra)
		legacyscheme.Scheme.Default(p)
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		replicas := -1
		if extra.Replicas != nil {
			replicas = *extra.Replicas
		}
		return p, replicas, nil
	}
	for i, raw := range s.Pods {
		p, _, err := decodePod(raw, fmt.Sprintf("pods[%d]", i))
		if err != nil {
			return nil, err
		}
		// The scheduler's informer does not see terminated pods.
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		podUID(p)
		d.pods = append(d.pods, p)
	}
	if len(s.PodDisruptionBudgets) > 0 {
		return nil, fmt.Errorf("podDisruptionBudgets: not fed to the framework yet")
	}
	// uid: whether a missing uid is made up. PVCs and PVs keep what the
	// scenario gives, empty if absent: VolumeBinding compares a PV's
	// claimRef.uid with its claim's, and an empty claimRef.uid matches any
	// claim of that name. Nothing reads the other storage objects' uids.
	objects := []struct {
		key        string
		raw        []json.RawMessage
		into       *[]any
		namespaced bool
		uid        bool
		make       func() runtime.Object
	}{
		{"namespaces", s.Namespaces, &d.namespaces, false, true, func() runtime.Object { return &v1.Namespace{} }},
		{"services", s.Services, &d.services, true, true, func() runtime.Object { return &v1.Service{} }},
		{"replicaSets", s.ReplicaSets, &d.replicaSets, true, true, func() runtime.Object { return &appsv1.ReplicaSet{} }},
		{"statefulSets", s.StatefulSets, &d.statefulSets, true, true, func() runtime.Object { return &appsv1.StatefulSet{} }},
		{"replicationControllers", s.ReplicationControllers, &d.replicationControllers, true, true,
			func() runtime.Object { return &v1.ReplicationController{} }},
		{"persistentVolumeClaims", s.PersistentVolumeClaims, &d.persistentVolumeClaims, true, false,
			func() runtime.Object { return &v1.PersistentVolumeClaim{} }},
		{"persistentVolumes", s.PersistentVolumes, &d.persistentVolumes, false, false,
			func() runtime.Object { return &v1.PersistentVolume{} }},
		{"storageClasses", s.StorageClasses, &d.storageClasses, false, false,
			func() runtime.Object { return &storagev1.StorageClass{} }},
		{"csiNodes", s.CSINodes, &d.csiNodes, false, false, func() runtime.Object { return &storagev1.CSINode{} }},
		{"csiDrivers", s.CSIDrivers, &d.csiDrivers, false, false, func() runtime.Object { return &storagev1.CSIDriver{} }},
		{"csiStorageCapacities", s.CSIStorageCapacities, &d.csiStorageCapacities, true, false,
			func() runtime.Object { return &storagev1.CSIStorageCapacity{} }},
	}
	for _, o := range objects {
		for i, raw := range o.raw {
			obj := o.make()
			if err := utiljson.Unmarshal(raw, obj); err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", o.key, i, err)
			}
			legacyscheme.Scheme.Default(obj)
			if m, ok := obj.(metav1.Object); ok {
				if m.GetNamespace() == "" && o.namespaced {
					m.SetNamespace("default")
				}
				if m.GetUID() == "" && o.uid {
					m.SetUID(newUID())
				}
			}
			*o.into = append(*o.into, obj)
		}
	}
	for i, raw := range s.Incoming {
		p, replicas, err := decodePod(raw, fmt.Sprintf("incoming[%d]", i))
		if err != nil {
			return nil, err
		}
		if replicas < 0 {
			podUID(p)
			d.incoming = append(d.incoming, p)
			continue
		}
		for r := 0; r < replicas; r++ {
			c := p.DeepCopy()
			c.Name = fmt.Sprintf("%s-%d", p.Name, r)
			c.UID = newUID()
			d.incoming = append(d.incoming, c)
		}
	}
	addUsedNamespaces(d)
	return d, nil
}

// addUsedNamespaces gives the namespace lister, besides the scenario's
// namespaces, every namespace a pod is in (../shared/corpus/README.md): the
// API server has it (no pod can be created in a namespace that does not
// exist) with the label defaulting puts on every namespace,
// kubernetes.io/metadata.name. InterPodAffinity lists namespaces for a
// term's namespaceSelector and reads the incoming pod's namespace labels.
func addUsedNamespaces(d *decoded) {
	listed := map[string]bool{}
	for _, o := range d.namespaces {
		listed[o.(*v1.Namespace).Name] = true
	}
	for _, list := range [][]*v1.Pod{d.pods, d.incoming} {
		for _, p := range list {
			if listed[p.Namespace] {
				continue
			}
			listed[p.Namespace] = true
			ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace, UID: types.UID("uid-namespace-" + p.Namespace)}}
			legacyscheme.Scheme.Default(ns)
			d.namespaces = append(d.namespaces, ns)
		}
	}
}

// MarshalJSON: a pod the scheduler failed on (an Error status) is reported
// as {"pod", "error"}, as `tightpack replay` reports it.
func (p *podResult) MarshalJSON() ([]byte, error) {
	if p.Error != "" {
		return json.Marshal(map[string]string{"pod": p.Pod, "error": p.Error})
	}
	type plain podResult
	return json.Marshal((*plain)(p))
}
