"""deploy/: HAProxy takes its configuration, and the Compose and Kubernetes files agree with it and with the app.

One cookie name, one health path, one port, one shared cookie secret, WebSocket timeouts of an hour
everywhere a proxy stands; tests/e2e/test_replicas.py runs the same HAProxy settings (scripts/serve.sh).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HEALTH = "/_stcore/health"
COOKIE = "explorer_replica"
SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"


def haproxy_cfg() -> str:
    return (DEPLOY / "haproxy.cfg").read_text(encoding="utf-8")


def k8s_docs() -> list[dict[str, Any]]:
    return [
        d
        for p in sorted((DEPLOY / "k8s").glob("*.yaml"))
        for d in yaml.safe_load_all(p.read_text(encoding="utf-8"))
    ]


def k8s() -> dict[str, dict[str, Any]]:
    """The app's own objects (named attention-explorer) by kind."""
    return {d["kind"]: d for d in k8s_docs() if d.get("metadata", {}).get("name") == "attention-explorer"}


def container() -> dict[str, Any]:
    (c,) = k8s()["Deployment"]["spec"]["template"]["spec"]["containers"]
    return c


def test_haproxy_takes_both_configurations(tmp_path: Path) -> None:
    if shutil.which("haproxy") is None:
        why = "haproxy is not installed (apt-get install -y haproxy)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    env = {**os.environ, "EXPLORER_BIND": "127.0.0.1:8501"}
    servers = "backend replicas\n    server r1 127.0.0.1:8502 check cookie r1\n"
    for second in (DEPLOY / "haproxy-compose.cfg", None):
        if second is None:  # what scripts/serve.sh writes
            second = tmp_path / "servers.cfg"
            second.write_text(servers, encoding="utf-8")
        cmd = ["haproxy", "-c", "-f", str(DEPLOY / "haproxy.cfg"), "-f", str(second)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "WARNING" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_haproxy_sticks_by_cookie_checks_health_and_keeps_websockets_an_hour() -> None:
    cfg = haproxy_cfg()
    assert re.search(rf"^\s*cookie {COOKIE} insert indirect nocache", cfg, re.M)
    assert re.search(rf"^\s*option httpchk GET {re.escape(HEALTH)}$", cfg, re.M)
    assert re.search(r"^\s*http-check expect string ok$", cfg, re.M)
    assert re.search(r"^\s*option redispatch\b", cfg, re.M)
    assert re.search(r"^\s*timeout tunnel 1h$", cfg, re.M)
    compose_backend = (DEPLOY / "haproxy-compose.cfg").read_text(encoding="utf-8")
    assert re.search(rf"^\s*cookie {COOKIE} insert indirect nocache httponly dynamic$", compose_backend, re.M)
    assert "app:8501" in compose_backend  # the Compose service and port below


def test_compose_runs_replicas_behind_the_proxy_with_one_cookie_secret() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    app, proxy = compose["services"]["app"], compose["services"]["proxy"]
    assert "ports" not in app, "only the proxy is reached from outside"
    assert proxy["ports"] == ["${PORT:-8501}:8501"] and proxy["environment"]["EXPLORER_BIND"] == ":8501"
    assert app["deploy"]["replicas"] == "${REPLICAS:-2}"
    assert app["environment"][SECRET_ENV].startswith("${COOKIE_SECRET:?")
    assert (DEPLOY / proxy["build"]["dockerfile"]).is_file()
    proxy_image = (DEPLOY / proxy["build"]["dockerfile"]).read_text(encoding="utf-8")
    assert "apt-get install -y --no-install-recommends haproxy" in proxy_image
    assert "haproxy.cfg" in proxy_image and "haproxy-compose.cfg" in proxy_image


def test_kubernetes_probes_port_secret_and_affinity_agree() -> None:
    docs = k8s()
    c = container()
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    port = int(re.search(r"^EXPOSE (\d+)$", dockerfile, re.M).group(1))
    assert c["ports"] == [{"name": "http", "containerPort": port}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["httpGet"] == {"path": HEALTH, "port": "http"}, probe
    secret = next(e for e in c["env"] if e["name"] == SECRET_ENV)
    assert secret["valueFrom"]["secretKeyRef"] == {"name": "attention-explorer", "key": "cookie-secret"}
    uid = int(re.search(r"useradd .*--uid (\d+)", dockerfile).group(1))
    assert docs["Deployment"]["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == uid
    notes = docs["Ingress"]["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert notes["nginx.ingress.kubernetes.io/session-cookie-name"] == COOKIE
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    backend = docs["Ingress"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": docs["Service"]["metadata"]["name"], "port": {"name": "http"}}
    assert docs["Service"]["spec"]["ports"][0]["targetPort"] == "http"


def test_heavy_work_goes_through_redis_to_workers_that_scale_apart() -> None:
    """Compose and Kubernetes: the app's replicas send jobs to Redis, worker services take them (the short lane
    a service of its own), Redis is bounded and drops expiring results first; the workers' command is a
    module of the image."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))["services"]
    app, worker, short, redis = (compose[k] for k in ("app", "worker", "short-lane", "redis"))
    url = app["environment"]["ATTENTION_EXPLORER_REDIS_URL"]
    assert app["environment"]["ATTENTION_EXPLORER_JOBS"] == "redis" and url == "redis://redis:6379/0"
    for svc, extra in ((worker, []), (short, ["--short"])):
        assert svc["entrypoint"] == ["python", "-m", "explorer.compute.jobs.rq_queue", *extra]
        assert svc["environment"]["ATTENTION_EXPLORER_REDIS_URL"] == url and svc["image"] == app["image"]
    assert worker["deploy"]["replicas"] == "${WORKERS:-2}"
    assert "--maxmemory" in redis["command"] and "volatile-lru" in redis["command"]
    assert (ROOT / "explorer" / "compute" / "jobs" / "rq_queue.py").is_file()

    docs = {d["metadata"]["name"]: d for d in k8s_docs() if "metadata" in d and d["kind"] == "Deployment"}
    env = {e["name"]: e.get("value") for e in container()["env"]}
    assert env["ATTENTION_EXPLORER_JOBS"] == "redis"
    services = [d for d in k8s_docs() if d["kind"] == "Service" and d["metadata"]["name"].endswith("-redis")]
    (service,) = services
    assert env["ATTENTION_EXPLORER_REDIS_URL"] == f"redis://{service['metadata']['name']}:6379/0"
    for name, extra in (("attention-explorer-worker", []), ("attention-explorer-short-lane", ["--short"])):
        (c,) = docs[name]["spec"]["template"]["spec"]["containers"]
        assert c["command"] == ["python", "-m", "explorer.compute.jobs.rq_queue", *extra], name
        assert {e["name"]: e["value"] for e in c["env"]}["ATTENTION_EXPLORER_REDIS_URL"] == env[
            "ATTENTION_EXPLORER_REDIS_URL"
        ]
    listed = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text(encoding="utf-8"))["resources"]
    assert {"workers.yaml", "redis.yaml"} <= set(listed)


def test_on_a_busy_host_the_pages_go_before_heavy_work_and_the_proxy_and_redis_before_the_pages() -> None:
    """A worker's lower OS priority counts only inside its container: across containers the CPU weight decides
    (compose's cpu_shares, Kubernetes' CPU requests), so the files give the workers less than the replicas,
    and the proxy and Redis more (compose; in Kubernetes the ingress is the cluster's)."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))["services"]
    shares = {name: svc.get("cpu_shares", 1024) for name, svc in compose.items()}
    assert shares["worker"] < shares["app"] and shares["short-lane"] < shares["app"]
    assert shares["proxy"] > shares["app"] and shares["redis"] > shares["app"]

    def millicores(value: str) -> float:
        return float(value[:-1]) if value.endswith("m") else 1000 * float(value)

    docs = {d["metadata"]["name"]: d for d in k8s_docs() if "metadata" in d and d["kind"] == "Deployment"}
    cpu = {
        name: millicores(str(d["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]))
        for name, d in docs.items()
    }
    app = millicores(str(container()["resources"]["requests"]["cpu"]))
    assert cpu["attention-explorer-worker"] < app and cpu["attention-explorer-short-lane"] < app
    assert cpu["attention-explorer-redis"] >= app / 2
