// cluster-autoscaler, as its own main.go and builder/autoscaler.go wire it at
// the commit the conformance reference pins, for the live cluster. Those two
// files import the nested module k8s.io/autoscaler/cluster-autoscaler/apis
// (ProvisioningRequest clients, CapacityBuffers, CapacityQuotas), of which
// the module proxy serves no version; everything else is cluster-autoscaler's
// own code, called as they call it. The differences, each a feature off at
// cluster-autoscaler's defaults or irrelevant to one process on loopback:
//
//   - no ProvisioningRequests (--enable-provisioning-requests, default false)
//   - no CapacityBuffer controller or pod injection (--capacity-buffer-*,
//     default false) and no CapacityQuota types in the manager's scheme
//   - no proactive scale-up (--enable-proactive-scaleup, default false)
//   - no leader election: one replica, started and stopped by the test
//
// Flags, options, processors, the loop and the cloud provider (-tags kwok:
// only the kwok provider) are cluster-autoscaler's.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/server/mux"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/config"
	"k8s.io/autoscaler/cluster-autoscaler/config/flags"
	"k8s.io/autoscaler/cluster-autoscaler/core"
	coreoptions "k8s.io/autoscaler/cluster-autoscaler/core/options"
	"k8s.io/autoscaler/cluster-autoscaler/core/podlistprocessor"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaleup/orchestrator"
	"k8s.io/autoscaler/cluster-autoscaler/debuggingsnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/loop"
	"k8s.io/autoscaler/cluster-autoscaler/metrics"
	ca_processors "k8s.io/autoscaler/cluster-autoscaler/processors"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodegroupset"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodeinfosprovider"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates/emptycandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates/previouscandidates"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/predicate"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/store"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/drainability/rules"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/options"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/scheduling"
	kube_util "k8s.io/autoscaler/cluster-autoscaler/utils/kubernetes"
	"k8s.io/autoscaler/cluster-autoscaler/version"
	"k8s.io/client-go/informers"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kube_flag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
}

// build is builder.AutoscalerBuilder.Build without the parts named above.
func build(ctx context.Context, o config.AutoscalingOptions, snapshotter debuggingsnapshot.DebuggingSnapshotter,
	mgr manager.Manager) (core.Autoscaler, *loop.LoopTrigger, error) {
	kubeClient := kube_util.CreateKubeClient(o.KubeClientOpts)
	trim := func(obj interface{}) (interface{}, error) {
		if accessor, err := meta.Accessor(obj); err == nil {
			accessor.SetManagedFields(nil)
		}
		return obj, nil
	}
	informerFactory := informers.NewSharedInformerFactoryWithOptions(kubeClient, 0, informers.WithTransform(trim))

	fwHandle, err := framework.NewHandle(ctx, informerFactory, o.SchedulerConfig, o.DynamicResourceAllocationEnabled, o.CSINodeAwareSchedulingEnabled)
	if err != nil {
		return nil, nil, err
	}
	deleteOptions := options.NewNodeDeleteOptions(o)
	drainabilityRules := rules.Default(deleteOptions)
	var snapshotStore clustersnapshot.ClusterSnapshotStore = store.NewDeltaSnapshotStore(o.ClusterSnapshotParallelism)
	opts := coreoptions.AutoscalerOptions{
		AutoscalingOptions:   o,
		FrameworkHandle:      fwHandle,
		ClusterSnapshot:      predicate.NewPredicateSnapshot(snapshotStore, fwHandle, o.DynamicResourceAllocationEnabled, o.PredicateParallelism, o.CSINodeAwareSchedulingEnabled),
		KubeClient:           kubeClient,
		InformerFactory:      informerFactory,
		DebuggingSnapshotter: snapshotter,
		DeleteOptions:        deleteOptions,
		DrainabilityRules:    drainabilityRules,
		ScaleUpOrchestrator:  orchestrator.New(),
		KubeClientNew:        mgr.GetClient(),
		KubeCache:            mgr.GetCache(),
	}
	opts.Processors = ca_processors.DefaultProcessors(o)
	opts.Processors.TemplateNodeInfoProvider = nodeinfosprovider.NewDefaultTemplateNodeInfoProvider(&o.NodeInfoCacheExpireTime, o.ForceDaemonSets)
	opts.Processors.PodListProcessor = podlistprocessor.NewDefaultPodListProcessor(scheduling.ScheduleAnywhere)

	sdCandidatesSorting := previouscandidates.NewPreviousCandidates()
	comparers := []scaledowncandidates.CandidatesComparer{
		emptycandidates.NewEmptySortingProcessor(emptycandidates.NewNodeInfoGetter(opts.ClusterSnapshot), deleteOptions, drainabilityRules),
		sdCandidatesSorting,
	}
	opts.Processors.ScaleDownCandidatesNotifier.Register(sdCandidatesSorting)
	cp := scaledowncandidates.NewCombinedScaleDownCandidatesProcessor()
	cp.Register(scaledowncandidates.NewScaleDownCandidatesSortingProcessor(comparers))
	if o.ScaleDownDelayTypeLocal {
		sdp := scaledowncandidates.NewScaleDownCandidatesDelayProcessor()
		cp.Register(sdp)
		opts.Processors.ScaleStateNotifier.Register(sdp)
	}
	opts.Processors.ScaleDownNodeProcessor = cp

	var comparator nodegroupset.NodeInfoComparator
	if len(o.BalancingLabels) > 0 {
		comparator = nodegroupset.CreateLabelNodeInfoComparator(o.BalancingLabels)
	} else {
		// The kwok provider takes the generic comparator, as in the builder.
		comparator = nodegroupset.CreateGenericNodeInfoComparator(o.BalancingExtraIgnoredLabels, o.NodeGroupSetRatios)
	}
	opts.Processors.NodeGroupSetProcessor = &nodegroupset.BalancingNodeGroupSetProcessor{Comparator: comparator}

	metrics.UpdateCPULimitsCores(o.MinCoresTotal, o.MaxCoresTotal)
	metrics.UpdateMemoryLimitsBytes(o.MinMemoryTotal, o.MaxMemoryTotal)
	metrics.InitMetrics()

	autoscaler, err := core.NewAutoscaler(ctx, opts, informerFactory)
	if err != nil {
		return nil, nil, err
	}
	informerFactory.Start(ctx.Done())
	klog.Info("Waiting for caches to sync...")
	for _, ok := range informerFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, nil, fmt.Errorf("failed to sync informer caches")
		}
	}
	podObserver := loop.StartPodObserver(ctx, kubeClient)
	return autoscaler, loop.NewLoopTrigger(autoscaler, nil, podObserver, o.ScanInterval), nil
}

func main() {
	klog.InitFlags(nil)
	featureGate := utilfeature.DefaultMutableFeatureGate
	loggingConfig := logsapi.NewLoggingConfiguration()
	if err := logsapi.AddFeatureGates(featureGate); err != nil {
		klog.Fatalf("Failed to add logging feature flags: %v", err)
	}
	logsapi.AddFlags(loggingConfig, pflag.CommandLine)
	featureGate.AddFlag(pflag.CommandLine)
	kube_flag.InitFlags()

	o := flags.AutoscalingOptions()
	if o.CloudProviderName != cloudprovider.KwokProviderName {
		klog.Fatalf("--cloud-provider=%q: this build has the kwok provider only", o.CloudProviderName)
	}
	if o.DynamicResourceAllocationEnabled != featureGate.Enabled(features.DynamicResourceAllocation) {
		if err := featureGate.SetFromMap(map[string]bool{string(features.DynamicResourceAllocation): o.DynamicResourceAllocationEnabled}); err != nil {
			klog.Fatalf("couldn't set the DRA feature gate to %v: %v", o.DynamicResourceAllocationEnabled, err)
		}
	}
	logs.InitLogs()
	logOpts, err := flags.ComputeLoggingOptions(pflag.CommandLine)
	if err != nil {
		klog.Fatalf("Failed to configure logging: %v", err)
	}
	if err := logsapi.ValidateAndApplyWithOptions(loggingConfig, logOpts, featureGate); err != nil {
		klog.Fatalf("Failed to validate and apply logging configuration: %v", err)
	}
	ctrl.SetLogger(klog.NewKlogr())
	klog.V(1).Infof("Cluster Autoscaler %s (tests/live/autoscaler)", version.ClusterAutoscalerVersion)

	healthCheck := metrics.NewHealthCheck(o.MaxInactivityTime, o.MaxFailingTime)
	snapshotter := debuggingsnapshot.NewDebuggingSnapshotter(o.DebuggingSnapshotEnabled)
	go func() {
		m := mux.NewPathRecorderMux("cluster-autoscaler")
		m.HandleFunc("/metrics", legacyregistry.Handler().ServeHTTP)
		m.HandleFunc("/health-check", healthCheck.ServeHTTP)
		klog.Fatalf("Failed to start metrics: %v", http.ListenAndServe(o.Address, m))
	}()

	metrics.RegisterAll(o.EmitPerNodeGroupMetrics)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := ctrl.NewManager(kube_util.GetKubeConfig(o.KubeClientOpts), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		LeaderElection:         false,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		PprofBindAddress:       "0",
	})
	if err != nil {
		klog.Fatalf("Failed to create manager: %v", err)
	}
	autoscaler, trigger, err := build(ctx, o, snapshotter, mgr)
	if err != nil {
		klog.Fatalf("Failed to create autoscaler: %v", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		autoscaler.ExitCleanUp()
		klog.Flush()
		os.Exit(0)
	}()
	healthCheck.StartMonitoring()
	if err := autoscaler.Start(); err != nil {
		klog.Fatalf("Failed to autoscaler background components: %v", err)
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		previousRun, lastRun := time.Now(), time.Now()
		for {
			select {
			case <-ctx.Done():
				return nil
			default:
				if o.FrequentLoopsEnabled {
					trigger.Wait(previousRun)
				} else {
					time.Sleep(o.ScanInterval)
				}
				previousRun, lastRun = lastRun, time.Now()
				loop.RunAutoscalerOnce(autoscaler, healthCheck, lastRun)
			}
		}
	})); err != nil {
		klog.Fatalf("Failed to add runnable to manager: %v", err)
	}
	if err := mgr.Start(ctx); err != nil {
		klog.Fatalf("Manager exited with error: %v", err)
	}
}
