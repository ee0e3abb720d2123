// Package externalversions is a stand-in informer factory for CapacityBuffers
// (see ../../../../go.mod).
package externalversions

import (
	"context"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	buffers "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/autoscaling.x-k8s.io/v1beta1"
	"k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/client/clientset/versioned"
	listers "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/client/listers/autoscaling.x-k8s.io/v1beta1"
	"k8s.io/client-go/tools/cache"
)

// CapacityBufferInformer gives the buffers' shared informer and lister.
type CapacityBufferInformer interface {
	Informer() cache.SharedIndexInformer
	Lister() listers.CapacityBufferLister
}

// V1beta1 is the version's informers.
type V1beta1 interface{ CapacityBuffers() CapacityBufferInformer }

// Group is the API group's informers.
type Group interface{ V1beta1() V1beta1 }

// SharedInformerFactory makes the informers.
type SharedInformerFactory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool
	Autoscaling() Group
}

type factory struct {
	client   versioned.Interface
	resync   time.Duration
	informer cache.SharedIndexInformer
}

// NewSharedInformerFactory returns a factory over client.
func NewSharedInformerFactory(client versioned.Interface, resync time.Duration) SharedInformerFactory {
	return &factory{client: client, resync: resync}
}

func (f *factory) Start(stopCh <-chan struct{}) {
	if f.informer != nil {
		go f.informer.Run(stopCh)
	}
}

func (f *factory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	if f.informer == nil {
		return map[reflect.Type]bool{}
	}
	return map[reflect.Type]bool{reflect.TypeOf(&buffers.CapacityBuffer{}): cache.WaitForCacheSync(stopCh, f.informer.HasSynced)}
}

func (f *factory) Autoscaling() Group                      { return f }
func (f *factory) V1beta1() V1beta1                        { return f }
func (f *factory) CapacityBuffers() CapacityBufferInformer { return f }

func (f *factory) Informer() cache.SharedIndexInformer {
	if f.informer == nil {
		lw := &cache.ListWatch{
			ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
				return f.client.AutoscalingV1beta1().CapacityBuffers("").List(context.TODO(), o)
			},
			WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
				return f.client.AutoscalingV1beta1().CapacityBuffers("").Watch(context.TODO(), o)
			},
		}
		f.informer = cache.NewSharedIndexInformer(lw, &buffers.CapacityBuffer{}, f.resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	return f.informer
}

func (f *factory) Lister() listers.CapacityBufferLister {
	return listers.NewCapacityBufferLister(f.Informer().GetIndexer())
}
