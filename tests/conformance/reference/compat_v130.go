//go:build kube130

package main

// compat.go's switches for kube-scheduler v1.30. v1.30.14 predates most of
// the upstream changes they undo, so it already answers as 1.26 did there,
// and a switch that would change nothing is refused rather than accepted in
// silence. Three apply:
//
//	message-period       #123301 (1.30): no second period after the preemption message
//	prefilter-absent     #125197 (back-ported to 1.30): DefaultPreemption no longer
//	                     tries the nodes a PreFilter left out (the message, which
//	                     1.32 changed, does not count them yet)
//	image-locality-init  ImageLocality counts init containers' images
//
// `all` is those three.

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/imagelocality"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

var compatSwitches = []string{"message-period", "prefilter-absent", "image-locality-init"}

var compatRefused = map[string]string{
	"taint-message":       "TaintToleration names the taint, as in 1.26 (kubernetes#134740 is 1.35, back-ported to 1.32-1.34)",
	"balanced-allocation": "NodeResourcesBalancedAllocation scores the balance with the pod placed, as in 1.26 (kubernetes#135573 is 1.36)",
	"fit-unresolvable":    "NodeResourcesFit rejects a pod larger than allocatable as Unschedulable, as in 1.26 (kubernetes#131345 is 1.34)",
	"preemption-success":  "a preemption that finds room leaves no text, as in 1.26 (kubernetes#140180 is 1.37)",
	"dra-postfilter":      "DynamicResources is in no profile (its feature gate, DynamicResourceAllocation, is alpha and off)",
	"fit-score-pod-level": "there are no pod-level resources (KEP-2837, alpha in 1.32): spec.resources is not in its API",
}

func wrapFactory(r frameworkruntime.Registry, name string, wrap func(framework.Plugin, runtime.Object) framework.Plugin) {
	orig := r[name]
	r[name] = func(ctx context.Context, args runtime.Object, fh framework.Handle) (framework.Plugin, error) {
		p, err := orig(ctx, args, fh)
		if err != nil {
			return nil, err
		}
		return wrap(p, args), nil
	}
}

func (c *compatState) wrapRegistry(r frameworkruntime.Registry) {
	if c.enabled("image-locality-init") {
		wrapFactory(r, names.ImageLocality, func(p framework.Plugin, _ runtime.Object) framework.Plugin {
			return &compatImages{ImageLocality: p.(*imagelocality.ImageLocality), c: c}
		})
	}
}

// image-locality-init: 1.26 scored the app containers' images only, and its
// threshold counted the app containers only.
type compatImages struct {
	*imagelocality.ImageLocality
	c *compatState
}

func (i *compatImages) Score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) (int64, *framework.Status) {
	current, st := i.ImageLocality.Score(ctx, state, pod, nodeName)
	if len(pod.Spec.InitContainers) == 0 || !st.IsSuccess() {
		return current, st
	}
	p := pod.DeepCopy()
	p.Spec.InitContainers = nil
	old, st := i.ImageLocality.Score(ctx, state, p, nodeName)
	if old != current {
		i.c.mark("image-locality-init")
	}
	return old, st
}
