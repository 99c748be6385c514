#!/usr/bin/env bash
# kube-apiserver: a real Kubernetes API server (1.20.2, built from Debian's `kubernetes` source package) plus
# etcd on 127.0.0.1, for the Kubernetes backend's conformance tests.
#
#   scripts/kube-apiserver.sh build    install the packages, fetch the source package, patch, build (~13 min on
#                                      2 cores); a no-op when the cached binary exists
#   scripts/kube-apiserver.sh start    start etcd and kube-apiserver, wait for /readyz, print the kubeconfig path;
#                                      a no-op (printing the path) when both already run
#   scripts/kube-apiserver.sh stop     stop kube-apiserver, then etcd (in that order: see reference §7)
#   scripts/kube-apiserver.sh status   print what runs, the binary and the kubeconfig; exit 1 when not running
#                                      (Secret requests are audited to $STATE/audit.log, beside the kubeconfig)
#   scripts/kube-apiserver.sh binary   print the cached binary's path; exit 1 when it is not built
#
# The recipe, with timings and limits: reference/kube-apiserver.md (shared with the team).
# Environment (all optional):
#   OPENREGION_KUBE_STATE       runtime state: pids, logs, certs, etcd data, kubeconfig (/tmp/openregion-kube-apiserver)
#   OPENREGION_KUBE_CACHE       binary cache (/var/cache/openregion/kube-apiserver)
#   OPENREGION_KUBE_BUILD       scratch build directory (/var/tmp/openregion-kube-apiserver-build)
#   OPENREGION_KUBE_PORT        kube-apiserver secure port (16443)
#   OPENREGION_ETCD_PORT        etcd client port (23790); the peer port is this + 10
#   OPENREGION_KUBE_AUDIT       1: write an audit log of every request's metadata to $STATE/audit.log (one JSON
#                               line a request: who, verb, object, URI with its selectors); the scale bench reads it
set -euo pipefail
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

STATE=${OPENREGION_KUBE_STATE:-/tmp/openregion-kube-apiserver}
CACHE=${OPENREGION_KUBE_CACHE:-/var/cache/openregion/kube-apiserver}
BUILD=${OPENREGION_KUBE_BUILD:-/var/tmp/openregion-kube-apiserver-build}
API_PORT=${OPENREGION_KUBE_PORT:-16443}
ETCD_PORT=${OPENREGION_ETCD_PORT:-23790}
ETCD_PEER_PORT=$((ETCD_PORT + 10))
KUBECONFIG_PATH=$STATE/kubeconfig
START=$(date +%s)

PACKAGES=(golang-go etcd-server etcd-client rsync jq make tar openssl curl
  golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev)

log() { printf '[kube-apiserver +%ss] %s\n' "$(($(date +%s) - START))" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# The cache key is the source package version, recorded beside the binary by the build that made it.
cached_binary() {
  local d
  for d in "$CACHE"/*/; do
    [ -x "${d}kube-apiserver" ] && {
      echo "${d}kube-apiserver"
      return 0
    }
  done
  return 1
}

# ---------------------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------------------

install_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
  log "installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
}

# apt-get source needs a deb-src line for the machine's own Debian mirror; a private list and private state
# keep the system's package lists untouched (reference §4).
fetch_source() {
  local aptdir=$BUILD/aptsrc mirror
  mkdir -p "$aptdir/lists/partial"
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^[a-z]+:\/\//){print $i; exit}}' \
    /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || die "no Debian mirror found in the machine's apt sources"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" >"$aptdir/src.list"
  APTO=(-o "Dir::Etc::sourcelist=$aptdir/src.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$aptdir/lists")
  apt-get "${APTO[@]}" update -qq
  # --print-uris lines read: 'URI' FILENAME SIZE HASH; the .dsc file name carries the version.
  VERSION=$(apt-get "${APTO[@]}" source --print-uris kubernetes 2>/dev/null |
    awk '$2 ~ /^kubernetes_.*\.dsc$/ {v=$2; sub(/^kubernetes_/, "", v); sub(/\.dsc$/, "", v); print v; exit}')
  [ -n "$VERSION" ] || die "apt-get source kubernetes: no source package found"
}

build() {
  local bin
  if bin=$(cached_binary); then
    log "cached: $bin"
    return 0
  fi
  install_packages
  mkdir -p "$BUILD"
  fetch_source
  log "source package kubernetes $VERSION"
  (cd "$BUILD" && apt-get "${APTO[@]}" source --download-only kubernetes >/dev/null 2>&1) ||
    die "apt-get source --download-only kubernetes failed"
  local orig upstream src
  orig=$BUILD/kubernetes_${VERSION%-*}.orig.tar.gz
  upstream=${VERSION#*really}
  upstream=${upstream%%-*}
  src=$BUILD/src/kubernetes-$upstream
  rm -rf "$BUILD/src"
  mkdir -p "$BUILD/src"
  [ -f "$orig" ] || die "no $orig after apt-get source"
  tar -C "$BUILD/src" -xzf "$orig"
  [ -d "$src" ] || die "unexpected tarball layout: no $src"

  # Go 1.19 + vendored reflect2 1.0.1 segfaults on the first custom-resource write (reference §5).
  local p
  for p in modern-go/reflect2 json-iterator/go; do
    rm -rf "$src/vendor/github.com/$p"
    rsync -a --exclude='*_test.go' --exclude=go.mod --exclude=go.sum \
      "/usr/share/gocode/src/github.com/$p/" "$src/vendor/github.com/$p/"
  done

  log "building cmd/kube-apiserver (about 13 minutes on 2 cores)"
  mkdir -p "$src/.go/src/k8s.io" "$BUILD/home"
  [ -L "$src/.go/src/k8s.io/kubernetes" ] || ln -s ../../.. "$src/.go/src/k8s.io/kubernetes"
  (cd "$src" && HOME=$BUILD/home PATH=/usr/lib/go/bin:$PATH GOPATH="$src/.go" CGO_ENABLED=0 \
    make WHAT=cmd/kube-apiserver) >"$BUILD/make.log" 2>&1 || {
    tail -40 "$BUILD/make.log" >&2
    die "make failed; full log: $BUILD/make.log"
  }
  "$src/_output/bin/kube-apiserver" --version >&2
  mkdir -p "$CACHE/$VERSION"
  install -m 0755 "$src/_output/bin/kube-apiserver" "$CACHE/$VERSION/kube-apiserver.tmp"
  mv "$CACHE/$VERSION/kube-apiserver.tmp" "$CACHE/$VERSION/kube-apiserver"
  log "built $CACHE/$VERSION/kube-apiserver in $(($(date +%s) - START)) s"
  # The build tree is ~2 GB and the binary is cached; keep the tarball only.
  rm -rf "$BUILD/src"
}

# ---------------------------------------------------------------------------------------------------------
# start / stop / status
# ---------------------------------------------------------------------------------------------------------

running() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

wait_for() {
  local timeout=$1 check=$2 i
  for ((i = 0; i < timeout * 5; i++)); do
    if eval "$check"; then return 0; fi
    sleep 0.2
  done
  return 1
}

start() {
  local bin
  bin=$(cached_binary) || die "kube-apiserver is not built; run: $0 build"
  if running apiserver && running etcd; then
    echo "$KUBECONFIG_PATH"
    return 0
  fi
  stop >/dev/null 2>&1 || true
  command -v etcd >/dev/null || install_packages
  rm -rf "$STATE/etcd-data"
  mkdir -p "$STATE/certs"

  if [ ! -f "$STATE/sa.key" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$STATE/sa.key" 2>/dev/null
    openssl pkey -in "$STATE/sa.key" -pubout -out "$STATE/sa.pub"
  fi
  # An audit log of every request about Secrets (metadata only: who, what, where, the answer's code), so a suite
  # can find a refusal the way an operator would; nothing else is logged, to keep long runs' logs small.
  cat >"$STATE/audit-policy.yaml" <<'POLICY'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources: [{ group: "", resources: [secrets] }]
  - level: None
POLICY
  rm -f "$STATE/audit.log"
  local token
  token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
  echo "$token,admin,admin,system:masters" >"$STATE/tokens.csv"
  chmod 600 "$STATE/tokens.csv"

  setsid etcd --name t --data-dir "$STATE/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "t=http://127.0.0.1:$ETCD_PEER_PORT" >"$STATE/etcd.log" 2>&1 </dev/null &
  echo $! >"$STATE/etcd.pid"
  wait_for 30 "curl -s http://127.0.0.1:$ETCD_PORT/health | grep -q true" || {
    tail -20 "$STATE/etcd.log" >&2
    die "etcd did not become healthy"
  }

  if [ "${OPENREGION_KUBE_AUDIT:-}" = 1 ]; then
    # Every request instead, one line at its end (a watch's when it starts too): enough to say who read what.
    printf '%s\n' 'apiVersion: audit.k8s.io/v1' 'kind: Policy' 'omitStages: [RequestReceived]' \
      'rules: [{level: Metadata}]' >"$STATE/audit-policy.yaml"
    rm -f "$STATE"/audit*.log
  fi
  setsid "$bin" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" --insecure-port=0 --secure-port="$API_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --cert-dir="$STATE/certs" \
    --token-auth-file="$STATE/tokens.csv" --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$STATE/sa.pub" --service-account-signing-key-file="$STATE/sa.key" \
    --service-cluster-ip-range=10.96.0.0/24 --disable-admission-plugins=ServiceAccount \
    --audit-policy-file="$STATE/audit-policy.yaml" --audit-log-path="$STATE/audit.log" \
    --audit-log-maxsize=100 --audit-log-maxbackup=1 \
    >"$STATE/apiserver.log" 2>&1 </dev/null &
  echo $! >"$STATE/apiserver.pid"
  wait_for 120 "[ \"\$(curl -sk https://127.0.0.1:$API_PORT/readyz)\" = ok ]" || {
    tail -30 "$STATE/apiserver.log" >&2
    die "kube-apiserver did not become ready"
  }

  # The serving certificate is self-signed (generated into --cert-dir), hence insecure-skip-tls-verify.
  cat >"$KUBECONFIG_PATH.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster: { server: "https://127.0.0.1:$API_PORT", insecure-skip-tls-verify: true }
users:
  - name: admin
    user: { token: "$token" }
contexts:
  - name: local
    context: { cluster: local, user: admin, namespace: default }
current-context: local
EOF
  chmod 600 "$KUBECONFIG_PATH.tmp"
  mv "$KUBECONFIG_PATH.tmp" "$KUBECONFIG_PATH"
  log "ready in $(($(date +%s) - START)) s"
  echo "$KUBECONFIG_PATH"
}

stop_one() {
  local name=$1 pid i
  [ -f "$STATE/$name.pid" ] || return 0
  pid=$(cat "$STATE/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$STATE/$name.pid"
}

# The apiserver first: once etcd is gone, its graceful shutdown drags on for more than 20 s.
stop() {
  stop_one apiserver
  stop_one etcd
  rm -f "$KUBECONFIG_PATH"
  log "stopped"
}

status() {
  local rc=0 name bin
  for name in etcd apiserver; do
    if running "$name"; then
      echo "$name: running (pid $(cat "$STATE/$name.pid"), log $STATE/$name.log)"
    else
      echo "$name: not running"
      rc=1
    fi
  done
  if bin=$(cached_binary); then echo "binary: $bin"; else echo "binary: not built"; fi
  [ -f "$KUBECONFIG_PATH" ] && echo "kubeconfig: $KUBECONFIG_PATH"
  return $rc
}

case "${1:-}" in
build) build ;;
start) start ;;
stop) stop ;;
status) status ;;
binary) cached_binary || exit 1 ;;
*)
  echo "usage: $0 build|start|stop|status|binary" >&2
  exit 2
  ;;
esac
