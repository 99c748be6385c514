#!/usr/bin/env bash
# openregion's OCI image, built without pulling from any registry: the Containerfile is FROM scratch, and every
# layer comes from a build context this script assembles from this machine (its Node and the libraries Node links,
# the CA bundle, a non-root user, the production node_modules, the compiled CLI).
#
#   scripts/image.sh build [--fresh]   install buildah, podman and runc from Debian if missing, `npm run build`,
#                                      assemble the context, build localhost/openregion:VERSION and :latest, and
#                                      print the build time. --fresh ignores every cache (for measuring).
#   scripts/image.sh run [ARGS…]       run the image as a pod would: host network, read-only root filesystem, its
#                                      own non-root user; ARGS go to `openregion` (extra podman flags before ARGS
#                                      in OPENREGION_PODMAN_FLAGS, e.g. "-v /etc/kube:/kube:ro")
#   scripts/image.sh name              print the image name (localhost/openregion:latest)
#
# What is slow is cached under /var/cache/openregion/image: the production node_modules (keyed by
# package-lock.json, Node's version and the architecture) and the runtime root (keyed by Node's binary); buildah
# keeps its own layer cache, so a rebuild after a source change only adds the app layer.
# Environment (optional): OPENREGION_IMAGE_CACHE (/var/cache/openregion/image), OPENREGION_IMAGE (localhost/openregion).
set -euo pipefail
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."

CACHE=${OPENREGION_IMAGE_CACHE:-/var/cache/openregion/image}
IMAGE=${OPENREGION_IMAGE:-localhost/openregion}
# The image's user: a fixed, unprivileged uid/gid (the one distroless images use), named in /etc/passwd.
UID_GID=65532
START=$(date +%s%N)

log() { printf '[image +%ss] %s\n' "$((($(date +%s%N) - START) / 1000000000))" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

install_tools() {
  local missing=() p
  for p in buildah podman runc ca-certificates; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
  log "installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Node, /usr/bin/env (the CLI's shebang is `#!/usr/bin/env -S node …`), every shared library either links (and the
# better-sqlite3 addon links), the CA bundle, the user, and a sticky /tmp.
assemble_runtime() {
  local dir=$1 node lib
  node=$(command -v node)
  mkdir -p "$dir/usr/local/bin" "$dir/usr/bin" "$dir/etc/ssl/certs" "$dir/tmp" "$dir/home/openregion"
  cp -L "$node" "$dir/usr/local/bin/node"
  cp -L /usr/bin/env "$dir/usr/bin/env"
  for lib in $(ldd "$node" /usr/bin/env node_modules/better-sqlite3/build/Release/better_sqlite3.node |
    awk '/:$/ {next} $3 ~ /^\// {print $3; next} $1 ~ /^\// {print $1}' | sort -u); do
    mkdir -p "$dir$(dirname "$lib")"
    cp -L "$lib" "$dir$lib"
  done
  cp -L /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nopenregion:x:%s:%s:openregion:/home/openregion:/sbin/nologin\n' \
    "$UID_GID" "$UID_GID" >"$dir/etc/passwd"
  printf 'root:x:0:\nopenregion:x:%s:\n' "$UID_GID" >"$dir/etc/group"
  chmod 1777 "$dir/tmp"
  ln -s /app/bin/openregion.js "$dir/usr/local/bin/openregion"
}

# The production node_modules: the checkout's (so better-sqlite3 is not compiled again), pruned of dev
# dependencies, with the native addon's build leftovers and sources dropped.
assemble_modules() {
  local dir=$1 work
  work=$(mktemp -d "$CACHE/modules.XXXXXX")
  cp package.json package-lock.json "$work/"
  cp -a "$(readlink -f node_modules)" "$work/node_modules"
  (cd "$work" && npm prune --omit=dev --offline --no-audit --no-fund --loglevel=error >/dev/null)
  local addon=$work/node_modules/better-sqlite3
  mv "$addon/build/Release/better_sqlite3.node" "$work/"
  rm -rf "$addon/build" "$addon/deps" "$addon/src" "$addon/binding.gyp"
  mkdir -p "$addon/build/Release"
  mv "$work/better_sqlite3.node" "$addon/build/Release/"
  find "$work/node_modules" -name '*.d.ts' -delete -o -name '*.map' -delete
  mv "$work/node_modules" "$dir"
  rm -rf "$work"
}

# The compiled CLI: package.json (the version, "type": "module"), bin/ and dist/.
assemble_app() {
  local dir=$1
  mkdir -p "$dir"
  cp package.json "$dir/"
  cp -a bin dist "$dir/"
}

cached() { # cached KEY ASSEMBLER: the directory $CACHE/KEY, assembled once
  local key=$1 assembler=$2
  if [ ! -d "$CACHE/$key" ] || [ "$FRESH" = 1 ]; then
    rm -rf "${CACHE:?}/$key" "$CACHE/$key.tmp"
    "$assembler" "$CACHE/$key.tmp"
    mv "$CACHE/$key.tmp" "$CACHE/$key"
    log "assembled $key"
  fi
  echo "$CACHE/$key"
}

build() {
  FRESH=0
  [ "${1:-}" = --fresh ] && FRESH=1
  install_tools
  [ -d node_modules ] || die "run npm ci first"
  mkdir -p "$CACHE"
  log "npm run build"
  npm run --silent build
  local version revision arch modules_key runtime_key
  version=$(node -p 'require("./package.json").version')
  revision=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  arch=$(uname -m)
  modules_key=modules-$(cat package-lock.json <(node --version) <(echo "$arch") | sha256sum | cut -c1-16)
  runtime_key=runtime-$(cat "$(command -v node)" /etc/ssl/certs/ca-certificates.crt | sha256sum | cut -c1-16)

  CONTEXT=$(mktemp -d /var/tmp/openregion-image.XXXXXX)
  trap 'rm -rf "$CONTEXT"' EXIT
  local context=$CONTEXT
  cp Containerfile "$context/"
  # Hard links: the context costs no copy of the cached trees (they share a file system under /var).
  cp -al "$(cached "$runtime_key" assemble_runtime)" "$context/runtime" 2>/dev/null ||
    cp -a "$CACHE/$runtime_key" "$context/runtime"
  cp -al "$(cached "$modules_key" assemble_modules)" "$context/modules" 2>/dev/null ||
    cp -a "$CACHE/$modules_key" "$context/modules"
  assemble_app "$context/app"
  # The production package runs without tsx or any dev dependency: prove it before building on it.
  ln -s ../modules "$context/app/node_modules"
  [ "$(node "$context/app/bin/openregion.js" --version)" = "$version" ] || die "the production package does not run"
  rm "$context/app/node_modules"

  log "buildah bud $IMAGE:$version"
  local flags=(--layers)
  [ "$FRESH" = 1 ] && flags=(--layers --no-cache)
  buildah bud --quiet "${flags[@]}" --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
    -t "$IMAGE:$version" -t "$IMAGE:latest" -f "$context/Containerfile" "$context" >/dev/null
  log "built $IMAGE:$version ($(podman image inspect --format '{{.Size}}' "$IMAGE:latest" | awk '{printf "%.0f MB", $1/1e6}')) in $((($(date +%s%N) - START) / 1000000)) ms"
}

# The sandbox's limits (container-image.md): crun cannot run here, and runc needs ulimits at or below the
# machine's. These flags belong to this machine, not to the image.
run() {
  local flags=(--runtime /usr/sbin/runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
  # shellcheck disable=SC2086 # OPENREGION_PODMAN_FLAGS is a list of flags, split on purpose
  exec podman "${flags[@]:0:2}" run --rm --network host --read-only "${flags[@]:2}" \
    ${OPENREGION_PODMAN_FLAGS:-} "$IMAGE:latest" "$@"
}

case "${1:-}" in
  build) build "${@:2}" ;;
  run) run "${@:2}" ;;
  name) echo "$IMAGE:latest" ;;
  *) die "usage: $0 build [--fresh] | run [ARGS…] | name" ;;
esac
