"""`tightpack schedule` given bad input: an invalid configuration file exits non-zero naming
the file and what is wrong; an unreachable API server and a token without rights are logged
and retried without a crash (the process stays up, /healthz answers, /readyz does not)."""

from __future__ import annotations

import re
import subprocess
import time

import pytest
from harness import TIGHTPACK, closed_port, require_schedule_command, wait_for

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
CRASH = re.compile(r"Segmentation fault|core dumped|terminate called|Aborted|AddressSanitizer|panic", re.I)

BAD_CONFIGS = {
    # file, then what the message must name besides the file ({file}: the file's path)
    "yaml-syntax-error": (
        HEADER + "profiles:\n  - schedulerName: tightpack\n    plugins: {score: {enabled: [{name: NodeAffinity\n",
        [r"line \d+|{file}:\d+"]),  # where: a line number
    "wrong-kind": (
        "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n",
        [r"\bkind\b|\bapiVersion\b"]),  # the wrong kind of file, before any of its fields
    "unknown-plugin": (
        HEADER + "profiles:\n  - schedulerName: tightpack\n    plugins:\n      score:\n"
        "        enabled:\n          - name: NoSuchPlugin\n            weight: 1\n",
        [r"NoSuchPlugin"]),
}


def run_schedule(args: list, timeout: float = 20) -> subprocess.CompletedProcess:
    require_schedule_command()
    try:
        return subprocess.run([str(TIGHTPACK), "schedule", *args], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"tightpack schedule {' '.join(args)} still ran after {timeout} s: "
                    f"{(e.stdout or b'')[-1500:]!r} {(e.stderr or b'')[-1500:]!r}", pytrace=False)


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_invalid_configuration_is_refused_naming_file_and_field(case, tmp_path, control_plane):
    text, patterns = BAD_CONFIGS[case]
    config = tmp_path / f"{case}.yaml"
    config.write_text(text)
    kubeconfig = control_plane.write_kubeconfig(tmp_path / "kubeconfig", server=f"https://127.0.0.1:{closed_port()}")
    r = run_schedule(["--config", str(config), "--kubeconfig", str(kubeconfig), "--listen", "127.0.0.1:0"])
    out = r.stdout + r.stderr
    print(f"\n{case}: exit {r.returncode}: {out.strip()[:600]}")
    assert r.returncode > 0, f"exit status {r.returncode} (a signal if negative): {out[-1500:]}"
    assert not CRASH.search(out), out[-1500:]
    assert str(config) in out, f"the message does not name {config}: {out[-1500:]}"
    rest = out.replace(str(config), "<file>")  # the file's own name says "wrong-kind"
    for pattern in patterns:
        pattern = pattern.replace("{file}", re.escape("<file>"))
        assert re.search(pattern, rest), f"{pattern!r} not in the message: {out[-1500:]}"


def test_missing_config_flag_is_a_usage_error(tmp_path):
    r = run_schedule(["--listen", "127.0.0.1:0"])
    out = r.stdout + r.stderr
    assert r.returncode > 0 and "--config" in out, f"exit {r.returncode}: {out[-1000:]}"


def test_unreachable_api_server_is_retried_without_crash(cluster, schedulers, tmp_path):
    port = closed_port()
    kubeconfig = cluster.cp.write_kubeconfig(tmp_path / "kubeconfig", server=f"https://127.0.0.1:{port}")
    tp = schedulers.tightpack(kubeconfig=str(kubeconfig))

    def attempts():
        return len([ln for ln in tp.log_text().splitlines() if f"127.0.0.1:{port}" in ln])

    first = wait_for(attempts, 10, f"a logged attempt to reach 127.0.0.1:{port}")
    time.sleep(1)
    wait_for(lambda: attempts() > first, 15, f"a retry logged after the first attempts ({first} lines)")
    time.sleep(2)
    assert tp.alive(), tp.describe(30)
    assert tp.get("/healthz")[0] == 200
    status, body = tp.get("/readyz")
    assert status == 503, f"/readyz answered {status} {body!r} without a synced cache"
    log = tp.log_text()
    assert not CRASH.search(log), log[-1500:]
    assert re.search(r"refused|unreachable|connect", log, re.I), tp.log_tail(20)


@pytest.mark.parametrize("flavour", ["kube-z2jh", "tightpack"])
def test_token_without_rights_logs_forbidden_and_keeps_running(cluster, schedulers, flavour):
    nobody = cluster.cp.nobody_kubeconfig
    sched = schedulers.flavour(flavour, kubeconfig=nobody)
    wait_for(lambda: "forbidden" in sched.log_text().lower(), 20, f"{sched.label} to log a forbidden error")
    time.sleep(3)
    assert sched.alive(), sched.describe(30)
    forbidden = [ln for ln in sched.log_text().splitlines() if "forbidden" in ln.lower()]
    # The errors name what could not be read (a scheduler that lists one resource after the
    # other may only get as far as the first).
    assert any(re.search(r"\b(nodes|pods)\b", ln) for ln in forbidden), \
        "no forbidden error names nodes or pods:\n" + "\n".join(forbidden[-10:])
    unnamed = [ln for ln in forbidden
               if not re.search(r'\b(nodes|pods|poddisruptionbudgets|leases|events)\b|resource \\?"', ln)]
    assert not unnamed, "forbidden errors that name no resource:\n" + "\n".join(unnamed[-10:])
    assert not CRASH.search(sched.log_text())
    if flavour == "tightpack":
        assert sched.get("/healthz")[0] == 200
        assert sched.get("/readyz")[0] == 503


def test_a_refused_watch_backs_off_across_relists_and_is_not_ready(cluster, schedulers):
    # A ClusterRole that allows list but not watch: every watch is refused
    # right after a list that succeeds. client-go's reflector keeps its
    # backoff across those cycles (0.8, 1.6, 3.2, 6.4 s, ...); before, the
    # delay started again at 0.8 s after every successful list, so the
    # scheduler relisted every pod of the cluster every 0.8 s forever.
    api = cluster.cp.api()
    role = "tightpack-test-list-only"
    api.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
        "metadata": {"name": role},
        "rules": [
            {"apiGroups": [""], "resources": ["nodes", "pods", "namespaces", "services",
                                              "replicationcontrollers", "persistentvolumeclaims",
                                              "persistentvolumes"], "verbs": ["list"]},
            {"apiGroups": ["apps"], "resources": ["replicasets", "statefulsets"], "verbs": ["list"]},
            {"apiGroups": ["storage.k8s.io"], "resources": ["storageclasses", "csinodes", "csidrivers",
                                                            "csistoragecapacities"], "verbs": ["list"]},
            {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": ["list"]},
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"]},
            {"apiGroups": ["", "events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]}]})
    api.post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
        "metadata": {"name": role},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User",
                      "name": "tightpack-test-nobody"}]})
    try:
        tp = schedulers.tightpack(kubeconfig=cluster.cp.nobody_kubeconfig)
        wait_for(lambda: "listed" in tp.log_text(), 20, "a first list of pods")
        start = time.monotonic()
        wait_for(lambda: tp.get("/readyz")[0] == 503 and "refuses" in tp.get("/readyz")[1], 30,
                 "/readyz to say that the watches are refused")
        status, body = tp.get("/readyz", token=None)
        # Anyone may ask /readyz: which right is missing is not theirs to read, the log says it.
        assert status == 503 and "forbidden" not in body and "list or watch" not in body, body
        assert re.search(r"(list|watch) \w+: .*(403|forbidden)", tp.log_text()), tp.log_text()[-2000:]
        # Every watch is refused: whichever reflector is refused three times first is named, to
        # a caller the API server vouches for; this daemon's credentials may not ask the API
        # server who the caller is, and then nobody is told more than "not ready".
        status, body = tp.get("/readyz?verbose")
        if not (status == 503 and "cannot" in body):
            named = re.search(r"refused to list or watch (\w+)", body)
            assert "401/403" in body and named and named.group(1) in {
                "nodes", "pods", "namespaces", "services", "replicationcontrollers", "persistentvolumeclaims",
                "persistentvolumes", "replicasets", "statefulsets", "storageclasses", "csinodes", "csidrivers",
                "csistoragecapacities", "poddisruptionbudgets"}, body
        time.sleep(max(0.0, 12 - (time.monotonic() - start)))
        lists = [ln for ln in tp.log_text().splitlines() if re.search(r"listed \d+ pods", ln)]
        # 0.8 s between lists would be 15 or more in 12 s; with the backoff kept, 6 at most.
        assert len(lists) <= 6, f"{len(lists)} lists of pods:\n" + "\n".join(lists)
        assert tp.alive() and tp.get("/healthz")[0] == 200
    finally:
        api.delete(f"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{role}")
        api.delete(f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{role}")
