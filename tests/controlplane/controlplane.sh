#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for the tests: etcd and
# kube-apiserver built from Go modules (tests/controlplane/build.sh), no
# kubelets (nodes are API objects; scheduling needs nothing more).
#
#   source tests/controlplane/controlplane.sh
#   controlplane_start DIR     # DIR: a fresh folder for certificates, data and logs
#   kubectl_api GET /api/v1/nodes
#   controlplane_stop
#
# After start: CP_URL (https://127.0.0.1:PORT), CP_TOKEN (an admin bearer token,
# group system:masters), CP_CA (the serving certificate), CP_KUBECONFIG.
set -euo pipefail

CP_BIN=${CP_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/controlplane}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

controlplane_start() {
  CP_DIR=$1
  mkdir -p "$CP_DIR"
  local etcd_port peer_port api_port
  etcd_port=$(free_port)
  peer_port=$(free_port)
  api_port=$(free_port)
  # Serving certificate for 127.0.0.1, and the service-account signing key.
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
    -keyout "$CP_DIR/apiserver.key" -out "$CP_DIR/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$CP_DIR/sa.key" 2048 2>/dev/null
  openssl rsa -in "$CP_DIR/sa.key" -pubout -out "$CP_DIR/sa.pub" 2>/dev/null
  CP_TOKEN=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  echo "$CP_TOKEN,tightpack-test-admin,1,system:masters" >"$CP_DIR/tokens.csv"

  "$CP_BIN/etcd" --data-dir "$CP_DIR/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
    --advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" --log-level warn \
    >"$CP_DIR/etcd.log" 2>&1 &
  CP_ETCD_PID=$!
  # Two admission plugins are off because no controller manager or kubelet
  # runs: ServiceAccount (no namespace gets its default service account, so
  # pods would be refused) and TaintNodesByCondition (every new node would keep
  # node.kubernetes.io/not-ready:NoSchedule, which only the node controller lifts).
  "$CP_BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$CP_DIR/apiserver.crt" --tls-private-key-file "$CP_DIR/apiserver.key" \
    --token-auth-file "$CP_DIR/tokens.csv" --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$CP_DIR/sa.pub" --service-account-signing-key-file "$CP_DIR/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 --disable-admission-plugins ServiceAccount,TaintNodesByCondition \
    --endpoint-reconciler-type none \
    >"$CP_DIR/kube-apiserver.log" 2>&1 &
  CP_APISERVER_PID=$!
  CP_URL="https://127.0.0.1:$api_port"
  CP_CA="$CP_DIR/apiserver.crt"
  CP_KUBECONFIG="$CP_DIR/kubeconfig"
  cat >"$CP_KUBECONFIG" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "$CP_URL", certificate-authority: "$CP_CA"}}]
users: [{name: admin, user: {token: "$CP_TOKEN"}}]
contexts: [{name: test, context: {cluster: test, user: admin}}]
current-context: test
KUBECONFIG
  local i
  for i in $(seq 1 600); do
    if curl -sf --cacert "$CP_CA" -H "Authorization: Bearer $CP_TOKEN" "$CP_URL/readyz" >/dev/null 2>&1; then
      export CP_URL CP_TOKEN CP_CA CP_KUBECONFIG CP_DIR
      return 0
    fi
    if ! kill -0 "$CP_APISERVER_PID" 2>/dev/null || ! kill -0 "$CP_ETCD_PID" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "controlplane: kube-apiserver did not become ready; logs in $CP_DIR" >&2
  tail -20 "$CP_DIR/kube-apiserver.log" >&2
  controlplane_stop
  return 1
}

# SIGTERM, then SIGKILL after 5 s: kube-apiserver drains its watches slowly.
controlplane_stop() {
  local pid i
  for pid in ${CP_APISERVER_PID:-} ${CP_ETCD_PID:-}; do
    kill "$pid" 2>/dev/null || continue
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}

# kubectl_api METHOD PATH [JSON BODY]: the API as the admin, JSON out.
kubectl_api() {
  local method=$1 path=$2
  shift 2
  curl -sS --cacert "$CP_CA" -H "Authorization: Bearer $CP_TOKEN" -H 'Content-Type: application/json' \
    -X "$method" "$CP_URL$path" ${1:+--data "$1"}
}
