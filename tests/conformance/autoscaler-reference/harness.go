package main

// The autoscaler of one scenario, wired as cluster-autoscaler's builder
// package (builder/autoscaler.go, used by its main.go) wires it, with the test
// cloud provider (cloudprovider/test) in place of a cloud and listers over the
// scenario's objects in place of informers, and then driven loop by loop.
// builder itself is not imported: it links the ProvisioningRequest client,
// whose API module the module proxy does not serve at this commit (README.md).

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"
	"k8s.io/autoscaler/cluster-autoscaler/clusterstate/utils"
	"k8s.io/autoscaler/cluster-autoscaler/config"
	"k8s.io/autoscaler/cluster-autoscaler/config/flags"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/core"
	coreoptions "k8s.io/autoscaler/cluster-autoscaler/core/options"
	"k8s.io/autoscaler/cluster-autoscaler/core/podlistprocessor"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaledown"
	scaledownstatus "k8s.io/autoscaler/cluster-autoscaler/core/scaledown/status"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaleup/orchestrator"
	"k8s.io/autoscaler/cluster-autoscaler/debuggingsnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/expander"
	"k8s.io/autoscaler/cluster-autoscaler/expander/factory"
	"k8s.io/autoscaler/cluster-autoscaler/expander/mostpods"
	"k8s.io/autoscaler/cluster-autoscaler/expander/priority"
	"k8s.io/autoscaler/cluster-autoscaler/expander/random"
	"k8s.io/autoscaler/cluster-autoscaler/expander/waste"
	ca_processors "k8s.io/autoscaler/cluster-autoscaler/processors"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodegroupset"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodeinfosprovider"
	"k8s.io/autoscaler/cluster-autoscaler/processors/pods"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates/emptycandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates/previouscandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/status"
	"k8s.io/autoscaler/cluster-autoscaler/simulator"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/predicate"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/store"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/drainability/rules"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/options"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/scheduling"
	"k8s.io/autoscaler/cluster-autoscaler/utils/gpu"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

// loopInterval is --scan-interval's default: the simulated time between loops.
const loopInterval = 10 * time.Second

type harness struct {
	ctx             context.Context
	defaults        config.AutoscalingOptions
	informerFactory informers.SharedInformerFactory
	fwHandle        *framework.Handle
	compat          compatSet
}

// newHarness makes what a cluster-autoscaler process makes once: its options
// from the flag defaults and the scheduler framework (the in-tree plugins
// with the default KubeSchedulerConfiguration, as when --scheduler-config-file
// is not given), over an informer factory of an empty API server (no DRA
// objects; each scenario's namespaces, Services, controllers and storage
// objects go into its stores for the scenario's run, setObjects).
func newHarness(compat compatSet) (*harness, error) {
	h := &harness{ctx: context.Background(), compat: compat}
	h.defaults = flags.AutoscalingOptions()
	// The flag default in a build with every cloud provider (builder_all.go);
	// only the node-info comparator for --balance-similar-node-groups reads it.
	h.defaults.CloudProviderName = cloudprovider.GceProviderName
	h.informerFactory = informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0)
	fw, err := framework.NewHandle(h.ctx, h.informerFactory, h.defaults.SchedulerConfig, h.defaults.DynamicResourceAllocationEnabled, h.defaults.CSINodeAwareSchedulingEnabled)
	if err != nil {
		return nil, err
	}
	h.fwHandle = fw
	// Every store setObjects fills is started now, empty, so that no later
	// Start lists the empty API server into it over a scenario's objects.
	h.objectStores(&scenario{})
	h.informerFactory.Start(h.ctx.Done())
	h.informerFactory.WaitForCacheSync(h.ctx.Done())
	return h, nil
}

type objectStore struct {
	store interface {
		Replace([]any, string) error
	}
	objects []any
}

// objectStores pairs the stores the scheduler framework's listers read with
// the scenario's objects for each. CA's framework handle is built over the
// process's one informer factory (simulator/framework/handle.go NewHandle,
// builder/autoscaler.go), so its plugins list what the API server holds:
// InterPodAffinity the namespaces, PodTopologySpread the Services and
// controllers, the volume plugins the storage objects.
func (h *harness) objectStores(s *scenario) []objectStore {
	f := h.informerFactory
	anys := func(objs []runtime.Object) []any {
		out := make([]any, len(objs))
		for i, o := range objs {
			out[i] = o
		}
		return out
	}
	var rss, sss, rcs []any
	for _, o := range s.ReplicaSets {
		rss = append(rss, o)
	}
	for _, o := range s.StatefulSets {
		sss = append(sss, o)
	}
	for _, o := range s.ReplicationControllers {
		rcs = append(rcs, o)
	}
	return []objectStore{
		{f.Core().V1().Namespaces().Informer().GetStore(), anys(s.Namespaces)},
		{f.Core().V1().Services().Informer().GetStore(), anys(s.Services)},
		{f.Apps().V1().ReplicaSets().Informer().GetStore(), rss},
		{f.Apps().V1().StatefulSets().Informer().GetStore(), sss},
		{f.Core().V1().ReplicationControllers().Informer().GetStore(), rcs},
		// VolumeBinding's assume caches (volumebinding/passive_assume_cache.go)
		// read these indexers directly; Replace re-indexes with every index
		// added to them (the PVs' storage class index).
		{f.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(), anys(s.PersistentVolumeClaims)},
		{f.Core().V1().PersistentVolumes().Informer().GetIndexer(), anys(s.PersistentVolumes)},
		{f.Storage().V1().StorageClasses().Informer().GetIndexer(), anys(s.StorageClasses)},
		{f.Storage().V1().CSINodes().Informer().GetIndexer(), anys(s.CSINodes)},
		{f.Storage().V1().CSIDrivers().Informer().GetIndexer(), anys(s.CSIDrivers)},
		{f.Storage().V1().CSIStorageCapacities().Informer().GetIndexer(), anys(s.CSIStorageCapacities)},
		// No attach/detach controller: nothing is attached but what the
		// bound pods' volumes say.
		{f.Storage().V1().VolumeAttachments().Informer().GetIndexer(), nil},
	}
}

// setObjects puts a scenario's objects into those stores (as the informers
// would after a list), replacing the last scenario's.
func (h *harness) setObjects(s *scenario) error {
	for _, o := range h.objectStores(s) {
		if err := o.store.Replace(o.objects, ""); err != nil {
			return err
		}
	}
	return nil
}

// runLine decodes and runs one input line (numbered from 1 for messages).
func (h *harness) runLine(lineNo int, line []byte, repeat int) (res map[string]any, loops int, elapsed time.Duration) {
	s, err := decodeScenario(line)
	if err != nil {
		return map[string]any{"error": fmt.Sprintf("line %d: %v", lineNo, err)}, 0, 0
	}
	var first map[string]any
	var firstView string
	variants := []map[string]any{}
	for r := 0; r < repeat; r++ {
		out, n, d, err := h.runSafely(s)
		if err != nil {
			return map[string]any{"error": fmt.Sprintf("line %d: %v", lineNo, err)}, n, d
		}
		if r == 0 {
			first, loops, elapsed = out, n, d
			firstView = judgedView(out)
			continue
		}
		if v := judgedView(out); v != firstView {
			known := false
			for _, o := range variants {
				if judgedView(o) == v {
					known = true
				}
			}
			if !known {
				variants = append(variants, out)
			}
		}
	}
	if len(variants) > 0 {
		first["unstable"] = true
		first["variants"] = variants
	}
	return first, loops, elapsed
}

// runSafely turns a panic inside cluster-autoscaler into an error message.
func (h *harness) runSafely(s *scenario) (out map[string]any, loops int, elapsed time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			stack := strings.Split(string(debug.Stack()), "\n")
			where := ""
			for i, l := range stack {
				if strings.Contains(l, "cluster-autoscaler") && i+1 < len(stack) {
					where = " at " + strings.TrimSpace(stack[i+1])
					break
				}
			}
			err = fmt.Errorf("cluster-autoscaler panicked: %v%s", r, where)
		}
	}()
	return h.run(s)
}

// ---- what each loop shows ----

type optionRecord struct {
	group string
	nodes int
	pods  []string
}

type loopRecord struct {
	loop          int
	time          time.Time
	unschedulable []string // what RunOnce handed to the pod list processor
	toHelp        []string // what was left for scale-up
	options       []optionRecord
	chosen        *optionRecord
	tied          []string
	scaleUp       *status.ScaleUpStatus
	unneeded      []string
	sawUnneeded   bool
	unremovable   []*scaledownstatus.UnremovableNode
}

type recorder struct {
	loops []*loopRecord
}

func (r *recorder) cur() *loopRecord { return r.loops[len(r.loops)-1] }

func podKey(p *apiv1.Pod) string { return p.Namespace + "/" + p.Name }

func podKeys(ps []*apiv1.Pod) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, podKey(p))
	}
	return out
}

// podListRecorder wraps the pod list processor: its input are the pending
// pods, its output the ones neither existing nor upcoming nodes take.
type podListRecorder struct {
	inner pods.PodListProcessor
	rec   *recorder
}

func (p *podListRecorder) Process(ctx *ca_context.AutoscalingContext, unschedulable []*apiv1.Pod) ([]*apiv1.Pod, error) {
	p.rec.cur().unschedulable = podKeys(unschedulable)
	out, err := p.inner.Process(ctx, unschedulable)
	p.rec.cur().toHelp = podKeys(out)
	return out, err
}

func (p *podListRecorder) CleanUp() { p.inner.CleanUp() }

type scaleUpStatusRecorder struct {
	inner status.ScaleUpStatusProcessor
	rec   *recorder
}

func (p *scaleUpStatusRecorder) Process(ctx *ca_context.AutoscalingContext, s *status.ScaleUpStatus) {
	p.rec.cur().scaleUp = s
	p.inner.Process(ctx, s)
}

func (p *scaleUpStatusRecorder) CleanUp() { p.inner.CleanUp() }

type scaleDownStatusRecorder struct {
	inner status.ScaleDownStatusProcessor
	rec   *recorder
	// set by --compat independent-scale-down
	resimulate func(ctx *ca_context.AutoscalingContext, l *loopRecord)
}

func (p *scaleDownStatusRecorder) Process(ctx *ca_context.AutoscalingContext, s *scaledownstatus.ScaleDownStatus) {
	l := p.rec.cur()
	l.unremovable = append([]*scaledownstatus.UnremovableNode(nil), s.UnremovableNodes...)
	if p.resimulate != nil && l.sawUnneeded {
		p.resimulate(ctx, l)
	}
	p.inner.Process(ctx, s)
}

func (p *scaleDownStatusRecorder) CleanUp() { p.inner.CleanUp() }

type unneededRecorder struct{ rec *recorder }

func (u *unneededRecorder) UpdateScaleDownCandidates(nodes []*scaledown.UnneededNode, _ time.Time) {
	l := u.rec.cur()
	l.sawUnneeded = true
	l.unneeded = l.unneeded[:0]
	for _, n := range nodes {
		l.unneeded = append(l.unneeded, n.Node.Name)
	}
}

// tieByNameStrategy is expander/factory's chain strategy (chain.go: each
// filter in turn, done when one option is left) with one change: the options
// still tied after the last filter go to the lowest node-group name instead
// of a random one. cluster-autoscaler picks at random there; the corpus
// reports the lowest name and kept only scenarios where that is what CA
// reported, so the reference decides such ties the documented way.
type tieByNameStrategy struct {
	filters []expander.Filter
	rec     *recorder
}

func (s *tieByNameStrategy) BestOption(opts []expander.Option, nodeInfo map[string]*framework.NodeInfo) *expander.Option {
	l := s.rec.cur()
	for _, o := range opts {
		l.options = append(l.options, optionRecord{group: o.NodeGroup.Id(), nodes: o.NodeCount, pods: podKeys(o.Pods)})
	}
	filtered := opts
	for _, f := range s.filters {
		filtered = f.BestOptions(filtered, nodeInfo)
		if len(filtered) <= 1 {
			break
		}
	}
	if len(filtered) == 0 {
		return nil
	}
	best := 0
	for i := range filtered {
		if filtered[i].NodeGroup.Id() < filtered[best].NodeGroup.Id() {
			best = i
		}
	}
	if len(filtered) > 1 {
		for _, o := range filtered {
			l.tied = append(l.tied, o.NodeGroup.Id())
		}
		sort.Strings(l.tied)
	}
	b := filtered[best]
	l.chosen = &optionRecord{group: b.NodeGroup.Id(), nodes: b.NodeCount, pods: podKeys(b.Pods)}
	return &b
}

// gceLikeProvider is the test cloud provider with GCE's GPU label
// (cloud.google.com/gke-accelerator, or the scenario's gpuLabel), which
// decides which nodes are GPU nodes for utilization and for the GPU
// processors, as gce.GceCloudProvider.GPULabel does.
type gceLikeProvider struct {
	*testprovider.TestCloudProvider
	gpuLabel string
}

func (p *gceLikeProvider) GPULabel() string { return p.gpuLabel }

func (p *gceLikeProvider) GetNodeGpuConfig(node *apiv1.Node) *cloudprovider.GpuConfig {
	return gpu.GetNodeGPUFromCloudProvider(p, node)
}

// ---- one scenario ----

func (h *harness) options(s *scenario) config.AutoscalingOptions {
	o := h.defaults
	o.ExpanderNames = strings.Join(s.Expanders, ",")
	so := s.Options
	if so.scaleDownUtilizationThreshold != nil {
		o.NodeGroupDefaults.ScaleDownUtilizationThreshold = *so.scaleDownUtilizationThreshold
	}
	if so.scaleDownGpuUtilizationThreshold != nil {
		o.NodeGroupDefaults.ScaleDownGpuUtilizationThreshold = *so.scaleDownGpuUtilizationThreshold
	}
	if so.expendablePodsPriorityCutoff != nil {
		o.ExpendablePodsPriorityCutoff = *so.expendablePodsPriorityCutoff
	}
	if so.skipNodesWithSystemPods != nil {
		o.SkipNodesWithSystemPods = *so.skipNodesWithSystemPods
	}
	if so.skipNodesWithLocalStorage != nil {
		o.SkipNodesWithLocalStorage = *so.skipNodesWithLocalStorage
	}
	if so.skipNodesWithCustomControllerPods != nil {
		o.SkipNodesWithCustomControllerPods = *so.skipNodesWithCustomControllerPods
	}
	if so.maxNodesTotal != nil {
		o.MaxNodesTotal = *so.maxNodesTotal
	}
	if so.maxCoresTotal != nil {
		o.MaxCoresTotal = *so.maxCoresTotal
	}
	if so.maxMemoryTotalGiB != nil {
		o.MaxMemoryTotal = *so.maxMemoryTotalGiB * 1024 * 1024 * 1024
	}
	return o
}

// prepared objects: what the API server would hold.
func prepare(s *scenario, now time.Time) (nodes []*apiv1.Node, podsAll []*apiv1.Pod, pending []*apiv1.Pod) {
	long := metav1.NewTime(now.Add(-24 * time.Hour))
	uid := 0
	newUID := func(kind string) types.UID {
		uid++
		return types.UID(fmt.Sprintf("%s-%d", kind, uid))
	}
	for _, n0 := range s.Nodes {
		n := n0.DeepCopy()
		if n.UID == "" {
			n.UID = newUID("node")
		}
		if n.CreationTimestamp.IsZero() {
			n.CreationTimestamp = long
		}
		ready := false
		for _, c := range n.Status.Conditions {
			if c.Type == apiv1.NodeReady {
				ready = true
			}
		}
		// The corpus: nodes without a Ready condition are Ready.
		if !ready {
			n.Status.Conditions = append(n.Status.Conditions, apiv1.NodeCondition{
				Type: apiv1.NodeReady, Status: apiv1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: long,
			})
		}
		nodes = append(nodes, n)
	}
	// Pods without a creationTimestamp were created a minute before the first
	// loop: old enough for CA's wait for new pending pods (2 s, 30 s for GPU
	// pods), young enough that --blocking-system-pod-distruption-timeout (1 h)
	// does not yet let kube-system pods without a budget go.
	old := metav1.NewTime(now.Add(-time.Minute))
	shift := time.Duration(0)
	if s.Options.now != nil {
		shift = now.Sub(*s.Options.now)
	}
	for _, p0 := range s.Pods {
		p := p0.DeepCopy()
		if p.UID == "" {
			p.UID = newUID("pod")
		}
		if p.CreationTimestamp.IsZero() {
			p.CreationTimestamp = old
		} else {
			p.CreationTimestamp = metav1.NewTime(p.CreationTimestamp.Add(shift))
		}
		podsAll = append(podsAll, p)
	}
	for _, p0 := range s.Pending {
		p := p0.DeepCopy()
		p.UID = newUID("pending")
		if p.CreationTimestamp.IsZero() {
			p.CreationTimestamp = old
		}
		p.Spec.NodeName = ""
		if p.Status.Phase == "" {
			p.Status.Phase = apiv1.PodPending
		}
		// As kube-scheduler leaves a pod it could not place.
		p.Status.Conditions = append(p.Status.Conditions, apiv1.PodCondition{
			Type: apiv1.PodScheduled, Status: apiv1.ConditionFalse, Reason: apiv1.PodReasonUnschedulable,
			LastTransitionTime: old,
		})
		pending = append(pending, p)
		podsAll = append(podsAll, p)
	}
	return nodes, podsAll, pending
}

func priorityConfigMap(ns string, prios map[int][]string) *apiv1.ConfigMap {
	if prios == nil {
		return nil
	}
	keys := make([]int, 0, len(prios))
	for k := range prios {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%d:\n", k)
		for _, re := range prios[k] {
			q, _ := jsonString(re)
			fmt.Fprintf(&b, "  - %s\n", q)
		}
	}
	return &apiv1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: priority.PriorityConfigMapName, Namespace: ns},
		Data:       map[string]string{priority.ConfigMapKey: b.String()},
	}
}

func (h *harness) run(s *scenario) (map[string]any, int, time.Duration, error) {
	opts := h.options(s)
	h.compat.adjustOptions(&opts)
	now := time.Now().Truncate(time.Second)
	nodes, allPods, pending := prepare(s, now)
	nodeByName := map[string]*apiv1.Node{}
	for _, n := range nodes {
		nodeByName[n.Name] = n
	}
	rec := &recorder{}

	// The cloud: one test node group per scenario group.
	templates := map[string]*framework.NodeInfo{}
	for _, g := range s.Groups {
		if g.Template == nil {
			continue
		}
		t := g.Template.DeepCopy()
		if t.Name == "" {
			t.Name = "template-node-for-" + g.Name
		}
		var podInfos []*framework.PodInfo
		for _, p := range g.TemplatePods {
			pc := p.DeepCopy()
			pc.Spec.NodeName = t.Name
			if pc.CreationTimestamp.IsZero() {
				pc.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
			}
			if pc.UID == "" {
				pc.UID = types.UID("template-" + g.Name + "-" + pc.Namespace + "-" + pc.Name)
			}
			podInfos = append(podInfos, framework.NewPodInfo(pc, nil))
		}
		templates[g.Name] = framework.NewNodeInfo(t, nil, podInfos...)
	}
	scaleUps := map[string]int{}
	tp := testprovider.NewTestCloudProviderBuilder().
		WithOnScaleUp(func(id string, delta int) error { scaleUps[id] += delta; return nil }).
		WithOnScaleDown(func(string, string) error { return nil }).
		WithMachineTemplates(templates).
		Build()
	provider := &gceLikeProvider{TestCloudProvider: tp, gpuLabel: s.Options.gpuLabel}
	requested := map[string]int{}
	for _, g := range s.Groups {
		size := g.TargetSize
		if size > len(g.Nodes) {
			// Nodes requested but not registered yet: CA's own earlier scale-up,
			// replayed below so that its cluster state knows the request.
			requested[g.Name] = size - len(g.Nodes)
			size = len(g.Nodes)
		}
		ng := tp.BuildNodeGroup(g.Name, g.MinSize, g.MaxSize, size, true, false, g.MachineType, nil)
		tp.InsertNodeGroup(ng)
		for _, n := range g.Nodes {
			tp.AddNode(g.Name, nodeByName[n])
		}
	}
	// As cloudprovider/builder sets it from --cores-total, --memory-total, --gpu-total.
	tp.SetResourceLimiter(ca_context.NewResourceLimiterFromAutoscalingOptions(opts))

	// The API: listers over the scenario's objects; writes (events, the
	// status ConfigMap, soft taints) go to a fake clientset.
	listers := listerRegistry(nodes, allPods, s)
	kubeClient := fake.NewSimpleClientset()
	recorderEvents := &record.FakeRecorder{} // drops events
	logRecorder, err := utils.NewStatusMapRecorder(kubeClient, opts.ConfigNamespace, recorderEvents, opts.WriteStatusConfigMap, opts.StatusConfigMapName)
	if err != nil {
		return nil, 0, 0, err
	}
	kubeClients := &ca_context.AutoscalingKubeClients{
		ListerRegistry: listers, ClientSet: kubeClient, Recorder: recorderEvents, LogRecorder: logRecorder,
	}

	// The expander: CA's filters by name, ties to the lowest name.
	cmLister := configMapLister{cm: priorityConfigMap(opts.ConfigNamespace, s.Priorities)}
	ef := factory.NewFactory()
	makeFilter := map[string]func() expander.Filter{
		expander.RandomExpanderName:     random.NewFilter,
		expander.MostPodsExpanderName:   mostpods.NewFilter,
		expander.LeastWasteExpanderName: waste.NewFilter,
		expander.PriorityBasedExpanderName: func() expander.Filter {
			return priority.NewFilter(cmLister, recorderEvents)
		},
	}
	for name, fn := range makeFilter {
		ef.RegisterFilter(name, fn)
	}
	if _, err := ef.Build(s.Expanders); err != nil {
		return nil, 0, 0, fmt.Errorf("expander: %v", err)
	}
	strategy := &tieByNameStrategy{rec: rec}
	for _, name := range s.Expanders {
		strategy.filters = append(strategy.filters, makeFilter[name]())
	}

	// As builder.AutoscalerBuilder.Build wires it.
	deleteOptions := options.NewNodeDeleteOptions(opts)
	drainabilityRules := rules.Default(deleteOptions)
	snapshotStore := store.NewDeltaSnapshotStore(opts.ClusterSnapshotParallelism)
	caOpts := coreoptions.AutoscalerOptions{
		AutoscalingOptions:     opts,
		FrameworkHandle:        h.fwHandle,
		ClusterSnapshot:        h.compat.clusterSnapshot(predicate.NewPredicateSnapshot(snapshotStore, h.fwHandle, opts.DynamicResourceAllocationEnabled, opts.PredicateParallelism, opts.CSINodeAwareSchedulingEnabled), s),
		KubeClient:             kubeClient,
		InformerFactory:        h.informerFactory,
		AutoscalingKubeClients: kubeClients,
		DebuggingSnapshotter:   debuggingsnapshot.NewDebuggingSnapshotter(false),
		DeleteOptions:          deleteOptions,
		DrainabilityRules:      drainabilityRules,
		ScaleUpOrchestrator:    orchestrator.New(),
		CloudProvider:          provider,
		ExpanderStrategy:       strategy,
	}
	if caOpts.EstimatorBuilder, err = h.compat.estimatorBuilder(opts); err != nil {
		return nil, 0, 0, err
	}
	caOpts.Processors = ca_processors.DefaultProcessors(opts)
	h.compat.adjustProcessors(caOpts.Processors)
	caOpts.Processors.TemplateNodeInfoProvider = nodeinfosprovider.NewDefaultTemplateNodeInfoProvider(&opts.NodeInfoCacheExpireTime, opts.ForceDaemonSets)
	caOpts.Processors.PodListProcessor = &podListRecorder{inner: podlistprocessor.NewDefaultPodListProcessor(scheduling.ScheduleAnywhere), rec: rec}
	sdCandidatesSorting := previouscandidates.NewPreviousCandidates()
	comparers := []scaledowncandidates.CandidatesComparer{
		emptycandidates.NewEmptySortingProcessor(emptycandidates.NewNodeInfoGetter(caOpts.ClusterSnapshot), deleteOptions, drainabilityRules),
		sdCandidatesSorting,
	}
	caOpts.Processors.ScaleDownCandidatesNotifier.Register(sdCandidatesSorting)
	cp := scaledowncandidates.NewCombinedScaleDownCandidatesProcessor()
	cp.Register(scaledowncandidates.NewScaleDownCandidatesSortingProcessor(comparers))
	if opts.ScaleDownDelayTypeLocal {
		sdp := scaledowncandidates.NewScaleDownCandidatesDelayProcessor()
		cp.Register(sdp)
		caOpts.Processors.ScaleStateNotifier.Register(sdp)
	}
	caOpts.Processors.ScaleDownNodeProcessor = cp
	caOpts.Processors.NodeGroupSetProcessor = &nodegroupset.BalancingNodeGroupSetProcessor{
		Comparator: nodegroupset.CreateGceNodeInfoComparator(opts.BalancingExtraIgnoredLabels, opts.NodeGroupSetRatios),
	}
	// The reference's observers, around CA's own processors.
	caOpts.Processors.ScaleUpStatusProcessor = &scaleUpStatusRecorder{inner: caOpts.Processors.ScaleUpStatusProcessor, rec: rec}
	sdr := &scaleDownStatusRecorder{inner: caOpts.Processors.ScaleDownStatusProcessor, rec: rec}
	if h.compat["independent-scale-down"] {
		sdr.resimulate = func(ctx *ca_context.AutoscalingContext, l *loopRecord) {
			resimulate1_26(ctx, l, deleteOptions, drainabilityRules, l.time)
		}
	}
	caOpts.Processors.ScaleDownStatusProcessor = sdr
	caOpts.Processors.ScaleDownCandidatesNotifier.Register(&unneededRecorder{rec: rec})

	autoscaler, aerr := core.NewAutoscaler(h.ctx, caOpts, h.informerFactory)
	if aerr != nil {
		return nil, 0, 0, aerr
	}
	// The scenario's requested nodes, as the scale-up executor requests them
	// (IncreaseSize, then ScaleStateNotifier.RegisterScaleUp), a minute ago.
	for _, g := range s.Groups {
		if d := requested[g.Name]; d > 0 {
			ng := tp.GetNodeGroup(g.Name)
			if err := ng.IncreaseSize(d); err != nil {
				return nil, 0, 0, err
			}
			caOpts.Processors.ScaleStateNotifier.RegisterScaleUp(ng, d, now.Add(-time.Minute))
		}
	}
	// The DRA provider's informers, registered by NewAutoscaler.
	h.informerFactory.Start(h.ctx.Done())
	h.informerFactory.WaitForCacheSync(h.ctx.Done())
	// Nothing VolumeBinding assumes outlives the scenario: CA's simulator
	// runs no Reserve (predicate_snapshot.go) for pods without DRA claims.
	if err := h.setObjects(s); err != nil {
		return nil, 0, 0, fmt.Errorf("cluster objects: %v", err)
	}
	defer h.setObjects(&scenario{})

	start := time.Now()
	t := now
	for loop := 1; loop <= s.Options.maxLoops; loop++ {
		rec.loops = append(rec.loops, &loopRecord{loop: loop, time: t})
		if err := autoscaler.RunOnce(t); err != nil {
			return nil, loop, time.Since(start), fmt.Errorf("RunOnce (loop %d): %v", loop, err)
		}
		l := rec.cur()
		if l.scaleUp == nil || l.scaleUp.Result != status.ScaleUpSuccessful {
			break
		}
		t = t.Add(loopInterval)
	}
	elapsed := time.Since(start)
	autoscaler.ExitCleanUp()
	targets := map[string]int{}
	for _, ng := range tp.NodeGroups() {
		ts, _ := ng.TargetSize()
		targets[ng.Id()] = ts
	}
	return buildResult(s, rec, pending, targets), len(rec.loops), elapsed, nil
}

// ---- the result, in the corpus' field names ----

var scaleUpResultNames = map[status.ScaleUpResult]string{
	status.ScaleUpSuccessful:             "ScaleUpSuccessful",
	status.ScaleUpError:                  "ScaleUpError",
	status.ScaleUpNoOptionsAvailable:     "ScaleUpNoOptionsAvailable",
	status.ScaleUpNotNeeded:              "ScaleUpNotNeeded",
	status.ScaleUpNotTried:               "ScaleUpNotTried",
	status.ScaleUpInCooldown:             "ScaleUpInCooldown",
	status.ScaleUpLimitedByMaxNodesTotal: "ScaleUpLimitedByMaxNodesTotal",
}

var unremovableNames = map[simulator.UnremovableReason]string{
	simulator.NoReason:                         "NoReason",
	simulator.ScaleDownDisabledAnnotation:      "ScaleDownDisabledAnnotation",
	simulator.ScaleDownUnreadyDisabled:         "ScaleDownUnreadyDisabled",
	simulator.NotAutoscaled:                    "NotAutoscaled",
	simulator.NotUnneededLongEnough:            "NotUnneededLongEnough",
	simulator.NotUnreadyLongEnough:             "NotUnreadyLongEnough",
	simulator.NodeGroupMinSizeReached:          "NodeGroupMinSizeReached",
	simulator.NodeGroupMaxDeletionCountReached: "NodeGroupMaxDeletionCountReached",
	simulator.AtomicScaleDownFailed:            "AtomicScaleDownFailed",
	simulator.MinimalResourceLimitExceeded:     "MinimalResourceLimitExceeded",
	simulator.CurrentlyBeingDeleted:            "CurrentlyBeingDeleted",
	simulator.NotUnderutilized:                 "NotUnderutilized",
	simulator.NotUnneededOtherReason:           "NotUnneededOtherReason",
	simulator.RecentlyUnremovable:              "RecentlyUnremovable",
	simulator.NoPlaceToMovePods:                "NoPlaceToMovePods",
	simulator.BlockedByPod:                     "BlockedByPod",
	simulator.UnexpectedError:                  "UnexpectedError",
	simulator.NoNodeInfo:                       "NoNodeInfo",
	simulator.BlockedByOnCompletionPod:         "BlockedByOnCompletionPod",
}

func unremovableName(u *scaledownstatus.UnremovableNode) string {
	name, ok := unremovableNames[u.Reason]
	if !ok {
		name = fmt.Sprintf("UnremovableReason(%d)", int(u.Reason))
	}
	if u.Reason == simulator.BlockedByPod && u.BlockingPod != nil {
		name += "/" + u.BlockingPod.Reason.String()
	}
	return name
}

func round(x, scale float64) float64 {
	if x != x {
		return 0
	}
	return float64(int64(x*scale+0.5*sign(x))) / scale
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

func sortedCopy(a []string) []string {
	out := append([]string(nil), a...)
	sort.Strings(out)
	return out
}

func buildResult(s *scenario, rec *recorder, pending []*apiv1.Pod, targets map[string]int) map[string]any {
	out := map[string]any{}
	scaleUp := []map[string]any{}
	for _, l := range rec.loops {
		if l.scaleUp == nil || l.scaleUp.Result != status.ScaleUpSuccessful {
			continue
		}
		for _, info := range l.scaleUp.ScaleUpInfos {
			o := map[string]any{
				"loop":      l.loop,
				"nodeGroup": info.Group.Id(),
				"delta":     info.NewSize - info.CurrentSize,
			}
			if l.chosen != nil && l.chosen.group == info.Group.Id() {
				o["estimated"] = l.chosen.nodes
				o["pods"] = sortedCopy(l.chosen.pods)
			} else {
				// A similar group the scale-up was balanced onto (not with the default flags).
				o["estimated"] = info.NewSize - info.CurrentSize
				o["pods"] = []string{}
			}
			if len(l.tied) > 0 {
				o["tied"] = l.tied
			}
			considered := []map[string]any{}
			for _, op := range l.options {
				considered = append(considered, map[string]any{"nodeGroup": op.group, "nodeCount": op.nodes, "podCount": len(op.pods)})
			}
			sort.Slice(considered, func(i, j int) bool { return considered[i]["nodeGroup"].(string) < considered[j]["nodeGroup"].(string) })
			o["considered"] = considered
			scaleUp = append(scaleUp, o)
		}
	}
	out["scaleUp"] = scaleUp

	last := rec.loops[len(rec.loops)-1]
	unhelped := []string{}
	var noScaleUp []map[string]any
	if last.scaleUp != nil {
		type group struct {
			pods []string
			rej  map[string][]string
			skip map[string][]string
		}
		bySig := map[string]*group{}
		var order []string
		for _, info := range last.scaleUp.PodsRemainUnschedulable {
			unhelped = append(unhelped, podKey(info.Pod))
			rej, skip := reasonsMap(info.RejectedNodeGroups), reasonsMap(info.SkippedNodeGroups)
			sig := fmt.Sprint(rej, skip)
			g, ok := bySig[sig]
			if !ok {
				g = &group{rej: rej, skip: skip}
				bySig[sig] = g
				order = append(order, sig)
			}
			g.pods = append(g.pods, podKey(info.Pod))
		}
		for _, sig := range order {
			g := bySig[sig]
			o := map[string]any{"pods": sortedCopy(g.pods)}
			if len(g.rej) > 0 {
				o["rejected"] = g.rej
			}
			if len(g.skip) > 0 {
				o["skipped"] = g.skip
			}
			noScaleUp = append(noScaleUp, o)
		}
	}
	out["unhelped"] = sortedCopy(unhelped)
	if len(noScaleUp) > 0 {
		out["noScaleUp"] = noScaleUp
	}
	first := rec.loops[0]
	left := map[string]bool{}
	for _, k := range first.toHelp {
		left[k] = true
	}
	var fits []string
	for _, k := range first.unschedulable {
		if !left[k] {
			fits = append(fits, k)
		}
	}
	if len(fits) > 0 {
		out["fitsExisting"] = sortedCopy(fits)
	}
	optionsOut := []map[string]any{}
	for _, op := range first.options {
		optionsOut = append(optionsOut, map[string]any{"nodeGroup": op.group, "nodeCount": op.nodes, "pods": sortedCopy(op.pods)})
	}
	sort.Slice(optionsOut, func(i, j int) bool { return optionsOut[i]["nodeGroup"].(string) < optionsOut[j]["nodeGroup"].(string) })
	out["options"] = optionsOut
	out["loops"] = len(rec.loops)
	if last.scaleUp != nil {
		out["lastResult"] = scaleUpResultNames[last.scaleUp.Result]
	} else {
		out["lastResult"] = "ScaleUpNotTried"
	}
	if s.ScaleDown {
		out["scaleDown"] = scaleDownResult(s, rec, targets)
	}
	return out
}

func reasonsMap(m map[string]status.Reasons) map[string][]string {
	out := map[string][]string{}
	for g, r := range m {
		if r == nil {
			continue
		}
		out[g] = append([]string{}, r.Reasons()...)
	}
	return out
}

// scaleDownResult is the planner's view after the last loop: the nodes it
// found unneeded (CA deletes them once they stay unneeded for
// --scale-down-unneeded-time; the corpus calls them removable too), and for
// every other node why not, in CA's reason names. Two reasons are not CA's
// own records but the corpus' reading of what CA did: nodes outside any node
// group and nodes of groups at their min size are never candidates
// (PreFilteringScaleDownNodeProcessor drops them without a reason); they are
// reported NotAutoscaled and NodeGroupMinSizeReached. A node skipped as
// RecentlyUnremovable (found unremovable in an earlier loop, not rechecked for
// --unremovable-node-recheck-timeout) keeps the reason CA found then.
func scaleDownResult(s *scenario, rec *recorder, targets map[string]int) map[string]any {
	last := rec.loops[len(rec.loops)-1]
	unneeded := sortedCopy(last.unneeded)
	isUnneeded := map[string]bool{}
	for _, n := range unneeded {
		isUnneeded[n] = true
	}
	earlier := map[string]*scaledownstatus.UnremovableNode{}
	for _, l := range rec.loops {
		for _, u := range l.unremovable {
			if u.Reason != simulator.RecentlyUnremovable {
				earlier[u.Node.Name] = u
			}
		}
	}
	reasonOf := map[string]*scaledownstatus.UnremovableNode{}
	for _, u := range last.unremovable {
		if u.Reason == simulator.RecentlyUnremovable {
			if e, ok := earlier[u.Node.Name]; ok {
				u = e
			}
		}
		reasonOf[u.Node.Name] = u
	}
	groupOf := map[string]*groupSpec{}
	for i := range s.Groups {
		for _, n := range s.Groups[i].Nodes {
			groupOf[n] = &s.Groups[i]
		}
	}
	blocked := map[string]string{}
	blocking := map[string]string{}
	util := map[string]any{}
	for _, n := range s.Nodes {
		name := n.Name
		if isUnneeded[name] {
			continue
		}
		if u, ok := reasonOf[name]; ok {
			blocked[name] = unremovableName(u)
			if u.BlockingPod != nil && u.BlockingPod.Pod != nil {
				blocking[name] = podKey(u.BlockingPod.Pod)
			}
			if u.UtilInfo != nil {
				ui := u.UtilInfo
				o := map[string]any{"cpu": round(ui.CpuUtil, 1e4), "memory": round(ui.MemUtil, 1e4),
					"resource": string(ui.ResourceName), "value": round(ui.Utilization, 1e4)}
				if ui.GpuUtil != 0 {
					o["gpu"] = round(ui.GpuUtil, 1e4)
				}
				util[name] = o
			}
			continue
		}
		g := groupOf[name]
		switch {
		case g == nil:
			blocked[name] = "NotAutoscaled"
		case targets[g.Name] <= g.MinSize:
			blocked[name] = "NodeGroupMinSizeReached"
		default:
			blocked[name] = "NotUnneededOtherReason"
		}
	}
	out := map[string]any{
		"loop":      last.loop,
		"unneeded":  unneeded,
		"removable": unneeded,
		"blocked":   blocked,
	}
	if len(blocking) > 0 {
		out["blockingPods"] = blocking
	}
	if len(util) > 0 {
		out["utilization"] = util
	}
	return out
}
