#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for the tests: etcd and
# kube-apiserver built from Go modules (tests/controlplane/build.sh), no
# kubelets (nodes are API objects; scheduling needs nothing more).
#
# As a library:
#   source tests/controlplane/controlplane.sh
#   controlplane_start DIR     # DIR: a fresh folder for certificates, data and logs
#   kubectl_api GET /api/v1/nodes
#   controlplane_restart_apiserver   # kill -9 kube-apiserver, start it again on the same port and etcd
#   controlplane_stop
#
# As a command (the processes outlive it, in their own session):
#   controlplane.sh start DIR                         # then: source DIR/env
#   controlplane.sh restart-apiserver DIR [--graceful]
#   controlplane.sh stop DIR
#
# CP_NODE_CONDITIONS=1 at start keeps TaintNodesByCondition on: a new node is
# tainted node.kubernetes.io/not-ready until the node lifecycle controller sees
# it Ready, as in a cluster with kubelets. Only for callers that give their
# nodes heartbeats (tests/live: kwok) and run that controller.
#
# CP_ADMISSION_CONFIG=FILE at start: kube-apiserver's --admission-control-config-file
# (kept as DIR/admission-config.yaml, for restarts too), e.g. the chart test's
# ResourceQuota limits on the system-*-critical PriorityClasses, as GKE configures them.
#
# After start: CP_URL (https://127.0.0.1:PORT), CP_TOKEN (an admin bearer token,
# group system:masters), CP_CA (the serving certificate), CP_KUBECONFIG, and
# CP_NOBODY_TOKEN / CP_NOBODY_KUBECONFIG (user tightpack-test-nobody: authenticated,
# no RBAC grants). DIR/env holds them as shell assignments (KEY=VALUE, values
# quoted with printf %q), DIR/etcd.pid and DIR/kube-apiserver.pid the process ids.
set -euo pipefail

CP_BIN=${CP_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/controlplane}
# Command mode starts the processes in a session of their own so that they
# outlive the command and ignore the caller's terminal signals.
CP_DETACH=${CP_DETACH:-}
CP_NODE_CONDITIONS=${CP_NODE_CONDITIONS:-}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Starts kube-apiserver on CP_API_PORT against CP_ETCD_URL (appending to its log)
# and records CP_APISERVER_PID.
_controlplane_launch_apiserver() {
  # Two admission plugins are off because no controller manager or kubelet
  # runs: ServiceAccount (no namespace gets its default service account, so
  # pods would be refused) and TaintNodesByCondition (every new node would keep
  # node.kubernetes.io/not-ready:NoSchedule, which only the node controller lifts).
  # With CP_NODE_CONDITIONS=1 the caller runs both (tests/live), and
  # TaintNodesByCondition stays on.
  # ExtendedResourceToleration is on, as GKE has it: tightpack's admission
  # (core/include/tightpack/admission.hpp) is checked against it. Privileged
  # containers are allowed, as every kubelet-backed cluster allows them
  # (zero-to-jupyterhub's block-cloud-metadata init container is one).
  local disabled_node_conditions=,TaintNodesByCondition
  [[ -z ${CP_NODE_CONDITIONS:-} ]] || disabled_node_conditions=
  local admission=()
  [[ ! -f $CP_DIR/admission-config.yaml ]] ||
    admission=(--admission-control-config-file "$CP_DIR/admission-config.yaml")
  $CP_DETACH "$CP_BIN/kube-apiserver" --etcd-servers "$CP_ETCD_URL" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$CP_API_PORT" \
    --tls-cert-file "$CP_DIR/apiserver.crt" --tls-private-key-file "$CP_DIR/apiserver.key" \
    --token-auth-file "$CP_DIR/tokens.csv" --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$CP_DIR/sa.pub" --service-account-signing-key-file "$CP_DIR/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --disable-admission-plugins "ServiceAccount${disabled_node_conditions}" \
    --enable-admission-plugins ExtendedResourceToleration --allow-privileged "${admission[@]}" \
    --endpoint-reconciler-type none \
    </dev/null >>"$CP_DIR/kube-apiserver.log" 2>&1 &
  CP_APISERVER_PID=$!
  echo "$CP_APISERVER_PID" >"$CP_DIR/kube-apiserver.pid"
}

# Waits (60 s at most) until kube-apiserver answers /readyz; 1 if it died or never did.
_controlplane_wait_ready() {
  local i
  for i in $(seq 1 600); do
    if curl -sf --cacert "$CP_CA" -H "Authorization: Bearer $CP_TOKEN" "$CP_URL/readyz" >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$CP_APISERVER_PID" 2>/dev/null || ! kill -0 "$CP_ETCD_PID" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "controlplane: kube-apiserver did not become ready; logs in $CP_DIR" >&2
  tail -20 "$CP_DIR/kube-apiserver.log" >&2
  return 1
}

_controlplane_write_env() {
  local name
  : >"$CP_DIR/env"
  for name in CP_URL CP_TOKEN CP_CA CP_KUBECONFIG CP_NOBODY_TOKEN CP_NOBODY_KUBECONFIG CP_DIR \
      CP_ETCD_URL CP_API_PORT CP_ETCD_PID CP_APISERVER_PID CP_NODE_CONDITIONS; do
    printf '%s=%q\n' "$name" "${!name}" >>"$CP_DIR/env"
  done
}

_controlplane_kubeconfig() { # FILE TOKEN USER
  cat >"$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "$CP_URL", certificate-authority: "$CP_CA"}}]
users: [{name: $3, user: {token: "$2"}}]
contexts: [{name: test, context: {cluster: test, user: $3}}]
current-context: test
KUBECONFIG
}

controlplane_start() {
  CP_DIR=$(mkdir -p "$1" && cd "$1" && pwd)
  local etcd_port peer_port
  etcd_port=$(free_port)
  peer_port=$(free_port)
  CP_API_PORT=$(free_port)
  CP_ETCD_URL="http://127.0.0.1:$etcd_port"
  # Serving certificate for 127.0.0.1, and the service-account signing key.
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
    -keyout "$CP_DIR/apiserver.key" -out "$CP_DIR/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$CP_DIR/sa.key" 2048 2>/dev/null
  openssl rsa -in "$CP_DIR/sa.key" -pubout -out "$CP_DIR/sa.pub" 2>/dev/null
  CP_TOKEN=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  CP_NOBODY_TOKEN=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  [[ -z ${CP_ADMISSION_CONFIG:-} ]] || cp "$CP_ADMISSION_CONFIG" "$CP_DIR/admission-config.yaml"
  # The second user has no groups besides system:authenticated and no RBAC
  # grants: every list or watch of the scheduler's resources is forbidden.
  {
    echo "$CP_TOKEN,tightpack-test-admin,1,system:masters"
    echo "$CP_NOBODY_TOKEN,tightpack-test-nobody,2"
  } >"$CP_DIR/tokens.csv"

  $CP_DETACH "$CP_BIN/etcd" --data-dir "$CP_DIR/etcd" --listen-client-urls "$CP_ETCD_URL" \
    --advertise-client-urls "$CP_ETCD_URL" --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" --log-level warn \
    </dev/null >"$CP_DIR/etcd.log" 2>&1 &
  CP_ETCD_PID=$!
  echo "$CP_ETCD_PID" >"$CP_DIR/etcd.pid"
  _controlplane_launch_apiserver
  CP_URL="https://127.0.0.1:$CP_API_PORT"
  CP_CA="$CP_DIR/apiserver.crt"
  CP_KUBECONFIG="$CP_DIR/kubeconfig"
  CP_NOBODY_KUBECONFIG="$CP_DIR/kubeconfig-nobody"
  _controlplane_kubeconfig "$CP_KUBECONFIG" "$CP_TOKEN" admin
  _controlplane_kubeconfig "$CP_NOBODY_KUBECONFIG" "$CP_NOBODY_TOKEN" nobody
  _controlplane_write_env
  if _controlplane_wait_ready; then
    export CP_URL CP_TOKEN CP_CA CP_KUBECONFIG CP_NOBODY_TOKEN CP_NOBODY_KUBECONFIG CP_DIR
    return 0
  fi
  controlplane_stop
  return 1
}

# SIGTERM, then SIGKILL after 5 s: kube-apiserver drains its watches slowly.
_controlplane_kill() { # PID [SIGNAL]
  local pid=$1 i
  kill "-${2:-TERM}" "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Not our child (command mode): wait until it is gone.
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

controlplane_stop() {
  local pid
  for pid in ${CP_APISERVER_PID:-} ${CP_ETCD_PID:-}; do
    _controlplane_kill "$pid"
  done
}

# Kills kube-apiserver (SIGKILL, or SIGTERM with --graceful) and starts it again
# on the same port and etcd; returns once it is ready.
controlplane_restart_apiserver() {
  local signal=KILL
  [[ ${1:-} == --graceful ]] && signal=TERM
  _controlplane_kill "$CP_APISERVER_PID" "$signal"
  echo "controlplane: kube-apiserver restarted at $(date -u +%FT%TZ)" >>"$CP_DIR/kube-apiserver.log"
  _controlplane_launch_apiserver
  _controlplane_write_env
  _controlplane_wait_ready
}

# kubectl_api METHOD PATH [JSON BODY]: the API as the admin, JSON out.
kubectl_api() {
  local method=$1 path=$2
  shift 2
  curl -sS --cacert "$CP_CA" -H "Authorization: Bearer $CP_TOKEN" -H 'Content-Type: application/json' \
    -X "$method" "$CP_URL$path" ${1:+--data "$1"}
}

_controlplane_load_env() {
  [[ -f $1/env ]] || { echo "controlplane: no control plane in $1 (no $1/env)" >&2; exit 1; }
  # shellcheck disable=SC1091
  source "$1/env"
}

_controlplane_main() {
  local usage="usage: controlplane.sh start DIR | stop DIR | restart-apiserver DIR [--graceful]"
  [[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
  case $1 in
    start)
      CP_DETACH=setsid
      controlplane_start "$2"
      echo "controlplane: kube-apiserver at $CP_URL (etcd pid $CP_ETCD_PID, kube-apiserver pid $CP_APISERVER_PID); source $CP_DIR/env"
      ;;
    stop)
      _controlplane_load_env "$2"
      controlplane_stop
      ;;
    restart-apiserver)
      _controlplane_load_env "$2"
      CP_DETACH=setsid
      controlplane_restart_apiserver "${3:-}"
      echo "controlplane: kube-apiserver restarted at $CP_URL (pid $CP_APISERVER_PID)"
      ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
}

# Run as a command (not sourced).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  _controlplane_main "$@"
fi
