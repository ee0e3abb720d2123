//go:build !kube130

package main

// Compatibility switches (--compat): each one puts back, around the real
// v1.37.2 plugin, one behaviour of kube-scheduler 1.26 that the shared corpus
// was recorded with and that a later release changed. They exist to explain
// differences, not to hide them: the differential test compares the engine
// with the plain reference first, and only a scenario that disagrees there
// but agrees with the switches on is counted as a known difference, named by
// the switches that changed something in it. With every switch on, the
// reference reproduces the shared corpus (tests/conformance/README.md).
//
// Each switch names one upstream change (docs/conformance.md):
//
//	taint-message        #134740: TaintToleration's reason no longer names the taint
//	balanced-allocation  #135573: BalancedAllocation scores the change of balance
//	message-period       #123301: no second period after the preemption message
//	fit-unresolvable     #131345: a request above allocatable is UnschedulableAndUnresolvable
//	prefilter-absent     NodeToStatus (1.32): nodes a PreFilter left out count in the message
//	preemption-success   #140180: a successful preemption is reported in the message
//	dra-postfilter       DynamicResources (default since 1.34) fails its PostFilter after a PreFilter rejection
//	image-locality-init  ImageLocality counts init containers' images
//
// and one that is not a 1.26 behaviour but a defect of v1.37.2 that the engine
// does not reproduce (it follows KEP-2837 there):
//
//	fit-score-pod-level  NodeResourcesFit's score ignores pod-level requests
//	                     (spec.resources): its scorer never gets the
//	                     PodLevelResources gate, while its filter does

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourcehelper "k8s.io/component-helpers/resource"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/imagelocality"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

var compatSwitches = []string{
	"taint-message", "balanced-allocation", "message-period", "fit-unresolvable",
	"prefilter-absent", "preemption-success", "dra-postfilter", "image-locality-init",
	"fit-score-pod-level",
}

// compatRefused: every switch applies to v1.37 and v1.36 (compat_v130.go has some that do not).
var compatRefused map[string]string

func wrapFactory(r frameworkruntime.Registry, name string, wrap func(fwk.Plugin, runtime.Object) fwk.Plugin) {
	orig := r[name]
	r[name] = func(ctx context.Context, args runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
		p, err := orig(ctx, args, fh)
		if err != nil {
			return nil, err
		}
		return wrap(p, args), nil
	}
}

func (c *compatState) wrapRegistry(r frameworkruntime.Registry) {
	if c.enabled("taint-message") {
		wrapFactory(r, names.TaintToleration, func(p fwk.Plugin, _ runtime.Object) fwk.Plugin {
			return &compatTaint{TaintToleration: p.(*tainttoleration.TaintToleration), c: c}
		})
	}
	if c.enabled("balanced-allocation") {
		wrapFactory(r, names.NodeResourcesBalancedAllocation, func(p fwk.Plugin, args runtime.Object) fwk.Plugin {
			return &compatBalanced{BalancedAllocation: p.(*noderesources.BalancedAllocation), c: c,
				resources: args.(*config.NodeResourcesBalancedAllocationArgs).Resources}
		})
	}
	if c.enabled("fit-unresolvable") || c.enabled("fit-score-pod-level") {
		wrapFactory(r, names.NodeResourcesFit, func(p fwk.Plugin, _ runtime.Object) fwk.Plugin {
			return &compatFit{Fit: p.(*noderesources.Fit), c: c}
		})
	}
	if c.enabled("preemption-success") {
		wrapFactory(r, names.DefaultPreemption, func(p fwk.Plugin, _ runtime.Object) fwk.Plugin {
			return &compatPreemption{DefaultPreemption: p.(*defaultpreemption.DefaultPreemption), c: c}
		})
	}
	if c.enabled("dra-postfilter") {
		wrapFactory(r, names.DynamicResources, func(p fwk.Plugin, _ runtime.Object) fwk.Plugin {
			return &compatDRA{DynamicResources: p.(*dynamicresources.DynamicResources), c: c}
		})
	}
	if c.enabled("image-locality-init") {
		wrapFactory(r, names.ImageLocality, func(p fwk.Plugin, _ runtime.Object) fwk.Plugin {
			return &compatImages{ImageLocality: p.(*imagelocality.ImageLocality), c: c}
		})
	}
}

// taint-message: 1.26's reason names the first untolerated NoSchedule or
// NoExecute taint.
type compatTaint struct {
	*tainttoleration.TaintToleration
	c *compatState
}

func (t *compatTaint) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	s := t.TaintToleration.Filter(ctx, state, pod, nodeInfo)
	if s.IsSuccess() {
		return s
	}
	taint, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.FromContext(ctx), nodeInfo.Node().Spec.Taints,
		pod.Spec.Tolerations, helper.DoNotScheduleTaintsFilterFunc(),
		utilfeature.DefaultFeatureGate.Enabled(features.TaintTolerationComparisonOperators))
	if !untolerated {
		return s
	}
	t.c.mark("taint-message")
	return fwk.NewStatus(s.Code(), fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value))
}

// balanced-allocation: before #135573 the score was the balance with the
// pod placed, (1 - standard deviation of the requested fractions) * 100.
type compatBalanced struct {
	*noderesources.BalancedAllocation
	c         *compatState
	resources []config.ResourceSpec
}

func (b *compatBalanced) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	current, st := b.BalancedAllocation.Score(ctx, state, pod, nodeInfo)
	if !st.IsSuccess() {
		return current, st
	}
	opts := resourcehelper.PodResourcesOptions{
		UseStatusResources:    utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling),
		SkipPodLevelResources: !utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources),
	}
	podReqs := resourcehelper.PodRequests(pod.DeepCopy(), opts) // a copy: kubernetes/kubernetes#141241
	requested := make([]int64, len(b.resources))
	allocatable := make([]int64, len(b.resources))
	for i, r := range b.resources {
		name := v1.ResourceName(r.Name)
		q := podReqs[name]
		podReq := q.Value()
		if name == v1.ResourceCPU {
			podReq = q.MilliValue()
		}
		if podReq == 0 && schedutil.IsScalarResourceName(name) {
			continue
		}
		var alloc, used int64
		switch name {
		case v1.ResourceCPU:
			alloc, used = nodeInfo.GetAllocatable().GetMilliCPU(), nodeInfo.GetRequested().GetMilliCPU()
		case v1.ResourceMemory:
			alloc, used = nodeInfo.GetAllocatable().GetMemory(), nodeInfo.GetRequested().GetMemory()
		case v1.ResourceEphemeralStorage:
			alloc, used = nodeInfo.GetAllocatable().GetEphemeralStorage(), nodeInfo.GetRequested().GetEphemeralStorage()
		default:
			a, ok := nodeInfo.GetAllocatable().GetScalarResources()[name]
			if ok {
				alloc, used = a, nodeInfo.GetRequested().GetScalarResources()[name]
			}
		}
		if alloc == 0 {
			continue
		}
		allocatable[i] = alloc
		requested[i] = used + podReq
	}
	old := balanceScore(requested, allocatable)
	if old != current {
		b.c.mark("balanced-allocation")
	}
	return old, nil
}

// balanceScore: (1 - std of the fractions requested/allocatable, each at most 1) * 100.
func balanceScore(requested, allocatable []int64) int64 {
	var fractions []float64
	var total float64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		f := float64(requested[i]) / float64(allocatable[i])
		if f > 1 {
			f = 1
		}
		total += f
		fractions = append(fractions, f)
	}
	std := 0.0
	if len(fractions) == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	} else if len(fractions) > 2 {
		mean := total / float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum = sum + (f-mean)*(f-mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * float64(fwk.MaxNodeScore))
}

// fit-unresolvable: before #131345 NodeResourcesFit always returned
// Unschedulable, so preemption was tried on nodes too small for the pod.
type compatFit struct {
	*noderesources.Fit
	c *compatState
}

func (f *compatFit) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	s := f.Fit.Filter(ctx, state, pod, nodeInfo)
	if f.c.enabled("fit-unresolvable") && s.Code() == fwk.UnschedulableAndUnresolvable {
		f.c.mark("fit-unresolvable")
		return fwk.NewStatus(fwk.Unschedulable, s.Reasons()...)
	}
	return s
}

// preemption-success: before #140180 a successful preemption left no text.
type compatPreemption struct {
	*defaultpreemption.DefaultPreemption
	c *compatState
}

func (p *compatPreemption) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	r, s := p.DefaultPreemption.PostFilter(ctx, state, pod, m)
	if s.IsSuccess() && s.Message() != "" {
		p.c.mark("preemption-success")
		return r, fwk.NewStatus(fwk.Success)
	}
	return r, s
}

// dra-postfilter: DynamicResources, in the default profile since 1.34,
// fails its PostFilter when a PreFilter before it rejected the pod (its
// cycle state was never written), and that error's text ("not found")
// becomes the message's PostFilter part. 1.26 had no such plugin.
type compatDRA struct {
	*dynamicresources.DynamicResources
	c *compatState
}

func (d *compatDRA) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	r, s := d.DynamicResources.PostFilter(ctx, state, pod, m)
	if s.Code() == fwk.Error {
		d.c.mark("dra-postfilter")
		// What it answers for a pod without claims whose state it wrote.
		return nil, draNoClaims()
	}
	return r, s
}

// image-locality-init: 1.26 scored the app containers' images only.
type compatImages struct {
	*imagelocality.ImageLocality
	c *compatState
}

func (i *compatImages) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	current, st := i.ImageLocality.Score(ctx, state, pod, nodeInfo)
	if len(pod.Spec.InitContainers) == 0 || !st.IsSuccess() {
		return current, st
	}
	p := pod.DeepCopy()
	p.Spec.InitContainers = nil
	old, st := i.ImageLocality.Score(ctx, state, p, nodeInfo)
	if old != current {
		i.c.mark("image-locality-init")
	}
	return old, st
}

// fit-score-pod-level: score a pod with pod-level requests as KEP-2837 says
// (and as the engine does): as one container requesting the pod's effective
// requests, so that the scorer's defaults for missing cpu or memory apply
// as they do to any pod.
func podLevelAsContainer(pod *v1.Pod) *v1.Pod {
	if !utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources) || !resourcehelper.IsPodLevelRequestsSet(pod) {
		return nil
	}
	// On a copy: PodRequests writes the overhead into pod-level requests held
	// as inf.Dec (kubernetes/kubernetes#141241); the switch must not add a call.
	reqs := resourcehelper.PodRequests(pod.DeepCopy(), resourcehelper.PodResourcesOptions{
		ExcludeOverhead:    true,
		UseStatusResources: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling),
	})
	p := pod.DeepCopy()
	p.Spec.Resources = nil
	p.Spec.InitContainers = nil
	p.Spec.Containers = []v1.Container{{Name: "pod-level", Image: pod.Spec.Containers[0].Image,
		Resources: v1.ResourceRequirements{Requests: reqs}}}
	return p
}

func (f *compatFit) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	if f.c.enabled("fit-score-pod-level") {
		if p := podLevelAsContainer(pod); p != nil {
			f.c.mark("fit-score-pod-level")
			return f.Fit.PreScore(ctx, state, p, nodes)
		}
	}
	return f.Fit.PreScore(ctx, state, pod, nodes)
}
