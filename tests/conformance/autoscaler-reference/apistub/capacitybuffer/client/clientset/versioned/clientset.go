// Package versioned is a stand-in clientset for CapacityBuffers (see
// ../../../../go.mod): every call fails, as there is no API server.
package versioned

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	v1beta1 "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/autoscaling.x-k8s.io/v1beta1"
	"k8s.io/client-go/rest"
)

var errNoServer = errors.New("capacity buffers are not available in cluster-autoscaler-reference")

// CapacityBufferInterface reads and writes the buffers of one namespace.
type CapacityBufferInterface interface {
	List(ctx context.Context, opts metav1.ListOptions) (*v1beta1.CapacityBufferList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*v1beta1.CapacityBuffer, error)
	Update(ctx context.Context, b *v1beta1.CapacityBuffer, opts metav1.UpdateOptions) (*v1beta1.CapacityBuffer, error)
	UpdateStatus(ctx context.Context, b *v1beta1.CapacityBuffer, opts metav1.UpdateOptions) (*v1beta1.CapacityBuffer, error)
}

// AutoscalingV1beta1Interface is the API group's client.
type AutoscalingV1beta1Interface interface {
	CapacityBuffers(namespace string) CapacityBufferInterface
}

// Interface is the clientset.
type Interface interface {
	AutoscalingV1beta1() AutoscalingV1beta1Interface
}

// Clientset answers every call with an error.
type Clientset struct{}

type buffers struct{}

func (Clientset) AutoscalingV1beta1() AutoscalingV1beta1Interface { return group{} }

type group struct{}

func (group) CapacityBuffers(string) CapacityBufferInterface { return buffers{} }

func (buffers) List(context.Context, metav1.ListOptions) (*v1beta1.CapacityBufferList, error) {
	return nil, errNoServer
}
func (buffers) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errNoServer
}
func (buffers) Get(context.Context, string, metav1.GetOptions) (*v1beta1.CapacityBuffer, error) {
	return nil, errNoServer
}
func (buffers) Update(context.Context, *v1beta1.CapacityBuffer, metav1.UpdateOptions) (*v1beta1.CapacityBuffer, error) {
	return nil, errNoServer
}
func (buffers) UpdateStatus(context.Context, *v1beta1.CapacityBuffer, metav1.UpdateOptions) (*v1beta1.CapacityBuffer, error) {
	return nil, errNoServer
}

// NewForConfig returns the stand-in clientset.
func NewForConfig(*rest.Config) (*Clientset, error) { return &Clientset{}, nil }
