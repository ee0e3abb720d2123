//go:build !kube130

package main

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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// ---- the framework ----

// A framework per distinct configuration; its snapshot lister points at the
// scenario being decided.
type cachedFramework struct {
	fw       framework.Framework
	snapshot *swappableSnapshot
	podStore interface {
		Add(obj any) error
		Delete(obj any) error
	}
	factory informers.SharedInformerFactory
	out     *profileOut
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
		// VolumeBinding's assume caches (volumebinding/passive_assume_cache.go)
		// read these indexers directly, objects they assumed laid over them;
		// Replace re-indexes with every index added to them (the PVs' storage
		// class index from NewPVAssumeCache, the VolumeAttachments' node index
		// from NodeVolumeLimits).
		{f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(), d.persistentVolumeClaims},
		{f.Core().V1().PersistentVolumes().Informer().GetIndexer(), d.persistentVolumes},
		{f.Storage().V1().StorageClasses().Informer().GetIndexer(), d.storageClasses},
		{f.Storage().V1().CSINodes().Informer().GetIndexer(), d.csiNodes},
		{f.Storage().V1().CSIDrivers().Informer().GetIndexer(), d.csiDrivers},
		{f.Storage().V1().CSIStorageCapacities().Informer().GetIndexer(), d.csiStorageCapacities},
		// No attach/detach controller: nothing is attached but what the
		// bound pods' volumes say.
		{f.Storage().V1().VolumeAttachments().Informer().GetIndexer(), nil},
	} {
		if err := s.store.Replace(s.objects, ""); err != nil {
			return err
		}
	}
	return nil
}

type nopNominator struct{}

func (nopNominator) AddNominatedPod(klog.Logger, fwk.PodInfo, *fwk.NominatingInfo) {}
func (nopNominator) DeleteNominatedPodIfExists(*v1.Pod)                            {}
func (nopNominator) UpdateNominatedPod(klog.Logger, *v1.Pod, fwk.PodInfo)          {}
func (nopNominator) NominatedPodsForNode(string) []fwk.PodInfo                     { return nil }

type nopActivator struct{}

func (nopActivator) Activate(klog.Logger, map[string]*v1.Pod) {}

func registry(c *compatState) frameworkruntime.Registry {
	r := frameworkplugins.NewInTreeRegistry()
	// DefaultPreemption as kube-scheduler builds it; only the eviction of the
	// chosen victims (API calls made after the decision and its message) is
	// made a no-op: there is no API server, and the corpus does not evict.
	newPreemption := r[names.DefaultPreemption]
	r[names.DefaultPreemption] = func(ctx context.Context, args runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
		p, err := newPreemption(ctx, args, fh)
		if err != nil {
			return nil, err
		}
		if dp, ok := p.(*defaultpreemption.DefaultPreemption); ok {
			disableEviction(dp)
			if dp.Evaluator != nil {
				dp.Evaluator.Interface = &deterministicTies{DefaultPreemption: dp}
			}
		}
		return p, nil
	}
	r[cohortName] = newCohort
	c.wrapRegistry(r)
	return r
}

func (r *runner) framework(ctx context.Context, rp *resolvedProfile) (*cachedFramework, error) {
	if r.frameworks == nil {
		metrics.Register() // as pkg/scheduler.New does: the framework records into them
		r.frameworks = map[string]*cachedFramework{}
	}
	if cf, ok := r.frameworks[rp.key]; ok {
		return cf, nil
	}
	logger := klog.FromContext(ctx)
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	// As pkg/scheduler.New wires the DRA manager and the CSI manager.
	var draManager fwk.SharedDRAManager
	if utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		claimInformer := factory.Resource().V1().ResourceClaims().Informer()
		claimCache := assumecache.NewAssumeCache(logger, claimInformer, "ResourceClaim", "", nil)
		opts := resourceslicetracker.Options{
			EnableDeviceTaintRules:   utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
			EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
			SliceInformer:            factory.Resource().V1().ResourceSlices(),
		}
		if opts.EnableDeviceTaintRules {
			setDeviceTaintInformers(&opts, factory)
		}
		tracker, err := resourceslicetracker.StartTracker(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("resource slice tracker: %w", err)
		}
		draManager = dynamicresources.NewDRAManager(ctx, claimCache, tracker, factory)
	}
	csiManager := nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())
	snap := &swappableSnapshot{Snapshot: internalcache.NewEmptySnapshot()}
	fwOptions := append([]frameworkruntime.Option{
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSharedDRAManager(draManager),
		frameworkruntime.WithSharedCSIManager(csiManager),
		frameworkruntime.WithSnapshotSharedLister(snap),
		frameworkruntime.WithParallelism(r.parallelism),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodNominator(nopNominator{}),
		frameworkruntime.WithPodActivator(nopActivator{}),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
	}, releaseFrameworkOptions(snap)...)
	fw, err := frameworkruntime.NewFramework(ctx, registry(r.compat), rp.profile, fwOptions...)
	if err != nil {
		return nil, err
	}
	cf := &cachedFramework{fw: fw, snapshot: snap, podStore: factory.Core().V1().Pods().Informer().GetStore(), factory: factory}
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

// swappableSnapshot lets one framework decide scenario after scenario: the
// framework keeps this lister, and each scenario puts its own snapshot in.
type swappableSnapshot struct {
	*internalcache.Snapshot
}

func (s *swappableSnapshot) NodeInfos() fwk.NodeInfoLister       { return s }
func (s *swappableSnapshot) StorageInfos() fwk.StorageInfoLister { return s }

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
	logger := klog.FromContext(ctx)

	if err := cf.setObjects(d); err != nil {
		return &scenarioResult{Error: "cluster objects: " + err.Error()}
	}
	defer cf.setObjects(&decoded{})
	// What the Reserve plugins assumed for the pods placed so far
	// (VolumeBinding: a provisioned claim's selected node, a matched PV's
	// claimRef, in its assume caches) is seen by the later pods, as in
	// kube-scheduler, and undone here, last first, before the stores are
	// emptied: the framework decides the next scenario too, and an assumed
	// object of the same name and resourceVersion would outlive Replace.
	var reserved []reservation
	defer func() {
		for i := len(reserved) - 1; i >= 0; i-- {
			rv := reserved[i]
			cf.fw.RunReservePluginsUnreserve(ctx, rv.state, rv.pod, rv.node)
		}
	}()

	cache := newSchedulerCache(ctx)
	for _, n := range d.nodes {
		cache.AddNode(logger, n)
	}
	for _, p := range d.pods {
		if err := cache.AddPod(logger, p); err != nil {
			return &scenarioResult{Error: fmt.Sprintf("pod %s/%s: %v", p.Namespace, p.Name, err)}
		}
	}
	out := &scenarioResult{Profile: cf.out, Results: []*podResult{}}
	nextStart := 0
	// One snapshot, brought up to date before each pod as schedulingCycle does.
	snapshot := internalcache.NewEmptySnapshot()
	for _, pod := range d.incoming {
		if err := cache.UpdateSnapshot(logger, snapshot); err != nil {
			return &scenarioResult{Error: "snapshot: " + err.Error()}
		}
		cf.snapshot.Snapshot = snapshot
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
			// assumeAndReserve (schedule_one.go): Reserve on the assumed pod;
			// Permit and the binding cycle (PreBind's API updates) are not run.
			if st := cf.fw.RunReservePluginsReserve(ctx, state, bound, chosen); !st.IsSuccess() {
				cf.fw.RunReservePluginsUnreserve(ctx, state, bound, chosen)
				if !st.IsRejected() {
					out.Results[len(out.Results)-1] = &podResult{Pod: res.Pod, Error: st.AsError().Error()}
					continue
				}
				// Rejected: kube-scheduler reports a FitError on the one node.
				fitErr := &framework.FitError{Pod: pod, NumAllNodes: 1,
					Diagnosis: framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}}
				fitErr.Diagnosis.NodeToStatus.Set(chosen, st)
				fitErr.Diagnosis.AddPluginStatus(st)
				res.Message = fitErr.Error()
				res.UnschedulablePlugins = sets.List(fitErr.Diagnosis.UnschedulablePlugins)
				res.Chosen = nil
				continue
			}
			reserved = append(reserved, reservation{state: state, pod: bound, node: chosen})
			if err := cache.AddPod(logger, bound); err != nil {
				return &scenarioResult{Error: fmt.Sprintf("binding %s/%s: %v", pod.Namespace, pod.Name, err)}
			}
		}
	}
	cf.snapshot.Snapshot = internalcache.NewEmptySnapshot()
	if len(r.compat.on) > 0 {
		out.Compat = r.compat.take()
	}
	return out
}

// numFeasibleNodesToFind is kube-scheduler's (schedule_one.go), for a
// configuration that sets percentageOfNodesToScore.
func numFeasibleNodesToFind(percentage int32, numAllNodes int32) int32 {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	if numAllNodes < minFeasibleNodesToFind || percentage >= 100 {
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

// decide is one scheduling cycle of schedule_one.go (schedulePod,
// findNodesThatFitPod, findNodesThatPassFilters, prioritizeNodes, and the
// PostFilter of schedulingAlgorithm), keeping what the corpus reports: every
// node's filter status, every plugin's weighted score, the tied best nodes.
func decide(ctx context.Context, f framework.Framework, snapshot *internalcache.Snapshot, pod *v1.Pod, percentage int32, nextStart *int, compat *compatState) (*podResult, string, fwk.CycleState, error) {
	state := framework.NewCycleState()
	res, chosen, err := decideIn(ctx, f, state, snapshot, pod, percentage, nextStart, compat)
	return res, chosen, state, err
}

// reservation: a placed pod's cycle, for Unreserve at the end of the scenario.
type reservation struct {
	state fwk.CycleState
	pod   *v1.Pod
	node  string
}

func decideIn(ctx context.Context, f framework.Framework, state fwk.CycleState, snapshot *internalcache.Snapshot, pod *v1.Pod, percentage int32, nextStart *int, compat *compatState) (*podResult, string, error) {
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
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	preRes, s, unschedulablePlugins := f.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = unschedulablePlugins
	var feasible []fwk.NodeInfo
	if !s.IsSuccess() {
		if !s.IsRejected() {
			return nil, "", s.AsError()
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(s)
		diagnosis.PreFilterMsg = s.Message()
		diagnosis.AddPluginStatus(s)
		for _, n := range allNodes {
			res.Filter[n.Node().Name] = reasons(s)
			if res.FilterPlugin == nil {
				res.FilterPlugin = map[string]string{}
			}
			res.FilterPlugin[n.Node().Name] = s.Plugin()
		}
	} else {
		nodes := allNodes
		if !preRes.AllNodes() {
			nodes = make([]fwk.NodeInfo, 0, len(preRes.NodeNames))
			for name := range preRes.NodeNames {
				if ni, err := snapshot.Get(name); err == nil {
					nodes = append(nodes, ni)
				}
			}
			if compat.enabled("prefilter-absent") {
				// 1.26 kept no status for the nodes left out: not in the
				// message, and tried as preemption candidates.
				diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.Unschedulable))
				if len(nodes) < len(allNodes) {
					compat.mark("prefilter-absent")
				}
			} else {
				diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
					fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedulablePlugins))))
			}
		}
		feasible, err = filterNodes(ctx, f, state, pod, nodes, percentage, nextStart, &diagnosis, res, len(allNodes))
		if err != nil {
			return nil, "", err
		}
	}
	res.Feasible = len(feasible)
	if len(feasible) == 0 {
		fitErr := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: diagnosis}
		if f.HasPostFilterPlugins() {
			_, status := f.RunPostFilterPlugins(ctx, state, pod, diagnosis.NodeToStatus)
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
	var scores []fwk.NodePluginScores
	if f.HasScorePlugins() {
		if st := f.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			return nil, "", st.AsError()
		}
		var st *fwk.Status
		scores, st = f.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			return nil, "", st.AsError()
		}
	} else {
		for _, n := range feasible {
			scores = append(scores, fwk.NodePluginScores{Name: n.Node().Name, TotalScore: 1})
		}
	}
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

func reasons(s *fwk.Status) any {
	r := s.Reasons()
	if r == nil {
		r = []string{}
	}
	return r
}

// filterNodes is findNodesThatPassFilters: in parallel, as kube-scheduler
// does, over every node, or, with percentageOfNodesToScore set and 100 nodes
// or more, from the rotating start index until enough nodes fit.
func filterNodes(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo,
	percentage int32, nextStart *int, diagnosis *framework.Diagnosis, res *podResult, numAll int) ([]fwk.NodeInfo, error) {
	n := len(nodes)
	if n == 0 {
		return nil, nil
	}
	want := numFeasibleNodesToFind(percentage, int32(n))
	statuses := make([]*fwk.Status, n)
	ok := make([]bool, n)
	checked := make([]bool, n)
	if int(want) >= n {
		var mu sync.Mutex
		var firstErr error
		f.Parallelizer().Until(ctx, n, func(i int) {
			st := f.RunFilterPluginsWithNominatedPods(ctx, state, pod, nodes[i])
			if st.Code() == fwk.Error {
				mu.Lock()
				if firstErr == nil {
					firstErr = st.AsError()
				}
				mu.Unlock()
				return
			}
			statuses[i], ok[i], checked[i] = st, st.IsSuccess(), true
		}, "Filter")
		if firstErr != nil {
			return nil, firstErr
		}
		// every node processed: the start index moves by a whole turn
	} else {
		// As findNodesThatPassFilters: in parallel from the rotating start,
		// cancelled once enough nodes fit (which ones is a race, as there).
		start := *nextStart % n
		var found int32
		var mu sync.Mutex
		var firstErr error
		cctx, cancel := context.WithCancel(ctx)
		f.Parallelizer().Until(cctx, n, func(k int) {
			i := (start + k) % n
			st := f.RunFilterPluginsWithNominatedPods(cctx, state, pod, nodes[i])
			if st.Code() == fwk.Error {
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
		}, "Filter")
		cancel()
		if firstErr != nil {
			return nil, firstErr
		}
		processed := 0
		for i := range checked {
			if checked[i] {
				processed++
			}
		}
		*nextStart = (start + processed) % numAll
	}
	var feasible []fwk.NodeInfo
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
			diagnosis.NodeToStatus.Set(name, statuses[i])
			diagnosis.AddPluginStatus(statuses[i])
		}
	}
	return feasible, nil
}
