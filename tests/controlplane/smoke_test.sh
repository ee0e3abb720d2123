#!/usr/bin/env bash
# The test control plane works: etcd and kube-apiserver start on loopback, a
# Node and a Pod are created as API objects, and the real kube-scheduler
# binds the pod and records the Scheduled event. The tightpack scheduler's
# end-to-end tests (issue 6) start from the same harness.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/controlplane.sh"
dir=$(mktemp -d)
trap 'kill ${sched_pid:-} 2>/dev/null || true; controlplane_stop; [[ ${KEEP:-} ]] || rm -rf "$dir"' EXIT
controlplane_start "$dir"

kubectl_api POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},"status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
# Status is a subresource: the node's allocatable is written there.
kubectl_api PUT /api/v1/nodes/node-a/status "$(kubectl_api GET /api/v1/nodes/node-a | python3 -c '
import json, sys
n = json.load(sys.stdin)
n["status"] = {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
               "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
               "conditions": [{"type": "Ready", "status": "True", "reason": "Test", "message": "no kubelet"}]}
print(json.dumps(n))')" >/dev/null
kubectl_api POST /api/v1/namespaces/default/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"worker"},"spec":{"containers":[{"name":"w","image":"busybox","resources":{"requests":{"cpu":"1"}}}]}}' >/dev/null

"$CP_BIN/kube-scheduler" --kubeconfig "$CP_KUBECONFIG" --authentication-kubeconfig "$CP_KUBECONFIG" \
  --authorization-kubeconfig "$CP_KUBECONFIG" --leader-elect=false --secure-port 0 \
  >"$dir/kube-scheduler.log" 2>&1 &
sched_pid=$!

for i in $(seq 1 100); do
  node=$(kubectl_api GET /api/v1/namespaces/default/pods/worker | python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"].get("nodeName",""))')
  [[ -n $node ]] && break
  sleep 0.1
done
if [[ $node != node-a ]]; then
  echo "smoke_test: kube-scheduler did not bind the pod (logs in $dir with KEEP=1)"; grep -v "^I" "$dir/kube-scheduler.log" | tail -20; kubectl_api GET /api/v1/namespaces/default/pods/worker | python3 -c "import json,sys; print(json.load(sys.stdin)[\"status\"])"; exit 1
fi
# Events are sent in batches after the binding.
for i in $(seq 1 100); do
  events=$(kubectl_api GET "/apis/events.k8s.io/v1/namespaces/default/events")
  grep -q '"reason": *"Scheduled"' <<<"$events" && break
  sleep 0.1
done
grep -q '"reason": *"Scheduled"' <<<"$events" || { echo "smoke_test: no Scheduled event: $events"; exit 1; }
echo "smoke_test: kube-scheduler bound default/worker to node-a on a kube-apiserver at $CP_URL"
