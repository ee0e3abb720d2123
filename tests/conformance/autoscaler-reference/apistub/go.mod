// A stand-in for k8s.io/autoscaler/cluster-autoscaler/apis (the nested module
// of cluster-autoscaler's repository), whose version at the pinned commit the
// module proxy does not serve. It declares only what the cluster-autoscaler
// packages this reference links name: the CapacityBuffer and CapacityQuota
// types with a clientset, informer and lister for buffers. Both features are
// off at cluster-autoscaler's defaults (--capacity-buffer-controller-enabled,
// --capacity-quotas-enabled) and the reference never turns them on, so none of
// this runs; the clientset answers every call with an error.
module k8s.io/autoscaler/cluster-autoscaler/apis

go 1.25.0
