# HAProxy from Debian's package (the one scripts/serve.sh and the tests use), with the app's configuration:
# haproxy.cfg (stickiness, health checks, WebSocket timeouts) and haproxy-compose.cfg (the replicas found
# by Docker's DNS). Built by compose.yaml.
FROM debian:bookworm-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/*

COPY haproxy.cfg haproxy-compose.cfg /etc/haproxy/explorer/

# Port 8501 needs no privilege: run as the package's own user.
USER haproxy
EXPOSE 8501

ENTRYPOINT ["haproxy", "-db", "-f", "/etc/haproxy/explorer/haproxy.cfg", "-f", "/etc/haproxy/explorer/haproxy-compose.cfg"]
