#!/usr/bin/env bash
# The Helm chart (deploy/helm/tightpack) against the real kube-apiserver of the test
# control plane; the checks are in deploy/test_chart.py.
#
#   deploy/test_chart.sh                       # ~2 min on 2 vCPUs once Helm and the control plane are built
#   deploy/test_chart.sh --skip-rbac-matrix    # without the one-rule-removed runs (~15 s)
#
# Builds what is missing: Helm from its Go module (deploy/helm/build_helm.sh, 3.5 min cold)
# and the control plane (tests/controlplane/build.sh). After deploy/test_image.sh, the
# releases name its pushed image by digest and the scheduler runs are the pulled layer's
# binary; otherwise (or with TIGHTPACK=path) build/release/scheduler/tightpack.
#
# Output: build/chart-tests/ (rendered manifests, helm install output, each scheduler's
# log and configuration under run/, the RBAC table rbac.md that docs/deploy.md quotes).
# The ServiceMonitor is rendered and linted but not sent to the API server: the test
# control plane has no Prometheus operator CRDs, and none can be downloaded here.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
out=build/chart-tests

deploy/helm/build_helm.sh
if [[ ! -x build/controlplane/kube-apiserver || ! -x build/controlplane/etcd ]]; then
  tests/controlplane/build.sh
fi
# The image deploy/test_image.sh pushed and pulled: the releases' Deployments name it by
# digest, and the scheduler runs are its binary, the bytes of the pulled layer.
image_args=()
if [[ -z ${TIGHTPACK:-} && -s build/image-test/digest && -s build/image-test/repository &&
      -x build/image-test/rootfs/usr/local/bin/tightpack ]]; then
  image_args=(--image "$(cat build/image-test/repository)@$(cat build/image-test/digest)")
  tightpack=build/image-test/rootfs/usr/local/bin/tightpack
  echo "test_chart: the image ${image_args[1]} (deploy/test_image.sh), its binary"
else
  tightpack=${TIGHTPACK:-build/release/scheduler/tightpack}
  echo "test_chart: no pulled image (run deploy/test_image.sh first): the chart's default image, $tightpack"
fi
[[ -x $tightpack ]] || { echo "test_chart: $tightpack is not built" >&2; exit 1; }
# The project's Python environment (scripts/python_env.sh) has PyYAML.
[[ -x build/venv/bin/python ]] || bash scripts/python_env.sh
py=build/venv/bin/python
$py -c 'import yaml' 2>/dev/null || { echo "test_chart: build/venv lacks PyYAML (scripts/python_env.sh)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
# A copy: the binary under build/ may be relinked while the test runs.
for _ in $(seq 1 60); do
  if "$tightpack" schedule --help >/dev/null 2>&1 && cp "$tightpack" "$out/tightpack"; then break; fi
  echo "test_chart: $tightpack cannot run (being rebuilt?); retrying" >&2
  sleep 2
done
[[ -x $out/tightpack ]] || { echo "test_chart: no runnable $tightpack" >&2; exit 1; }
echo "test_chart: tightpack binary: $tightpack"
cp_dir=$PWD/$out/controlplane
# As GKE (and Kubernetes' own cluster/gce scripts) configure ResourceQuota admission: a pod
# of a system-*-critical PriorityClass is admitted only where a ResourceQuota covers that
# class; kube-system has one. values-daskhub-gke.yaml's pods must still start.
cat >"$out/admission-config.yaml" <<'YAML'
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ResourceQuota
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: ResourceQuotaConfiguration
      limitedResources:
        - resource: pods
          matchScopes:
            - scopeName: PriorityClass
              operator: In
              values: [system-node-critical, system-cluster-critical]
YAML
export CP_ADMISSION_CONFIG=$PWD/$out/admission-config.yaml
trap 'tests/controlplane/controlplane.sh stop "$cp_dir" >/dev/null 2>&1 || true' EXIT
tests/controlplane/controlplane.sh start "$cp_dir"
status=0
$py deploy/test_chart.py --helm build/helm/helm --tightpack "$out/tightpack" --cp-dir "$cp_dir" --out "$out" \
  "${image_args[@]}" "$@" ||
  status=$?
echo "test_chart: exit $status in $((SECONDS - start)) s (output in $out)"
exit $status
