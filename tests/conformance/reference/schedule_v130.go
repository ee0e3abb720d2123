//go:build kube130

package main

// schedule.go for kube-scheduler v1.30 (build.sh --release v1.30.14, tag
// kube130): the framework's interfaces, CycleState, NodeInfo and Status are
// still in k8s.io/kubernetes/pkg/scheduler/framework, the cache and its
// snapshot are internal (snapshot_v130.go), and DefaultPreemption builds its
// evaluator in each PostFilter call. Each step follows v1.30.14's
// pkg/scheduler/schedule_one.go; the departures are schedule.go's (every node
// filtered and scored, the smallest tied name placed, no victim evicted).

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// ---- the framework ----

// A framework per distinct configuration; its snapshot lister points at the
// scenario being decided.
type cachedFramework struct {
	fw       framework.Framework
	snapshot *swappableSnapshot
	podStore cache.Store
	factory  informers.SharedInformerFactory
	// The PV and PVC informers, whose event handlers feed VolumeBinding's
	// assume caches.
	pvs, pvcs *handlerInformer
	out       *profileOut
}

// handlerInformer: in v1.30 VolumeBinding's assume caches
// (volumebinding/assume_cache.go) keep their own copy of the PVs and claims,
// filled by the event handlers they add to the informers, not read from the
// informers' stores. The informers are never started, so this informer keeps
// the handlers and setObjects calls them as a list would: each object of the
// last scenario deleted, each of this one added.
type handlerInformer struct {
	cache.SharedIndexInformer
	handlers  []cache.ResourceEventHandler
	delivered []any
}

func (i *handlerInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	i.handlers = append(i.handlers, h)
	return i.SharedIndexInformer.AddEventHandler(h)
}

func (i *handlerInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resync time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	i.handlers = append(i.handlers, h)
	return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(h, resync)
}

func (i *handlerInformer) replace(objects []any) error {
	if err := i.GetIndexer().Replace(objects, ""); err != nil {
		return err
	}
	for _, h := range i.handlers {
		for _, o := range i.delivered {
			h.OnDelete(o)
		}
		for _, o := range objects {
			h.OnAdd(o, true)
		}
	}
	i.delivered = objects
	return nil
}

// withResourceVersion: the assume caches parse a PV's or claim's
// resourceVersion as a number (assume_cache.go, getObjVersion) and refuse to
// assume an object without one, which the API server never stores; a
// scenario may leave it out, and then it is the first version, "1".
func withResourceVersion(objects []any) []any {
	for _, o := range objects {
		switch v := o.(type) {
		case *v1.PersistentVolume:
			if v.ResourceVersion == "" {
				v.ResourceVersion = "1"
			}
		case *v1.PersistentVolumeClaim:
			if v.ResourceVersion == "" {
				v.ResourceVersion = "1"
			}
		}
	}
	return objects
}

// setObjects puts a scenario's cluster objects into the stores the plugins'
// listers read (as the informers would after a list), replacing the last
// scenario's.
func (cf *cachedFramework) setObjects(d *decoded) error {
	f := cf.factory
	for _, s := range []struct {
		store interface {
			Replace([]any, string) error
		}
		objects []any
	}{
		{f.Core().V1().Namespaces().Informer().GetStore(), d.namespaces},
		{f.Core().V1().Services().Informer().GetStore(), d.services},
		{f.Apps().V1().ReplicaSets().Informer().GetStore(), d.replicaSets},
		{f.Apps().V1().StatefulSets().Informer().GetStore(), d.statefulSets},
		{f.Core().V1().ReplicationControllers().Informer().GetStore(), d.replicationControllers},
		{f.Storage().V1().StorageClasses().Informer().GetIndexer(), d.storageClasses},
		{f.Storage().V1().CSINodes().Informer().GetIndexer(), d.csiNodes},
		{f.Storage().V1().CSIDrivers().Informer().GetIndexer(), d.csiDrivers},
		{f.Storage().V1().CSIStorageCapacities().Informer().GetIndexer(), d.csiStorageCapacities},
	} {
		if err := s.store.Replace(s.objects, ""); err != nil {
			return err
		}
	}
	if err := cf.pvcs.replace(withResourceVersion(d.persistentVolumeClaims)); err != nil {
		return err
	}
	return cf.pvs.replace(withResourceVersion(d.persistentVolumes))
}

type nopNominator struct{}

func (nopNominator) AddNominatedPod(klog.Logger, *framework.PodInfo, *framework.NominatingInfo) {}
func (nopNominator) DeleteNominatedPodIfExists(*v1.Pod)                                         {}
func (nopNominator) UpdateNominatedPod(klog.Logger, *v1.Pod, *framework.PodInfo)                {}
func (nopNominator) NominatedPodsForNode(string) []*framework.PodInfo                           { return nil }

// preemptionV130 is DefaultPreemption with deterministicTies' choice among
// candidates. v1.30's plugin builds its preemption.Evaluator in PostFilter
// with itself as the Interface, so PostFilter is repeated here, as
// default_preemption.go has it, with deterministicTies in that place.
type preemptionV130 struct {
	*defaultpreemption.DefaultPreemption
	fh framework.Handle
}

func (p *preemptionV130) PostFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, m framework.NodeToStatusMap) (*framework.PostFilterResult, *framework.Status) {
	defer func() {
		metrics.PreemptionAttempts.Inc()
	}()
	pe := preemption.Evaluator{
		PluginName: names.DefaultPreemption,
		Handler:    p.fh,
		PodLister:  p.fh.SharedInformerFactory().Core().V1().Pods().Lister(),
		PdbLister:  p.fh.SharedInformerFactory().Policy().V1().PodDisruptionBudgets().Lister(),
		State:      state,
		Interface:  &deterministicTies{DefaultPreemption: p.DefaultPreemption},
	}
	result, status := pe.Preempt(ctx, pod, m)
	msg := status.Message()
	if len(msg) > 0 {
		return result, framework.NewStatus(status.Code(), "preemption: "+msg)
	}
	return result, status
}

func registry(c *compatState) frameworkruntime.Registry {
	r := frameworkplugins.NewInTreeRegistry()
	newPreemption := r[names.DefaultPreemption]
	r[names.DefaultPreemption] = func(ctx context.Context, args runtime.Object, fh framework.Handle) (framework.Plugin, error) {
		p, err := newPreemption(ctx, args, fh)
		if err != nil {
			return nil, err
		}
		if dp, ok := p.(*defaultpreemption.DefaultPreemption); ok {
			return &preemptionV130{DefaultPreemption: dp, fh: fh}, nil
		}
		return p, nil
	}
	r[cohortName] = newCohort
	c.wrapRegistry(r)
	return r
}

// noEviction answers DefaultPreemption's API calls on the victims it chose
// (prepareCandidate: the DisruptionTarget condition, the deletion; clearing
// lower-priority pods' nominations) as done without doing them: no victim is
// evicted, as in the v1.37 program, and the corpus does not evict either.
func noEviction(client *fake.Clientset) {
	done := func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, nil }
	client.PrependReactor("delete", "pods", done)
	client.PrependReactor("patch", "pods", done)
}

func (r *runner) framework(ctx context.Context, rp *resolvedProfile) (*cachedFramework, error) {
	if r.frameworks == nil {
		metrics.Register() // as pkg/scheduler.New does: the framework records into them
		r.frameworks = map[string]*cachedFramework{}
	}
	if cf, ok := r.frameworks[rp.key]; ok {
		return cf, nil
	}
	client := fake.NewSimpleClientset()
	noEviction(client)
	factory := informers.NewSharedInformerFactory(client, 0)
	// The factory keeps the first informer made for a type: VolumeBinding
	// gets these.
	pvs := &handlerInformer{}
	factory.InformerFor(&v1.PersistentVolume{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		pvs.SharedIndexInformer = coreinformers.NewPersistentVolumeInformer(c, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		return pvs
	})
	pvcs := &handlerInformer{}
	factory.InformerFor(&v1.PersistentVolumeClaim{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		pvcs.SharedIndexInformer = coreinformers.NewPersistentVolumeClaimInformer(c, metav1.NamespaceAll, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		return pvcs
	})
	snap := &swappableSnapshot{nodeSnapshot: newEmptySnapshot()}
	// As pkg/scheduler.New (v1.30.14) wires a profile.
	fw, err := frameworkruntime.NewFramework(ctx, registry(r.compat), rp.profile,
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(snap),
		frameworkruntime.WithParallelism(r.parallelism),
		frameworkruntime.WithPodNominator(nopNominator{}),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
	)
	if err != nil {
		return nil, err
	}
	cf := &cachedFramework{fw: fw, snapshot: snap, podStore: factory.Core().V1().Pods().Informer().GetStore(),
		factory: factory, pvs: pvs, pvcs: pvcs}
	plugins := fw.ListPlugins()
	cf.out = &profileOut{Name: rp.name, SchedulerName: fw.ProfileName(), ScoreWeights: map[string]int32{}, Percentage: rp.percentage, KubeScheduler: kubernetesVersion()}
	if plugins != nil {
		for _, p := range plugins.Filter.Enabled {
			cf.out.FilterPlugins = append(cf.out.FilterPlugins, p.Name)
		}
		for _, p := range plugins.Score.Enabled {
			cf.out.ScorePlugins = append(cf.out.ScorePlugins, p.Name)
			cf.out.ScoreWeights[p.Name] = p.Weight
		}
		for _, p := range plugins.PostFilter.Enabled {
			cf.out.PostFilter = append(cf.out.PostFilter, p.Name)
		}
	}
	r.frameworks[rp.key] = cf
	return cf, nil
}

// ---- deciding ----

func (r *runner) run(ctx context.Context, index int, data []byte) (result *scenarioResult) {
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("reference panicked: %v", p)
			if os.Getenv("REFERENCE_STACK") != "" {
				msg += "\n" + string(debug.Stack())
			}
			result = &scenarioResult{Error: msg}
		}
	}()
	s, err := decodeScenario(data)
	if err != nil {
		return &scenarioResult{Error: err.Error()}
	}
	rp, err := r.resolveProfile(s.Profile)
	if err != nil {
		return &scenarioResult{Error: err.Error()}
	}
	d, err := decodeObjects(s)
	if err != nil {
		return &scenarioResult{Error: err.Error()}
	}
	cf, err := r.framework(ctx, rp)
	if err != nil {
		return &scenarioResult{Error: "building the framework: " + err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if err := cf.setObjects(d); err != nil {
		return &scenarioResult{Error: "cluster objects: " + err.Error()}
	}
	defer cf.setObjects(&decoded{})
	// What the Reserve plugins assumed for the pods placed so far is seen by
	// the later pods, as in kube-scheduler, and undone here, last first.
	var reserved []reservation
	defer func() {
		for i := len(reserved) - 1; i >= 0; i-- {
			rv := reserved[i]
			cf.fw.RunReservePluginsUnreserve(ctx, rv.state, rv.pod, rv.node)
		}
	}()

	schedCache := newSchedulerCache()
	for _, n := range d.nodes {
		schedCache.AddNode(n)
	}
	for _, p := range d.pods {
		if err := schedCache.AddPod(p); err != nil {
			return &scenarioResult{Error: fmt.Sprintf("pod %s/%s: %v", p.Namespace, p.Name, err)}
		}
	}
	out := &scenarioResult{Profile: cf.out, Results: []*podResult{}}
	nextStart := 0
	// One snapshot, brought up to date before each pod as schedulePod does.
	snapshot := newEmptySnapshot()
	for _, pod := range d.incoming {
		if err := schedCache.UpdateSnapshot(snapshot); err != nil {
			return &scenarioResult{Error: "snapshot: " + err.Error()}
		}
		cf.snapshot.nodeSnapshot = snapshot
		cf.podStore.Add(pod)
		start := time.Now()
		percentage := rp.percentage
		if r.percentage >= 0 {
			percentage = r.percentage
		}
		res, chosen, state, err := decide(ctx, cf.fw, snapshot, pod, percentage, &nextStart, r.compat)
		r.recordTiming(index, pod.Namespace+"/"+pod.Name, len(d.nodes), time.Since(start))
		cf.podStore.Delete(pod)
		if err != nil {
			// A scheduler error (a plugin's Error status): kube-scheduler
			// reports it on the pod (reason SchedulerError) and goes on.
			out.Results = append(out.Results, &podResult{Pod: pod.Namespace + "/" + pod.Name, Error: err.Error()})
			continue
		}
		out.Results = append(out.Results, res)
		if chosen != "" {
			bound := pod.DeepCopy()
			bound.Spec.NodeName = chosen
			// schedulingCycle: Reserve on the assumed pod; Permit and the
			// binding cycle are not run.
			if st := cf.fw.RunReservePluginsReserve(ctx, state, bound, chosen); !st.IsSuccess() {
				cf.fw.RunReservePluginsUnreserve(ctx, state, bound, chosen)
				if !st.IsRejected() {
					out.Results[len(out.Results)-1] = &podResult{Pod: res.Pod, Error: st.AsError().Error()}
					continue
				}
				fitErr := &framework.FitError{Pod: pod, NumAllNodes: 1,
					Diagnosis: framework.Diagnosis{NodeToStatusMap: framework.NodeToStatusMap{chosen: st}}}
				fitErr.Diagnosis.AddPluginStatus(st)
				res.Message = fitErr.Error()
				res.UnschedulablePlugins = sets.List(fitErr.Diagnosis.UnschedulablePlugins)
				res.Chosen = nil
				continue
			}
			reserved = append(reserved, reservation{state: state, pod: bound, node: chosen})
			if err := schedCache.AddPod(bound); err != nil {
				return &scenarioResult{Error: fmt.Sprintf("binding %s/%s: %v", pod.Namespace, pod.Name, err)}
			}
		}
	}
	cf.snapshot.nodeSnapshot = newEmptySnapshot()
	if len(r.compat.on) > 0 {
		out.Compat = r.compat.take()
	}
	return out
}

// numFeasibleNodesToFind is v1.30's (schedule_one.go), for a configuration
// that sets percentageOfNodesToScore.
func numFeasibleNodesToFind(percentage int32, numAllNodes int32) int32 {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	numNodes := numAllNodes * percentage / 100
	if numNodes < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return numNodes
}

// reservation: a placed pod's cycle, for Unreserve at the end of the scenario.
type reservation struct {
	state *framework.CycleState
	pod   *v1.Pod
	node  string
}

func decide(ctx context.Context, f framework.Framework, snapshot *nodeSnapshot, pod *v1.Pod, percentage int32, nextStart *int, compat *compatState) (*podResult, string, *framework.CycleState, error) {
	state := framework.NewCycleState()
	res, chosen, err := decideIn(ctx, f, state, snapshot, pod, percentage, nextStart, compat)
	return res, chosen, state, err
}

// decideIn is schedulePod with findNodesThatFitPod and prioritizeNodes, and
// schedulingCycle's PostFilter on a FitError (v1.30.14 schedule_one.go).
func decideIn(ctx context.Context, f framework.Framework, state *framework.CycleState, snapshot *nodeSnapshot, pod *v1.Pod, percentage int32, nextStart *int, compat *compatState) (*podResult, string, error) {
	res := &podResult{Pod: pod.Namespace + "/" + pod.Name, Filter: map[string]any{}, Top: []string{}}
	allNodes, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, "", err
	}
	if len(allNodes) == 0 {
		// ErrNoNodesAvailable: no FitError, no PostFilter.
		res.Filter = nil
		res.Message = "no nodes available to schedule pods"
		return res, "", nil
	}
	diagnosis := framework.Diagnosis{NodeToStatusMap: make(framework.NodeToStatusMap)}
	preRes, s := f.RunPreFilterPlugins(ctx, state, pod)
	var feasible []*framework.NodeInfo
	if !s.IsSuccess() {
		if !s.IsRejected() {
			return nil, "", s.AsError()
		}
		// Every node gets the PreFilter's status, for preemption; the
		// message has the PreFilter's text alone.
		for _, n := range allNodes {
			diagnosis.NodeToStatusMap[n.Node().Name] = s
			res.Filter[n.Node().Name] = reasons(s)
			if res.FilterPlugin == nil {
				res.FilterPlugin = map[string]string{}
			}
			res.FilterPlugin[n.Node().Name] = s.Plugin()
		}
		diagnosis.PreFilterMsg = s.Message()
		diagnosis.AddPluginStatus(s)
	} else {
		// v1.30 gives the nodes a PreFilter left out no status: the message
		// does not count them (1.32 does), and DefaultPreemption takes a node
		// without one as UnschedulableAndUnresolvable (kubernetes#125197,
		// back-ported to 1.30).
		nodes := allNodes
		if !preRes.AllNodes() {
			nodes = make([]*framework.NodeInfo, 0, len(preRes.NodeNames))
			for name := range preRes.NodeNames {
				if ni, err := snapshot.Get(name); err == nil {
					nodes = append(nodes, ni)
				}
			}
		}
		feasible, err = filterNodes(ctx, f, state, pod, nodes, percentage, nextStart, &diagnosis, res, len(allNodes))
		if err != nil {
			return nil, "", err
		}
		if len(nodes) < len(allNodes) && compat.enabled("prefilter-absent") {
			// Before kubernetes#125197 a node without a status was tried by
			// preemption.
			in := sets.New[string]()
			for _, n := range nodes {
				in.Insert(n.Node().Name)
			}
			for _, n := range allNodes {
				if !in.Has(n.Node().Name) {
					diagnosis.NodeToStatusMap[n.Node().Name] = framework.NewStatus(framework.Unschedulable)
				}
			}
			compat.mark("prefilter-absent")
		}
	}
	res.Feasible = len(feasible)
	if len(feasible) == 0 {
		fitErr := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: diagnosis}
		if f.HasPostFilterPlugins() {
			_, status := f.RunPostFilterPlugins(ctx, state, pod, diagnosis.NodeToStatusMap)
			fitErr.Diagnosis.PostFilterMsg = status.Message()
		}
		res.Message = fitErr.Error()
		if compat.enabled("message-period") && fitErr.Diagnosis.PostFilterMsg != "" {
			// 1.26 closed the PostFilter part with its own period.
			res.Message += "."
			compat.mark("message-period")
		}
		if len(diagnosis.UnschedulablePlugins) > 0 {
			res.UnschedulablePlugins = sets.List(diagnosis.UnschedulablePlugins)
		}
		return res, "", nil
	}
	// kube-scheduler skips scoring when one node fits; the corpus reports
	// the scores all the same ("scored": false).
	res.Scored = len(feasible) > 1
	res.Scores = map[string]map[string]int64{}
	var scores []framework.NodePluginScores
	if f.HasScorePlugins() {
		if st := f.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			return nil, "", st.AsError()
		}
		var st *framework.Status
		scores, st = f.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			return nil, "", st.AsError()
		}
	} else {
		for _, n := range feasible {
			scores = append(scores, framework.NodePluginScores{Name: n.Node().Name, TotalScore: 1})
		}
	}
	// selectHost: every node of the highest total is a candidate.
	best := int64(-1 << 63)
	for _, ns := range scores {
		m := map[string]int64{}
		for _, ps := range ns.Scores {
			m[ps.Name] = ps.Score
		}
		m["total"] = ns.TotalScore
		res.Scores[ns.Name] = m
		if ns.TotalScore > best {
			best = ns.TotalScore
			res.Top = res.Top[:0]
		}
		if ns.TotalScore == best {
			res.Top = append(res.Top, ns.Name)
		}
	}
	// kube-scheduler picks uniformly among the tied best nodes; the corpus
	// takes the smallest name.
	sort.Strings(res.Top)
	chosen := res.Top[0]
	res.Chosen = &chosen
	return res, chosen, nil
}

func reasons(s *framework.Status) any {
	r := s.Reasons()
	if r == nil {
		r = []string{}
	}
	return r
}

// filterNodes is findNodesThatPassFilters: in parallel over the nodes from
// the rotating start index, stopping once enough fit when
// percentageOfNodesToScore asks for fewer than all; the start index then
// moves by the nodes processed, as findNodesThatFitPod moves it.
func filterNodes(ctx context.Context, f framework.Framework, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo,
	percentage int32, nextStart *int, diagnosis *framework.Diagnosis, res *podResult, numAll int) ([]*framework.NodeInfo, error) {
	n := len(nodes)
	if n == 0 {
		*nextStart = *nextStart % numAll
		return nil, nil
	}
	want := numFeasibleNodesToFind(percentage, int32(n))
	statuses := make([]*framework.Status, n)
	ok := make([]bool, n)
	checked := make([]bool, n)
	start := *nextStart
	var found int32
	var mu sync.Mutex
	var firstErr error
	cctx, cancel := context.WithCancel(ctx)
	f.Parallelizer().Until(cctx, n, func(k int) {
		i := (start + k) % n
		st := f.RunFilterPluginsWithNominatedPods(cctx, state, pod, nodes[i])
		if st.Code() == framework.Error {
			mu.Lock()
			if firstErr == nil {
				firstErr = st.AsError()
			}
			mu.Unlock()
			cancel()
			return
		}
		if st.IsSuccess() {
			if atomic.AddInt32(&found, 1) > want {
				cancel()
				atomic.AddInt32(&found, -1)
				return
			}
		}
		statuses[i], ok[i], checked[i] = st, st.IsSuccess(), true
	}, metrics.Filter)
	cancel()
	processed := 0
	for i := range checked {
		if checked[i] {
			processed++
		}
	}
	*nextStart = (start + processed) % numAll
	if firstErr != nil {
		return nil, firstErr
	}
	var feasible []*framework.NodeInfo
	for i, ni := range nodes {
		name := ni.Node().Name
		switch {
		case !checked[i]:
			// not checked (sampling)
		case ok[i]:
			res.Filter[name] = "ok"
			feasible = append(feasible, ni)
		default:
			res.Filter[name] = reasons(statuses[i])
			if res.FilterPlugin == nil {
				res.FilterPlugin = map[string]string{}
			}
			res.FilterPlugin[name] = statuses[i].Plugin()
			diagnosis.NodeToStatusMap[name] = statuses[i]
			diagnosis.AddPluginStatus(statuses[i])
		}
	}
	return feasible, nil
}
