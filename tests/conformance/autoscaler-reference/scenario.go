package main

// Decoding a scenario of the autoscaler corpus format into Kubernetes
// objects, with API defaulting as the API server applies it on create
// (status.allocatable from capacity, container requests from limits, ...).
// Admission plugins are not run (no priority resolution from
// priorityClassName), as the corpus README says. Every error names the field.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apiv1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install" // storage.k8s.io/v1 defaulting (StorageClass volumeBindingMode, CSIDriver)
)

type groupSpec struct {
	Name         string
	MinSize      int
	MaxSize      int
	TargetSize   int
	Nodes        []string
	MachineType  string
	Template     *apiv1.Node // nil when the scenario gives none
	TemplatePods []*apiv1.Pod
}

// scenarioOptions are the corpus' option keys; anything else stays at
// cluster-autoscaler's flag default.
type scenarioOptions struct {
	scaleDownUtilizationThreshold     *float64
	scaleDownGpuUtilizationThreshold  *float64
	expendablePodsPriorityCutoff      *int
	skipNodesWithSystemPods           *bool
	skipNodesWithLocalStorage         *bool
	skipNodesWithCustomControllerPods *bool
	maxNodesTotal                     *int
	maxCoresTotal                     *int64
	maxMemoryTotalGiB                 *int64
	maxLoops                          int
	gpuLabel                          string
	// now dates the scenario: the time of the first loop, against which
	// creationTimestamps are read. The reference runs at the real clock (CA
	// reads it in places), so dated objects are shifted by real − now.
	now *time.Time
}

type scenario struct {
	Nodes      []*apiv1.Node
	Pods       []*apiv1.Pod // bound pods
	Groups     []groupSpec
	Pending    []*apiv1.Pod // replicas expanded
	Expanders  []string
	Priorities map[int][]string // nil unless expanderPriorities is given
	ScaleDown  bool

	DaemonSets             []*appsv1.DaemonSet
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
	Jobs                   []*batchv1.Job
	ReplicationControllers []*apiv1.ReplicationController
	PDBs                   []*policyv1.PodDisruptionBudget
	Options                scenarioOptions

	// The objects the scheduler framework's informers serve beyond nodes,
	// pods and the controllers above, under a scheduling scenario's keys
	// (../../../../shared/corpus/README.md): InterPodAffinity's namespaces,
	// PodTopologySpread's Services, the volume plugins' storage objects.
	Namespaces             []runtime.Object
	Services               []runtime.Object
	PersistentVolumeClaims []runtime.Object
	PersistentVolumes      []runtime.Object
	StorageClasses         []runtime.Object
	CSINodes               []runtime.Object
	CSIDrivers             []runtime.Object
	CSIStorageCapacities   []runtime.Object
}

// fieldError names the offending field as a JSON path from the line's root.
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string { return e.path + ": " + e.msg }

func ferr(path, format string, a ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, a...)}
}

func jsonType(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func asObject(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, ferr(path, "expected an object, got %s", jsonType(raw))
	}
	return m, nil
}

func asArray(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, ferr(path, "expected an array, got %s", jsonType(raw))
	}
	return a, nil
}

func asString(raw json.RawMessage, path string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", ferr(path, "expected a string, got %s", jsonType(raw))
	}
	return s, nil
}

func asBool(raw json.RawMessage, path string) (bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, ferr(path, "expected a boolean, got %s", jsonType(raw))
	}
	return b, nil
}

func asInt(raw json.RawMessage, path string, lo, hi int64) (int64, error) {
	var f json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&f); err != nil {
		return 0, ferr(path, "expected an integer, got %s", jsonType(raw))
	}
	v, err := strconv.ParseInt(f.String(), 10, 64)
	if err != nil {
		return 0, ferr(path, "expected an integer, got %s", f.String())
	}
	if v < lo || v > hi {
		return 0, ferr(path, "%d out of range [%d, %d]", v, lo, hi)
	}
	return v, nil
}

func asFloat(raw json.RawMessage, path string) (float64, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, ferr(path, "expected a number, got %s", jsonType(raw))
	}
	return f, nil
}

func asStrings(raw json.RawMessage, path string) ([]string, error) {
	a, err := asArray(raw, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(a))
	for i, r := range a {
		s, err := asString(r, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// decodeObject decodes one Kubernetes object and applies API defaulting.
func decodeObject(raw json.RawMessage, path string, into runtime.Object) error {
	if _, err := asObject(raw, path); err != nil {
		return err
	}
	if err := utiljson.Unmarshal(raw, into); err != nil {
		return ferr(path, "%v", err)
	}
	legacyscheme.Scheme.Default(into)
	return nil
}

var knownKeys = map[string]bool{
	"nodes": true, "pods": true, "nodeGroups": true, "pending": true, "expander": true,
	"expanderPriorities": true, "scaleDown": true, "daemonSets": true, "replicaSets": true,
	"statefulSets": true, "jobs": true, "replicationControllers": true,
	"podDisruptionBudgets": true, "options": true,
	"namespaces": true, "services": true, "persistentVolumeClaims": true, "persistentVolumes": true,
	"storageClasses": true, "csiNodes": true, "csiDrivers": true, "csiStorageCapacities": true,
}

const knownKeyList = "nodes, pods, nodeGroups, pending, expander, expanderPriorities, scaleDown, daemonSets, replicaSets, statefulSets, jobs, replicationControllers, podDisruptionBudgets, options, namespaces, services, persistentVolumeClaims, persistentVolumes, storageClasses, csiNodes, csiDrivers, csiStorageCapacities"

var knownExpanders = map[string]bool{"random": true, "least-waste": true, "most-pods": true, "priority": true}

// decodeScenario reads a corpus line ({"scenario": ..., "expected": ...}) or
// a bare scenario.
func decodeScenario(data []byte) (*scenario, error) {
	top, err := asObject(json.RawMessage(data), "$")
	if err != nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	root := "$"
	body := top
	if inner, ok := top["scenario"]; ok {
		root = "$.scenario"
		if body, err = asObject(inner, root); err != nil {
			return nil, err
		}
	}
	for k := range body {
		if !knownKeys[k] {
			return nil, ferr(root+"."+k, "unknown scenario field (known: "+knownKeyList+")")
		}
	}
	s := &scenario{Expanders: []string{"random"}, Options: scenarioOptions{maxLoops: 10, gpuLabel: "cloud.google.com/gke-accelerator"}}
	each := func(key string, fn func(raw json.RawMessage, path string) error) error {
		raw, ok := body[key]
		if !ok {
			return nil
		}
		a, err := asArray(raw, root+"."+key)
		if err != nil {
			return err
		}
		for i, r := range a {
			if err := fn(r, fmt.Sprintf("%s.%s[%d]", root, key, i)); err != nil {
				return err
			}
		}
		return nil
	}
	seenNodes := map[string]bool{}
	if err := each("nodes", func(raw json.RawMessage, p string) error {
		n := &apiv1.Node{}
		if err := decodeObject(raw, p, n); err != nil {
			return err
		}
		if n.Name == "" {
			return ferr(p+".metadata.name", "a node needs a name")
		}
		if seenNodes[n.Name] {
			return ferr(p+".metadata.name", "duplicate node %q", n.Name)
		}
		seenNodes[n.Name] = true
		s.Nodes = append(s.Nodes, n)
		return nil
	}); err != nil {
		return nil, err
	}
	decodePod := func(raw json.RawMessage, p string) (*apiv1.Pod, error) {
		pod := &apiv1.Pod{}
		if err := decodeObject(raw, p, pod); err != nil {
			return nil, err
		}
		if pod.Name == "" {
			return nil, ferr(p+".metadata.name", "a pod needs a name")
		}
		if pod.Namespace == "" {
			pod.Namespace = "default"
		}
		return pod, nil
	}
	if err := each("pods", func(raw json.RawMessage, p string) error {
		pod, err := decodePod(raw, p)
		if err != nil {
			return err
		}
		if pod.Spec.NodeName == "" {
			return ferr(p+".spec.nodeName", "a bound pod needs spec.nodeName (pending pods go in \"pending\")")
		}
		if !seenNodes[pod.Spec.NodeName] {
			return ferr(p+".spec.nodeName", "no node %q in nodes", pod.Spec.NodeName)
		}
		s.Pods = append(s.Pods, pod)
		return nil
	}); err != nil {
		return nil, err
	}
	seenGroups := map[string]bool{}
	groupOfNode := map[string]string{}
	if err := each("nodeGroups", func(raw json.RawMessage, p string) error {
		g, err := decodeGroup(raw, p, decodePod)
		if err != nil {
			return err
		}
		if seenGroups[g.Name] {
			return ferr(p+".name", "duplicate node group %q", g.Name)
		}
		seenGroups[g.Name] = true
		for i, n := range g.Nodes {
			if !seenNodes[n] {
				return ferr(fmt.Sprintf("%s.nodes[%d]", p, i), "no node %q in nodes", n)
			}
			if other, ok := groupOfNode[n]; ok {
				return ferr(fmt.Sprintf("%s.nodes[%d]", p, i), "node %q is already in node group %q", n, other)
			}
			groupOfNode[n] = g.Name
		}
		s.Groups = append(s.Groups, *g)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each("pending", func(raw json.RawMessage, p string) error {
		pod, err := decodePod(raw, p)
		if err != nil {
			return err
		}
		obj, _ := asObject(raw, p)
		replicas := int64(-1)
		if r, ok := obj["replicas"]; ok {
			if replicas, err = asInt(r, p+".replicas", 0, 100000); err != nil {
				return err
			}
		}
		if replicas < 0 {
			s.Pending = append(s.Pending, pod)
		} else {
			for i := int64(0); i < replicas; i++ {
				c := pod.DeepCopy()
				c.Name = fmt.Sprintf("%s-%d", pod.Name, i)
				s.Pending = append(s.Pending, c)
			}
		}
		if len(s.Pending) > 100000 {
			return ferr(p, "more than 100000 pending pods")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if raw, ok := body["expander"]; ok {
		e, err := asString(raw, root+".expander")
		if err != nil {
			return nil, err
		}
		s.Expanders = strings.Split(e, ",")
		for _, name := range s.Expanders {
			if !knownExpanders[name] {
				return nil, ferr(root+".expander", "unknown expander %q (random, least-waste, most-pods, priority)", name)
			}
		}
	}
	if raw, ok := body["expanderPriorities"]; ok {
		obj, err := asObject(raw, root+".expanderPriorities")
		if err != nil {
			return nil, err
		}
		s.Priorities = map[int][]string{}
		for k, v := range obj {
			p := root + ".expanderPriorities." + k
			prio, err := strconv.Atoi(k)
			if err != nil {
				return nil, ferr(p, "a priority must be an integer")
			}
			res, err := asStrings(v, p)
			if err != nil {
				return nil, err
			}
			for i, re := range res {
				if _, err := regexp.Compile(re); err != nil {
					return nil, ferr(fmt.Sprintf("%s[%d]", p, i), "not a regular expression: %v", err)
				}
			}
			s.Priorities[prio] = res
		}
	}
	if raw, ok := body["scaleDown"]; ok {
		if s.ScaleDown, err = asBool(raw, root+".scaleDown"); err != nil {
			return nil, err
		}
	}
	if err := each("daemonSets", func(raw json.RawMessage, p string) error {
		o := &appsv1.DaemonSet{}
		if err := decodeObject(raw, p, o); err != nil {
			return err
		}
		defaultNamespace(&o.Namespace)
		s.DaemonSets = append(s.DaemonSets, o)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each("replicaSets", func(raw json.RawMessage, p string) error {
		o := &appsv1.ReplicaSet{}
		if err := decodeObject(raw, p, o); err != nil {
			return err
		}
		defaultNamespace(&o.Namespace)
		s.ReplicaSets = append(s.ReplicaSets, o)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each("statefulSets", func(raw json.RawMessage, p string) error {
		o := &appsv1.StatefulSet{}
		if err := decodeObject(raw, p, o); err != nil {
			return err
		}
		defaultNamespace(&o.Namespace)
		s.StatefulSets = append(s.StatefulSets, o)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each("jobs", func(raw json.RawMessage, p string) error {
		o := &batchv1.Job{}
		if err := decodeObject(raw, p, o); err != nil {
			return err
		}
		defaultNamespace(&o.Namespace)
		s.Jobs = append(s.Jobs, o)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each("replicationControllers", func(raw json.RawMessage, p string) error {
		o := &apiv1.ReplicationController{}
		if err := decodeObject(raw, p, o); err != nil {
			return err
		}
		defaultNamespace(&o.Namespace)
		s.ReplicationControllers = append(s.ReplicationControllers, o)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each("podDisruptionBudgets", func(raw json.RawMessage, p string) error {
		o := &policyv1.PodDisruptionBudget{}
		if err := decodeObject(raw, p, o); err != nil {
			return err
		}
		defaultNamespace(&o.Namespace)
		s.PDBs = append(s.PDBs, o)
		return nil
	}); err != nil {
		return nil, err
	}
	// As the scheduling reference decodes them (../reference/schedule.go):
	// PVCs and PVs keep the uid the scenario gives, empty if absent, since
	// VolumeBinding compares a PV's claimRef.uid with its claim's.
	objects := []struct {
		key        string
		into       *[]runtime.Object
		namespaced bool
		uid        bool
		make       func() runtime.Object
	}{
		{"namespaces", &s.Namespaces, false, true, func() runtime.Object { return &apiv1.Namespace{} }},
		{"services", &s.Services, true, true, func() runtime.Object { return &apiv1.Service{} }},
		{"persistentVolumeClaims", &s.PersistentVolumeClaims, true, false, func() runtime.Object { return &apiv1.PersistentVolumeClaim{} }},
		{"persistentVolumes", &s.PersistentVolumes, false, false, func() runtime.Object { return &apiv1.PersistentVolume{} }},
		{"storageClasses", &s.StorageClasses, false, false, func() runtime.Object { return &storagev1.StorageClass{} }},
		{"csiNodes", &s.CSINodes, false, false, func() runtime.Object { return &storagev1.CSINode{} }},
		{"csiDrivers", &s.CSIDrivers, false, false, func() runtime.Object { return &storagev1.CSIDriver{} }},
		{"csiStorageCapacities", &s.CSIStorageCapacities, true, false, func() runtime.Object { return &storagev1.CSIStorageCapacity{} }},
	}
	for _, o := range objects {
		o := o
		if err := each(o.key, func(raw json.RawMessage, p string) error {
			obj := o.make()
			if err := decodeObject(raw, p, obj); err != nil {
				return err
			}
			m := obj.(metav1.Object)
			if m.GetNamespace() == "" && o.namespaced {
				m.SetNamespace("default")
			}
			if m.GetUID() == "" && o.uid {
				m.SetUID(types.UID(fmt.Sprintf("uid-%s-%s-%s", o.key, m.GetNamespace(), m.GetName())))
			}
			*o.into = append(*o.into, obj)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if raw, ok := body["options"]; ok {
		if err := decodeOptions(raw, root+".options", &s.Options); err != nil {
			return nil, err
		}
	}
	addUsedNamespaces(s)
	return s, nil
}

// addUsedNamespaces gives the namespace lister, besides the scenario's
// namespaces, every namespace a pod is in, as the scheduling reference does
// (../reference/schedule.go): the API server has it, with the label
// defaulting puts on every namespace (kubernetes.io/metadata.name), and
// InterPodAffinity reads it for a term's namespaceSelector.
func addUsedNamespaces(s *scenario) {
	listed := map[string]bool{}
	for _, o := range s.Namespaces {
		listed[o.(*apiv1.Namespace).Name] = true
	}
	lists := [][]*apiv1.Pod{s.Pods, s.Pending}
	for _, g := range s.Groups {
		lists = append(lists, g.TemplatePods)
	}
	var used []string
	for _, list := range lists {
		for _, p := range list {
			used = append(used, p.Namespace)
		}
	}
	for _, ds := range s.DaemonSets { // the pods CA makes for a template
		used = append(used, ds.Namespace)
	}
	for _, name := range used {
		if listed[name] {
			continue
		}
		listed[name] = true
		ns := &apiv1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-namespace-" + name)}}
		legacyscheme.Scheme.Default(ns)
		s.Namespaces = append(s.Namespaces, ns)
	}
}

func defaultNamespace(ns *string) {
	if *ns == "" {
		*ns = "default"
	}
}

func decodeGroup(raw json.RawMessage, p string, decodePod func(json.RawMessage, string) (*apiv1.Pod, error)) (*groupSpec, error) {
	obj, err := asObject(raw, p)
	if err != nil {
		return nil, err
	}
	g := &groupSpec{}
	name, ok := obj["name"]
	if !ok {
		return nil, ferr(p+".name", "a node group needs a name")
	}
	if g.Name, err = asString(name, p+".name"); err != nil {
		return nil, err
	}
	if g.Name == "" {
		return nil, ferr(p+".name", "a node group needs a name")
	}
	for k, v := range obj {
		switch k {
		case "name":
		case "minSize", "maxSize", "targetSize":
			n, err := asInt(v, p+"."+k, 0, 10000)
			if err != nil {
				return nil, err
			}
			switch k {
			case "minSize":
				g.MinSize = int(n)
			case "maxSize":
				g.MaxSize = int(n)
			default:
				t := int(n)
				g.TargetSize = t
			}
		case "nodes":
			if g.Nodes, err = asStrings(v, p+".nodes"); err != nil {
				return nil, err
			}
		case "machineType":
			if g.MachineType, err = asString(v, p+".machineType"); err != nil {
				return nil, err
			}
		case "template":
			n := &apiv1.Node{}
			if err := decodeObject(v, p+".template", n); err != nil {
				return nil, err
			}
			g.Template = n
		case "templatePods":
			a, err := asArray(v, p+".templatePods")
			if err != nil {
				return nil, err
			}
			for i, r := range a {
				pod, err := decodePod(r, fmt.Sprintf("%s.templatePods[%d]", p, i))
				if err != nil {
					return nil, err
				}
				g.TemplatePods = append(g.TemplatePods, pod)
			}
		default:
			return nil, ferr(p+"."+k, "unknown node group field (known: name, minSize, maxSize, targetSize, nodes, machineType, template, templatePods)")
		}
	}
	if _, ok := obj["maxSize"]; !ok {
		return nil, ferr(p+".maxSize", "a node group needs maxSize")
	}
	if g.MaxSize < g.MinSize {
		return nil, ferr(p+".maxSize", "maxSize %d is below minSize %d", g.MaxSize, g.MinSize)
	}
	if _, ok := obj["targetSize"]; !ok {
		g.TargetSize = len(g.Nodes)
	}
	return g, nil
}

func decodeOptions(raw json.RawMessage, p string, o *scenarioOptions) error {
	obj, err := asObject(raw, p)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, kp := obj[k], p+"."+k
		switch k {
		case "scaleDownUtilizationThreshold", "scaleDownGpuUtilizationThreshold":
			f, err := asFloat(v, kp)
			if err != nil {
				return err
			}
			if f < 0 || f > 1 {
				return ferr(kp, "%v out of range [0, 1]", f)
			}
			if k == "scaleDownUtilizationThreshold" {
				o.scaleDownUtilizationThreshold = &f
			} else {
				o.scaleDownGpuUtilizationThreshold = &f
			}
		case "expendablePodsPriorityCutoff":
			n, err := asInt(v, kp, -1<<31, 1<<31-1)
			if err != nil {
				return err
			}
			i := int(n)
			o.expendablePodsPriorityCutoff = &i
		case "skipNodesWithSystemPods", "skipNodesWithLocalStorage", "skipNodesWithCustomControllerPods":
			b, err := asBool(v, kp)
			if err != nil {
				return err
			}
			switch k {
			case "skipNodesWithSystemPods":
				o.skipNodesWithSystemPods = &b
			case "skipNodesWithLocalStorage":
				o.skipNodesWithLocalStorage = &b
			default:
				o.skipNodesWithCustomControllerPods = &b
			}
		case "maxNodesTotal":
			n, err := asInt(v, kp, 0, 1<<31-1)
			if err != nil {
				return err
			}
			i := int(n)
			o.maxNodesTotal = &i
		case "maxCoresTotal":
			n, err := asInt(v, kp, 0, 1<<40)
			if err != nil {
				return err
			}
			o.maxCoresTotal = &n
		case "maxMemoryTotal":
			n, err := asInt(v, kp, 0, 1<<30)
			if err != nil {
				return err
			}
			o.maxMemoryTotalGiB = &n
		case "maxLoops":
			n, err := asInt(v, kp, 1, 100)
			if err != nil {
				return err
			}
			o.maxLoops = int(n)
		case "gpuLabel":
			if o.gpuLabel, err = asString(v, kp); err != nil {
				return err
			}
		case "now":
			text, err := asString(v, kp)
			if err != nil {
				return err
			}
			t, perr := time.Parse(time.RFC3339, text)
			if perr != nil {
				return ferr(kp, "not an RFC 3339 time: %q", text)
			}
			o.now = &t
		default:
			return ferr(kp, "unknown option (known: scaleDownUtilizationThreshold, scaleDownGpuUtilizationThreshold, expendablePodsPriorityCutoff, skipNodesWithSystemPods, skipNodesWithLocalStorage, skipNodesWithCustomControllerPods, maxNodesTotal, maxCoresTotal, maxMemoryTotal, maxLoops, gpuLabel, now)")
		}
	}
	return nil
}
