#!/usr/bin/env bash
# The monitoring bundle (deploy/monitoring/) against Debian's Prometheus (installed on first use):
# 1. promtool check rules and promtool test rules (the fixtures in alerts.test.yaml);
# 2. a real Prometheus scraping `openregion up` (built-in cloud, a free port) until a query returns the series the
#    alerts and the dashboard read: openregion_build_info, http_requests_total, workqueue_depth, openregion_objects.
# Prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  # Another apt (the dev cloud's packages, installed in the background) may hold the lock: wait for it.
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=600 prometheus >/dev/null; }
  # A fresh machine may have no package lists yet.
  install || { apt-get update -qq -o DPkg::Lock::Timeout=600 && install; }
  # The package starts its own server; this check runs its own, on a port of its own.
  systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
echo "monitoring: prometheus $(prometheus --version 2>&1 | head -1 | awk '{print $3}') ready in $((SECONDS - started)) s"

(cd deploy/monitoring && promtool check rules alerts.yaml && promtool test rules alerts.test.yaml)
node -e 'JSON.parse(require("fs").readFileSync("deploy/monitoring/dashboard.json", "utf8"))'
checked=$SECONDS

work=$(mktemp -d)
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
api_port=$(free_port)
prom_port=$(free_port)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

node --import tsx src/cli/main.ts up --dir "$work/up" --port "$api_port" --log-format json >"$work/up.log" 2>&1 &
pids+=($!)
cat >"$work/prometheus.yml" <<YAML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ['$PWD/deploy/monitoring/alerts.yaml']
scrape_configs:
  - job_name: openregion
    static_configs: [{ targets: ['127.0.0.1:$api_port'] }]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)

# query EXPR: the number of series the query returns (0 while Prometheus or up is not there yet).
query() {
  curl -fsS --get "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" 2>/dev/null |
    node -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>{try{console.log(JSON.parse(t).data.result.length)}catch{console.log(0)}})'
}
deadline=$((SECONDS + 240))
for expr in 'openregion_build_info{job="openregion"}' 'up{job="openregion"} == 1' 'http_requests_total{job="openregion"}' \
  'workqueue_depth{job="openregion",name="region-server"}' 'openregion_objects{job="openregion",kind="Region"}'; do
  until (($(query "$expr") > 0)); do
    if ((SECONDS > deadline)); then
      echo "monitoring: no series for $expr within 240 s"
      tail -20 "$work/up.log" "$work/prometheus.log"
      exit 1
    fi
    sleep 1
  done
  echo "monitoring: Prometheus returns $expr"
done
# The rules loaded and evaluated against the live series.
rules=$(curl -fsS "http://127.0.0.1:$prom_port/api/v1/rules" | node -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>console.log(JSON.parse(t).data.groups.flatMap(g=>g.rules).filter(r=>r.health==="ok").length))')
((rules == 5)) || {
  echo "monitoring: $rules of 5 rules evaluate"
  exit 1
}
echo "monitoring: promtool $((checked - started)) s, Prometheus scraping up $((SECONDS - checked)) s, in all $((SECONDS - started)) s"
