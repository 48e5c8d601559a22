#!/usr/bin/env bash
# Serves the app to a class from one machine: HAProxy in front of N Streamlit processes, all children of this
# script, in the foreground. Ctrl-C or SIGTERM stops everything it started. The containers' equivalent is
# deploy/compose.yaml; how to pick N: README, "Serving a class".
#
#   bash scripts/serve.sh --replicas 2 --port 8501          # then open http://<this machine>:8501
#   bash scripts/serve.sh --replicas 2 --port 8501 --address 127.0.0.1 --log /tmp/haproxy.log
#   bash scripts/serve.sh --replicas 3 -- --server.maxUploadSize 3   # after --: more options for streamlit
#   bash scripts/serve.sh --replicas 2 --workers 2          # heavy work through Redis, in 2 workers (+ short lane)
#
# With two replicas or more this script also starts redis-server (Debian's package) on a free localhost port,
# as its child: a class (its code, the teacher's screen, the answers) lives there, where every replica reads
# it, so a replica that dies loses no answer and its students rejoin on another (explorer/classroom/).
# Heavy work (a real model's new sentence, the analyses) runs in worker processes: without --workers, each
# replica starts its own pool (explorer/compute/jobs/local.py); with --workers M, this script also starts
# M workers of the job queue on that Redis, and one for the short lane (explorer/compute/jobs/rq_queue.py),
# as its children; the replicas share those workers and their results (Redis bounded by --redis-mb, 256 by
# default, least recently used results dropped first; below 230 or so, a class's largest uploads (43 MB)
# leave no room for their own results).
#
# Each session sticks to one replica (HAProxy's cookie, as a student's state lives in that process); when a
# replica dies or hangs (HAProxy's checks take a hung one out within 4 s and cut its sessions:
# deploy/haproxy.cfg), its sessions reconnect to another one and rebuild their page from the address bar, which
# holds the whole example. A replica that exits is started again after a few seconds (--no-restart: left down).
#
# Lines this script prints, for people and for tests/e2e/test_replicas.py:
#   replica r1 pid 1234 port 40123      (again with the new pid when a replica is started again)
#   serving http://127.0.0.1:8501 with 2 replicas
#
# Environment: PYTHON (default .venv/bin/python, else python3), STREAMLIT_SERVER_COOKIE_SECRET (shared by the
# replicas; default: a random one per start, so that a session moved to another replica keeps its XSRF
# token valid), OPENBLAS_NUM_THREADS (default 1: N replicas share the CPUs; one BLAS thread each keeps them
# from oversubscribing), SERVE_RESTART_DELAY (seconds before a dead replica is started again, default 5).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { printf 'scripts/serve.sh: %s\n' "$*" >&2; exit 2; }

REPLICAS=2
WORKERS=0
REDIS_MB=256
PORT=8501
ADDRESS=0.0.0.0
LOG=""
RESTART=1
EXTRA=()
while [ $# -gt 0 ]; do
  case $1 in
    --replicas) REPLICAS=${2:-}; shift 2 ;;
    --workers) WORKERS=${2:-}; shift 2 ;;
    --redis-mb) REDIS_MB=${2:-}; shift 2 ;;
    --port) PORT=${2:-}; shift 2 ;;
    --address) ADDRESS=${2:-}; shift 2 ;;
    --log) LOG=${2:-}; shift 2 ;;
    --no-restart) RESTART=0; shift ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $REPLICAS =~ ^[0-9]+$ ]] && [ "$REPLICAS" -ge 1 ] && [ "$REPLICAS" -le 64 ] \
  || die "--replicas takes 1 to 64, not '$REPLICAS'"
[[ $WORKERS =~ ^[0-9]+$ ]] && [ "$WORKERS" -le 64 ] || die "--workers takes 0 to 64, not '$WORKERS'"
[[ $REDIS_MB =~ ^[0-9]+$ ]] && [ "$REDIS_MB" -ge 16 ] || die "--redis-mb takes 16 or more, not '$REDIS_MB'"
[[ $PORT =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1 ] && [ "$PORT" -le 65535 ] || die "--port takes 1 to 65535, not '$PORT'"
command -v haproxy >/dev/null 2>&1 \
  || die "haproxy is not installed: on Debian or Ubuntu, apt-get install -y haproxy (as root)"
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=$(command -v python3) || die "no Python: make .venv first (bash scripts/test.sh)"

export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export STREAMLIT_SERVER_COOKIE_SECRET=${STREAMLIT_SERVER_COOKIE_SECRET:-$("$PY" -c 'import secrets; print(secrets.token_hex(32))')}
RESTART_DELAY=${SERVE_RESTART_DELAY:-5}
RUN=$(mktemp -d "${TMPDIR:-/tmp}/serve.XXXXXX")

CHILDREN=()
REDIS_PID=""
stop() {  # every child this script started (Redis last: the workers say goodbye to it), then their files
  trap - EXIT INT TERM
  local pid
  for pid in "${CHILDREN[@]}"; do [ "$pid" = "$REDIS_PID" ] || kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${CHILDREN[@]}"; do [ "$pid" = "$REDIS_PID" ] || wait "$pid" 2>/dev/null || true; done
  if [ -n "$REDIS_PID" ]; then kill -TERM "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true; fi
  rm -rf "$RUN"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Free localhost ports for the replicas and Redis (the proxy's own port is --port).
mapfile -t PORTS < <("$PY" - "$((REPLICAS + 1))" <<'EOF'
import socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
    print(s.getsockname()[1])
EOF
)

# One replica: `streamlit run server.py` (app.py, its real models loading as it starts) on its port, started
# again when it exits (unless --no-restart). The loop is a child of this script; streamlit is its child.
# SIGTERM to the loop stops its streamlit first.
replica() {
  local name=$1 port=$2 pid=""
  trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 0' TERM
  while :; do
    "$PY" -m streamlit run server.py \
      --server.port "$port" --server.address 127.0.0.1 --server.headless true \
      --server.fileWatcherType none --browser.gatherUsageStats false "${EXTRA[@]}" \
      >>"$RUN/$name.log" 2>&1 &
    pid=$!
    echo "replica $name pid $pid port $port"
    wait "$pid" || true
    [ "$RESTART" = 1 ] || { echo "replica $name exited (left down: --no-restart)"; exit 0; }
    echo "replica $name exited; starting it again in $RESTART_DELAY s (log: $RUN/$name.log)"
    sleep "$RESTART_DELAY" &
    pid=$!
    wait "$pid" || true
  done
}

# With two replicas or more, or --workers: redis-server, where every replica finds the class (its code, the
# teacher's screen, the answers: a replica that dies loses none of it) and, with --workers, the job queue.
if [ "$WORKERS" -gt 0 ] || [ "$REPLICAS" -ge 2 ]; then
  command -v redis-server >/dev/null 2>&1 \
    || die "redis-server is not installed: on Debian or Ubuntu, apt-get install -y redis-server (as root)"
  REDIS_PORT=${PORTS[$REPLICAS]}
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$RUN" \
    --maxmemory "${REDIS_MB}mb" --maxmemory-policy volatile-lru >>"$RUN/redis.log" 2>&1 &
  REDIS_PID=$!
  CHILDREN+=("$REDIS_PID")
  echo "redis pid $REDIS_PID port $REDIS_PORT"
  export ATTENTION_EXPLORER_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
  export ATTENTION_EXPLORER_CLASSES=redis  # a class (code, the teacher's screen, answers) lives there
  "$PY" - <<'EOF' || die "redis-server did not answer in 30 s (log: $RUN/redis.log)"
import os, time, redis
r, deadline = redis.Redis.from_url(os.environ["ATTENTION_EXPLORER_REDIS_URL"]), time.monotonic() + 30
while True:
    try:
        r.ping()
        break
    except redis.exceptions.ConnectionError:
        if time.monotonic() > deadline:
            raise SystemExit(1)
        time.sleep(0.1)
EOF
fi
if [ "$WORKERS" -gt 0 ]; then
  export ATTENTION_EXPLORER_JOBS=redis
  # One worker of the queue, started again when it exits (as a replica is); "--short": the short lane's.
  worker() {
    local name=$1 pid=""
    shift
    trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 0' TERM
    while :; do
      "$PY" -m explorer.compute.jobs.rq_queue "$@" >>"$RUN/$name.log" 2>&1 &
      pid=$!
      echo "worker $name pid $pid"
      wait "$pid" || true
      [ "$RESTART" = 1 ] || exit 0
      sleep "$RESTART_DELAY" &
      pid=$!
      wait "$pid" || true
    done
  }
  for i in $(seq 1 "$WORKERS"); do
    worker "w$i" &
    CHILDREN+=($!)
  done
  worker "short" --short &
  CHILDREN+=($!)
fi

SERVERS=""
for i in $(seq 1 "$REPLICAS"); do
  port=${PORTS[$((i - 1))]}
  replica "r$i" "$port" &
  CHILDREN+=($!)
  SERVERS+="    server r$i 127.0.0.1:$port check cookie r$i"$'\n'
done

# Wait until every replica answers /_stcore/health (a cold start imports Streamlit, numpy and plotly).
"$PY" - "${PORTS[@]:0:$REPLICAS}" <<'EOF' || die "the replicas did not become healthy in 180 s (logs: $RUN)"
import sys, time, urllib.request
deadline = time.monotonic() + 180
for port in sys.argv[1:]:
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.2)
EOF

# The proxy: deploy/haproxy.cfg (cookie stickiness, health checks, WebSocket timeouts; explained there) and a
# backend of this script's replicas. Its request log goes to --log (default: a file beside the replicas' logs).
printf 'backend replicas\n%s' "$SERVERS" >"$RUN/servers.cfg"
export EXPLORER_BIND="$ADDRESS:$PORT"
CFG=(-f deploy/haproxy.cfg -f "$RUN/servers.cfg")
haproxy -c -q "${CFG[@]}" || die "haproxy refused its configuration (deploy/haproxy.cfg, $RUN/servers.cfg)"
haproxy -db "${CFG[@]}" 2>>"${LOG:-$RUN/haproxy.log}" &
HAPROXY=$!
CHILDREN+=("$HAPROXY")
# HAProxy and Redis do little work each, but every page waits on them, and HAProxy's health checks take a
# replica out (cutting its sessions) when their answer is late: on a busy machine they must be scheduled
# at once. During twenty 43 MB uploads beside other programs, HAProxy at the replicas' priority waited 12 s
# in the run queue for 0.65 s of CPU, and its checks of both replicas timed out while the replicas answered
# a direct check within 0.3 s. So both are raised 5 steps above the replicas where that is allowed (root,
# or CAP_SYS_NICE; a process may not raise itself otherwise), every thread of each.
"$PY" - "$HAPROXY" ${REDIS_PID:+"$REDIS_PID"} <<'PRIORITY' || true
import os, sys
for pid in sys.argv[1:]:
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            os.setpriority(os.PRIO_PROCESS, int(tid), os.getpriority(os.PRIO_PROCESS, int(tid)) - 5)
        except OSError:
            pass
PRIORITY
# "serving" is said once the proxy listens: a visitor (or a test) told the address earlier would be refused.
"$PY" - "$ADDRESS" "$PORT" <<'EOF' || die "haproxy did not listen on $ADDRESS:$PORT in 30 s (logs: ${LOG:-$RUN/haproxy.log})"
import socket, sys, time
deadline = time.monotonic() + 30
while True:
    try:
        socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.05)
EOF
echo "serving http://$ADDRESS:$PORT with $REPLICAS replicas and ${WORKERS} queue workers (logs: $RUN${LOG:+, $LOG})"
# The proxy's end is the end (a replica's is handled by its loop); Ctrl-C and SIGTERM end here too.
wait "$HAPROXY" || { status=$?; echo "haproxy stopped (exit $status):" >&2; tail -n 5 "${LOG:-$RUN/haproxy.log}" >&2; exit "$status"; }
