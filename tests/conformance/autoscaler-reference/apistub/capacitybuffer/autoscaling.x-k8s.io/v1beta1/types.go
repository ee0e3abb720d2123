// Package v1beta1 declares the CapacityBuffer type as far as the
// cluster-autoscaler packages linked by the reference use it (see ../../../go.mod).
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is the buffers' API group and version.
var SchemeGroupVersion = schema.GroupVersion{Group: "autoscaling.x-k8s.io", Version: "v1beta1"}

// LocalObjectRef names an object in the buffer's namespace.
type LocalObjectRef struct {
	Name string `json:"name"`
}

// ScalableRef names a scalable object.
type ScalableRef struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// CapacityBufferSpec is the desired buffer.
type CapacityBufferSpec struct {
	ProvisioningStrategy *string         `json:"provisioningStrategy,omitempty"`
	PodTemplateRef       *LocalObjectRef `json:"podTemplateRef,omitempty"`
	ScalableRef          *ScalableRef    `json:"scalableRef,omitempty"`
	Replicas             *int32          `json:"replicas,omitempty"`
	Percentage           *int32          `json:"percentage,omitempty"`
}

// CapacityBufferStatus is the buffer's observed state.
type CapacityBufferStatus struct {
	PodTemplateRef        *LocalObjectRef    `json:"podTemplateRef,omitempty"`
	Replicas              *int32             `json:"replicas,omitempty"`
	PodTemplateGeneration *int64             `json:"podTemplateGeneration,omitempty"`
	ProvisioningStrategy  *string            `json:"provisioningStrategy,omitempty"`
	Conditions            []metav1.Condition `json:"conditions,omitempty"`
}

// CapacityBuffer is one buffer object.
type CapacityBuffer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CapacityBufferSpec   `json:"spec"`
	Status            CapacityBufferStatus `json:"status,omitempty"`
}

// CapacityBufferList is a list of buffers.
type CapacityBufferList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CapacityBuffer `json:"items"`
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DeepCopyInto copies b into out.
func (b *CapacityBuffer) DeepCopyInto(out *CapacityBuffer) {
	*out = *b
	out.TypeMeta = b.TypeMeta
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = CapacityBufferSpec{
		ProvisioningStrategy: copyPtr(b.Spec.ProvisioningStrategy),
		PodTemplateRef:       copyPtr(b.Spec.PodTemplateRef),
		ScalableRef:          copyPtr(b.Spec.ScalableRef),
		Replicas:             copyPtr(b.Spec.Replicas),
		Percentage:           copyPtr(b.Spec.Percentage),
	}
	out.Status = CapacityBufferStatus{
		PodTemplateRef:        copyPtr(b.Status.PodTemplateRef),
		Replicas:              copyPtr(b.Status.Replicas),
		PodTemplateGeneration: copyPtr(b.Status.PodTemplateGeneration),
		ProvisioningStrategy:  copyPtr(b.Status.ProvisioningStrategy),
	}
	for _, c := range b.Status.Conditions {
		var cc metav1.Condition
		c.DeepCopyInto(&cc)
		out.Status.Conditions = append(out.Status.Conditions, cc)
	}
}

// DeepCopy returns a deep copy of b.
func (b *CapacityBuffer) DeepCopy() *CapacityBuffer {
	if b == nil {
		return nil
	}
	out := new(CapacityBuffer)
	b.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (b *CapacityBuffer) DeepCopyObject() runtime.Object { return b.DeepCopy() }

// DeepCopy returns a deep copy of l.
func (l *CapacityBufferList) DeepCopy() *CapacityBufferList {
	if l == nil {
		return nil
	}
	out := &CapacityBufferList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopy())
	}
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *CapacityBufferList) DeepCopyObject() runtime.Object { return l.DeepCopy() }
