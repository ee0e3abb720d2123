// test-provisioner: a dynamic provisioner for the test control plane, built on
// sig-storage-lib-external-provisioner, the library of kubernetes-csi's
// external-provisioner. It makes no storage: for each claim of a class whose
// provisioner is --name it returns the PersistentVolume a zonal CSI driver
// (GKE's PD driver, EBS, Azure Disk) would, in the zone of the node the
// scheduler selected for a WaitForFirstConsumer claim, or in the class's
// allowed zone for an Immediate one. The library does the rest as it does in
// production: it watches claims for the PV controller's storage-provisioner
// annotation, creates the PV with the claim as its claimRef, records events,
// and removes the selected node when a provisioner asks for another one.
//
//	test-provisioner --kubeconfig FILE --name pd.csi.storage.gke.io \
//	    --topology-key topology.gke.io/zone [--delay 2s] [--refuse]
//
// --delay holds each answer back (a disk takes time to create); --refuse gives
// up on every selected node (ProvisioningReschedule), as a provisioner without
// capacity in that zone does, so that the scheduler must choose again.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

type zonalProvisioner struct {
	client      kubernetes.Interface
	driver      string
	topologyKey string
	delay       time.Duration
	refuse      bool
}

func (p *zonalProvisioner) Provision(ctx context.Context, o controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	select {
	case <-time.After(p.delay):
	case <-ctx.Done():
		return nil, controller.ProvisioningInBackground, ctx.Err()
	}
	zone, err := p.zone(ctx, o)
	if err != nil {
		return nil, controller.ProvisioningReschedule, err
	}
	if p.refuse {
		return nil, controller.ProvisioningReschedule,
			fmt.Errorf("no capacity for a disk in zone %q (node %q); choose another node", zone, o.SelectedNodeName)
	}
	reclaim := v1.PersistentVolumeReclaimDelete
	if o.StorageClass.ReclaimPolicy != nil {
		reclaim = *o.StorageClass.ReclaimPolicy
	}
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: o.PVName},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: reclaim,
			AccessModes:                   o.PVC.Spec.AccessModes,
			MountOptions:                  o.StorageClass.MountOptions,
			VolumeMode:                    o.PVC.Spec.VolumeMode,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: o.PVC.Spec.Resources.Requests[v1.ResourceStorage]},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver:       p.driver,
				VolumeHandle: fmt.Sprintf("projects/test/zones/%s/disks/%s", zone, o.PVName),
				FSType:       "ext4",
			}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: p.topologyKey, Operator: v1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
	}, controller.ProvisioningFinished, nil
}

// zone is the selected node's zone, or the class's first allowed one.
func (p *zonalProvisioner) zone(ctx context.Context, o controller.ProvisionOptions) (string, error) {
	if o.SelectedNodeName != "" {
		node, err := p.client.CoreV1().Nodes().Get(ctx, o.SelectedNodeName, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("selected node %q: %w", o.SelectedNodeName, err)
		}
		zone := node.Labels[p.topologyKey]
		if zone == "" {
			return "", fmt.Errorf("selected node %q has no label %s", o.SelectedNodeName, p.topologyKey)
		}
		return zone, nil
	}
	for _, term := range o.StorageClass.AllowedTopologies {
		for _, e := range term.MatchLabelExpressions {
			if e.Key == p.topologyKey && len(e.Values) > 0 {
				return e.Values[0], nil
			}
		}
	}
	return "", fmt.Errorf("claim %s/%s: no selected node and class %q allows no %s", o.PVC.Namespace, o.PVC.Name,
		o.StorageClass.Name, p.topologyKey)
}

// Delete has no storage to remove.
func (p *zonalProvisioner) Delete(context.Context, *v1.PersistentVolume) error { return nil }

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server")
	name := flag.String("name", "", "the provisioner's name, as StorageClasses give it (also the PVs' CSI driver)")
	topologyKey := flag.String("topology-key", "topology.kubernetes.io/zone", "the node label that holds the zone")
	delay := flag.Duration("delay", 0, "time each answer is held back")
	refuse := flag.Bool("refuse", false, "give up on every selected node (ProvisioningReschedule)")
	flag.Parse()
	if *kubeconfig == "" || *name == "" {
		fmt.Fprintln(os.Stderr, "test-provisioner: --kubeconfig and --name are required")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "test-provisioner: --kubeconfig %s: %v\n", *kubeconfig, err)
		os.Exit(1)
	}
	client := kubernetes.NewForConfigOrDie(config)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p := &zonalProvisioner{client: client, driver: *name, topologyKey: *topologyKey, delay: *delay, refuse: *refuse}
	pc := controller.NewProvisionController(ctx, client, *name, p,
		controller.LeaderElection(false),
		controller.FailedProvisionThreshold(0),
		controller.ExponentialBackOffOnError(false))
	klog.Infof("test-provisioner %s (zones from %s, delay %s, refuse %t)", *name, *topologyKey, *delay, *refuse)
	pc.Run(ctx)
}
