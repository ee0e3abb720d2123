#!/usr/bin/env bash
# Builds the live cluster's parts that the test control plane lacks into
# build/live: kwok (sigs.k8s.io/kwok, from the module in kwok/, apart from the
# control plane's versions) and its stages, taken from the same module as
# files (kustomize/stage: a node becomes Ready and keeps its heartbeat; a
# bound pod becomes Running, completes, and goes when deleted); and
# cluster-autoscaler (autoscaler/: its own code at the commit the conformance
# reference pins, wired as its main does, -tags kwok). Go's caches live
# outside the clone, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../.. && pwd)/build/live
mkdir -p "$out"
start=$SECONDS
(cd kwok && GOFLAGS=-mod=mod go build -trimpath -o "$out/kwok" sigs.k8s.io/kwok/cmd/kwok)
# The module proxy serves cluster-autoscaler's pseudo-version as a zip only:
# gomodseed puts it into the module cache (tests/conformance/gomodseed).
ca=k8s.io/autoscaler/cluster-autoscaler
version=$(awk -v m="$ca" '$1 == m && $2 !~ /\/go.mod$/ { print $2 }' autoscaler/go.sum)
conformance=$(cd ../conformance && pwd)
(cd "$conformance/gomodseed" && GOFLAGS= go build -trimpath -o "$out/gomodseed" .)
"$out/gomodseed" -gosum "$PWD/autoscaler/go.sum" "$ca@$version"
(cd autoscaler && GOFLAGS=-mod=mod go build -trimpath -tags kwok -o "$out/cluster-autoscaler" .)
module=$(cd kwok && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
stages="$module/kustomize/stage"
# Two changes to kwok's node stages, so that a node boots as a kubelet's does:
# - node-booting (ours): a node with no Ready condition gets Ready=False at
#   once, as a kubelet posts on registering; the node lifecycle controller then
#   keeps it tainted node.kubernetes.io/not-ready, and cluster-autoscaler counts
#   it as starting. Nodes the autoscaler adds carry Ready=False from creation
#   (their templates' status, autoscaler.py's REGISTERING); this stage is for
#   nodes a test creates bare.
# - node-initialize (kwok's) takes a node from Ready=False to Ready at its
#   creation time plus its annotation tightpack.io/boot-seconds (none: at once),
#   an absolute time, so that updates meanwhile (taints, labels) do not restart
#   the wait. The kwok provider copies a group's template annotations onto the
#   nodes it creates, so a pool's template sets its boot time (a GPU node's
#   minutes).
booting='apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-booting
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '"'"'.status.conditions.[] | select( .type == "Ready" ) | .status'"'"'
      operator: '"'"'DoesNotExist'"'"'
  next:
    statusTemplate: |
      conditions:
      - lastHeartbeatTime: {{ Now | Quote }}
        lastTransitionTime: {{ Now | Quote }}
        message: "container runtime status check may not have completed yet"
        reason: KubeletNotReady
        status: "False"
        type: Ready'
ready_at='.metadata.annotations["tightpack.io/boot-seconds"] as $s | if $s then (.metadata.creationTimestamp | fromdate) + ($s | tonumber) | todate else empty end'
boot_delay='  delay:\n    durationMilliseconds: 0\n    durationFrom:\n      expressionFrom: '"'$ready_at'"'\n'
version=$(cd kwok && go list -m -f '{{.Version}}' sigs.k8s.io/kwok)
{
  echo "# node-booting, tests/live/build.sh"
  echo "$booting"
  echo "---"
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml pod/fast/pod-ready.yaml \
           pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "# $f, sigs.k8s.io/kwok $version"
    if [[ $f == node/fast/node-initialize.yaml ]]; then
      # from Ready=False (node-booting's) only, after the boot time
      awk -v delay="$boot_delay" '
        /^  next:/ && !done { printf "%s", delay; done = 1 }
        /operator: .NotIn./ && !op { sub(/NotIn/, "In"); op = 1; print; getline; print; getline
                                     print "      - '"'"'False'"'"'"; print "      - '"'"'Unknown'"'"'"; next }
        { print }' "$stages/$f"
    else
      cat "$stages/$f"
    fi
    echo "---"
  done
} > "$out/stages.yaml"
echo "live: built kwok, its stages and cluster-autoscaler in $((SECONDS - start)) s"
