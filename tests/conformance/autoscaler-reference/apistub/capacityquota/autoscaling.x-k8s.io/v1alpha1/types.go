// Package v1alpha1 declares the CapacityQuota type as far as the
// cluster-autoscaler packages linked by the reference use it (see ../../../go.mod).
package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CapacityQuotaLimits are the quota's limits per resource.
type CapacityQuotaLimits struct {
	Resources corev1.ResourceList `json:"resources,omitempty"`
}

// CapacityQuotaSpec selects nodes and limits them.
type CapacityQuotaSpec struct {
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	Limits   CapacityQuotaLimits   `json:"limits"`
}

// CapacityQuota is one quota object.
type CapacityQuota struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CapacityQuotaSpec `json:"spec"`
}

// CapacityQuotaList is a list of quotas.
type CapacityQuotaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CapacityQuota `json:"items"`
}

// DeepCopy returns a deep copy of q.
func (q *CapacityQuota) DeepCopy() *CapacityQuota {
	if q == nil {
		return nil
	}
	out := &CapacityQuota{TypeMeta: q.TypeMeta}
	q.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if q.Spec.Selector != nil {
		out.Spec.Selector = q.Spec.Selector.DeepCopy()
	}
	out.Spec.Limits.Resources = q.Spec.Limits.Resources.DeepCopy()
	return out
}

// DeepCopyObject implements runtime.Object.
func (q *CapacityQuota) DeepCopyObject() runtime.Object { return q.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *CapacityQuotaList) DeepCopyObject() runtime.Object {
	out := &CapacityQuotaList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopy())
	}
	return out
}
