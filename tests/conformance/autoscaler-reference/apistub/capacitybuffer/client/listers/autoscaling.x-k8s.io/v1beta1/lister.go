// Package v1beta1 lists CapacityBuffers from an informer's indexer (see ../../../../../go.mod).
package v1beta1

import (
	"k8s.io/apimachinery/pkg/labels"
	buffers "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/autoscaling.x-k8s.io/v1beta1"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
)

// CapacityBufferLister lists buffers.
type CapacityBufferLister interface {
	List(selector labels.Selector) ([]*buffers.CapacityBuffer, error)
	CapacityBuffers(namespace string) CapacityBufferNamespaceLister
}

// CapacityBufferNamespaceLister lists the buffers of one namespace.
type CapacityBufferNamespaceLister interface {
	List(selector labels.Selector) ([]*buffers.CapacityBuffer, error)
	Get(name string) (*buffers.CapacityBuffer, error)
}

type lister struct {
	listers.ResourceIndexer[*buffers.CapacityBuffer]
}

// NewCapacityBufferLister lists the buffers of indexer.
func NewCapacityBufferLister(indexer cache.Indexer) CapacityBufferLister {
	return &lister{listers.New[*buffers.CapacityBuffer](indexer, buffers.SchemeGroupVersion.WithResource("capacitybuffers").GroupResource())}
}

func (l *lister) CapacityBuffers(namespace string) CapacityBufferNamespaceLister {
	return listers.NewNamespaced[*buffers.CapacityBuffer](l.ResourceIndexer, namespace)
}
