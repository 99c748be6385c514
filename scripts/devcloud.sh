#!/usr/bin/env bash
# devcloud: real OpenStack Zed from Debian 12's packages, on 127.0.0.1, for integration tests.
#
#   scripts/devcloud.sh install  only install Debian's packages (CI does it while other suites run)
#   scripts/devcloud.sh up       install (if needed), configure, start and seed; a no-op when already up
#   scripts/devcloud.sh down     stop everything this script started (MariaDB last)
#   scripts/devcloud.sh status   per service: running or not, port, logs; exit 1 if anything is down
#   scripts/devcloud.sh reset    down + drop the databases + wipe the state, so the next `up` starts clean
#   scripts/devcloud.sh diagnose why Nova refused or failed servers: the scheduler's verdicts, warnings, errors
#
# The recipe behind it, with timings and pitfalls: reference/devcloud.md (shared with the team).
# Services use fake or no-op back ends: no hypervisor, storage, data plane, amphorae or bare metal.
# Needs root and Debian 12 (bookworm). Everything runs as root without systemd, each daemon in its own
# session (setsid), so its pid is its process-group id and `down` can stop it with all its children.
set -euo pipefail

# The region's scaffolding is made by `openregion region configure`, with the node the caller runs (found before
# PATH is narrowed below).
NODE_BIN=${OPENREGION_NODE:-$(command -v node || true)}
# pyenv-style shims put another python3 first on PATH, and `import keystone` then fails: use Debian's only.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
STATE=${OPENREGION_DEVCLOUD_STATE:-/var/lib/openregion-devcloud}
LOG=$STATE/log
RUN=$STATE/run
HOST=devcloud                        # nova/cinder/ironic `host`; also the fake OVS agent's host
KS=http://127.0.0.1:5000
DB_URL=mysql+pymysql://openstack:secret@127.0.0.1
RABBIT_URL=rabbit://guest:guest@127.0.0.1:5672/
RABBIT_PID_FILE=$STATE/rabbitmq/rabbitmq.pid
API_TIMEOUT=300                      # 2 cores, ~15 daemons importing at once: APIs take 30-55 s each
START=$(date +%s)

PACKAGES=(
  mariadb-server python3-pymysql uwsgi-core uwsgi-plugin-python3 curl openssl
  keystone python3-keystoneclient
  placement-api glance-api
  nova-api nova-conductor nova-scheduler
  neutron-server
  cinder-api cinder-scheduler cinder-volume
  octavia-api octavia-worker
  ironic-common
  rabbitmq-server
)
DATABASES=(keystone placement glance nova_api nova nova_cell0 neutron cinder octavia ironic)

# Every daemon we start has $RUN/<name>.pid. API daemons: "name port path" (any HTTP answer means up).
DAEMONS=(keystone placement glance-api nova-api nova-conductor nova-scheduler nova-compute neutron-server
  cinder-api cinder-scheduler cinder-volume octavia-api octavia-worker ironic)
declare -A API_PORT=([keystone]=5000 [placement]=8778 [glance-api]=9292 [nova-api]=8774 [neutron-server]=9696
  [cinder-api]=8776 [octavia-api]=9876 [ironic]=6385)
declare -A API_PATH=([keystone]=/v3)

# ---------------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------------

log() { printf '[devcloud +%ss] %s\n' "$(($(date +%s) - START))" "$*" >&2; }

# Print the tail of every log a service writes, so a CI failure says why without a second run.
show_logs() {
  local name=$1 f
  for f in "$LOG/setup-$name.log" "$LOG/$name.out" "$LOG/$name.log" "$LOG/$name-uwsgi.log"; do
    [[ -s $f ]] || continue
    printf -- '----- tail -n 40 %s\n' "$f" >&2
    tail -n 40 "$f" >&2
  done
}

fail() { # service message
  log "FAILED: $1: $2"
  show_logs "$1"
  exit 1
}

pid_of() { [[ -s $RUN/$1.pid ]] && cat "$RUN/$1.pid"; }
alive() { local pid; pid=$(pid_of "$1") && kill -0 "$pid" 2>/dev/null; }
api_url() { echo "http://127.0.0.1:${API_PORT[$1]}${API_PATH[$1]:-/}"; }
answers() { curl -s -o /dev/null --max-time 5 "$1"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
sql() { mysql --protocol=socket -uroot -Nse "$1"; }
mariadb_up() { mysqladmin --protocol=socket -uroot ping >/dev/null 2>&1; }
rabbit_pid() { [[ -s $RABBIT_PID_FILE ]] && cat "$RABBIT_PID_FILE"; }
rabbit_alive() { local pid; pid=$(rabbit_pid) && kill -0 "$pid" 2>/dev/null; }

# Background steps. Each runs in a subshell with its own log; set -e stays active inside because the
# subshell is not started in a tested context (`if ! (...)` would silently disable it).
declare -A JOBS=()
spawn() { # name function...
  local name=$1
  shift
  ("$@") >"$LOG/setup-$name.log" 2>&1 &
  JOBS[$name]=$!
}
await() { # names...: wait for these background steps; report every failure, then stop
  local name failed=()
  for name in "$@"; do
    wait "${JOBS[$name]}" || failed+=("$name")
    unset "JOBS[$name]"
  done
  if ((${#failed[@]})); then
    for name in "${failed[@]}"; do
      log "FAILED: setup of $name"
      show_logs "$name"
    done
    exit 1
  fi
}
step() { # a foreground step with the same logging and error handling
  spawn "$@"
  await "$1"
}

# Start a plain (eventlet) daemon in its own session: its pid is its process group.
start_daemon() { # name cmd...
  local name=$1
  shift
  alive "$name" && return 0
  (cd "$STATE" && exec setsid "$@" </dev/null >>"$LOG/$name.out" 2>&1) &
  echo $! >"$RUN/$name.pid"
}

# uwsgi without Debian's ini files (apparmor plugin, 8x32 workers). "Connection: close" because uwsgi's
# --http-socket closes the socket after every response without saying so, and keep-alive clients
# (keystoneauth inside the services, undici in our tests) then get ECONNRESET.
# Threads per process default to 4; nova-api needs 1 (see start_nova).
start_uwsgi() { # name port wsgi-file [threads]
  local name=$1 port=$2 wsgi=$3 threads=${4:-4}
  alive "$name" && return 0
  (cd "$STATE" && exec setsid uwsgi --plugins python3 --http-socket "127.0.0.1:$port" --wsgi-file "$wsgi" \
    --master --processes 2 --threads "$threads" --lazy-apps --die-on-term --enable-threads --buffer-size 65535 \
    --add-header "Connection: close" --procname-prefix-spaced "$name" \
    --logto "$LOG/$name-uwsgi.log" --pidfile "$RUN/$name.pid" </dev/null >>"$LOG/$name.out" 2>&1) &
  echo $! >"$RUN/$name.pid"
}

wait_api() { # name
  local name=$1 url deadline=$(($(date +%s) + API_TIMEOUT))
  url=$(api_url "$name")
  until answers "$url"; do
    alive "$name" || fail "$name" "process exited before $url answered"
    (($(date +%s) < deadline)) || fail "$name" "$url did not answer within ${API_TIMEOUT}s"
    sleep 0.25
  done
  log "$name answers on $url"
}

# A db sync is slow (3-40 s); skip it when it already ran against a database that still exists.
synced() { [[ -f $STATE/$1/.db-synced ]] && [[ -n $(sql "SHOW DATABASES LIKE '$2'") ]]; }
mark_synced() { touch "$STATE/$1/.db-synced"; }
create_db() { local db; for db in "$@"; do sql "CREATE DATABASE IF NOT EXISTS \`$db\`"; done; }

# [keystone_authtoken] for an API service; `service_auth user section` for calls to other services.
authtoken() {
  cat <<EOF
[keystone_authtoken]
www_authenticate_uri = $KS
auth_url = $KS
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $1
password = secret
region_name = RegionOne
service_token_roles_required = true
EOF
}
service_auth() { # user section
  cat <<EOF
[$2]
auth_url = $KS
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $1
password = secret
region_name = RegionOne
EOF
}
common_sections() { # db-name svc
  cat <<EOF
[database]
connection = $DB_URL/$1
[oslo_concurrency]
lock_path = $STATE/$2/lock
[oslo_messaging_notifications]
driver = noop
EOF
}

# ---------------------------------------------------------------------------------------------------------
# Install: one non-interactive apt run, no auto-starts, no fsync
# ---------------------------------------------------------------------------------------------------------

packages_installed() {
  local status
  status=$(dpkg-query -W -f='${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null) || return 1
  ! grep -qv '^installed$' <<<"$status"
}

install_packages() {
  if packages_installed; then
    log "packages already installed"
    return 0
  fi
  log "installing ${#PACKAGES[@]} packages (and their dependencies)"
  # postinst scripts call invoke-rc.d <svc> start; without systemd that would run the sysv scripts.
  local own_policy=
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    own_policy=1
  fi
  # Every question already defaults to false; preseed it anyway in case a default changes.
  local s q
  {
    for s in placement glance nova neutron cinder octavia ironic; do
      for q in configure_db configure_rabbit configure_ksat configure_api-endpoint; do
        echo "$s-common $s/$q boolean false"
      done
    done
    for q in configure_db create-admin-tenant register-endpoint; do echo "keystone keystone/$q boolean false"; done
    echo "nova-api nova-api/configure_db boolean false"
    echo "nova-common nova/configure_neutron boolean false"
    echo "nova-common nova/configure_placement boolean false"
    echo "neutron-common neutron/configure_nova boolean false"
  } | debconf-set-selections
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends eatmydata >/dev/null
  eatmydata apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
  [[ -z $own_policy ]] || rm -f /usr/sbin/policy-rc.d
  log "packages installed"
}

# ---------------------------------------------------------------------------------------------------------
# MariaDB and RabbitMQ
# ---------------------------------------------------------------------------------------------------------

start_mariadb() {
  # Debian's MariaDB logs to syslog, which a container usually lacks: log to a file beside the others.
  touch "$LOG/mariadb.log"
  chown mysql:mysql "$LOG/mariadb.log"
  cat >/etc/mysql/mariadb.conf.d/99-devcloud.cnf <<EOF
# devcloud: loopback only, and durability traded for speed (throwaway databases)
[mysqld_safe]
skip_syslog
log_error = $LOG/mariadb.log
[mysqld]
log_error = $LOG/mariadb.log
bind-address = 127.0.0.1
max_connections = 1000
innodb_flush_log_at_trx_commit = 0
innodb_doublewrite = 0
innodb_buffer_pool_size = 128M
sync_binlog = 0
skip-name-resolve
performance_schema = OFF
character-set-server = utf8mb4
collation-server = utf8mb4_general_ci
EOF
  if ! mariadb_up; then
    [[ -d /var/lib/mysql/mysql ]] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >"$LOG/mariadb-install.log" 2>&1
    mkdir -p /run/mysqld
    chown mysql:mysql /run/mysqld
    (exec setsid /usr/bin/mysqld_safe </dev/null >>"$LOG/mariadb.out" 2>&1) &
    local deadline=$(($(date +%s) + 60))
    until mariadb_up; do
      (($(date +%s) < deadline)) || fail mariadb "MariaDB did not answer mysqladmin ping within 60s"
      sleep 0.2
    done
    log "mariadb up"
  fi
  # One SQL user for every service.
  sql "CREATE USER IF NOT EXISTS 'openstack'@'127.0.0.1' IDENTIFIED BY 'secret';
       GRANT ALL PRIVILEGES ON *.* TO 'openstack'@'127.0.0.1';"
}

# Started early and waited for late: a first boot takes ~12 s. Its data and logs live under $STATE too.
start_rabbitmq() {
  mkdir -p "$STATE/rabbitmq/mnesia" "$LOG/rabbitmq"
  chown -R rabbitmq:rabbitmq "$STATE/rabbitmq" "$LOG/rabbitmq"
  cat >/etc/rabbitmq/rabbitmq-env.conf <<EOF
# devcloud: loopback only (so guest/guest works), state under $STATE
NODE_IP_ADDRESS=127.0.0.1
NODENAME=rabbit@localhost
PID_FILE=$RABBIT_PID_FILE
MNESIA_BASE=$STATE/rabbitmq/mnesia
LOG_BASE=$LOG/rabbitmq
export ERL_EPMD_ADDRESS=127.0.0.1
EOF
  if rabbit_alive || port_open 5672; then return 0; fi
  # The wrapper drops to the rabbitmq user by itself.
  (cd "$STATE" && exec setsid /usr/sbin/rabbitmq-server </dev/null >>"$LOG/rabbitmq.out" 2>&1) &
}

wait_rabbitmq() {
  local deadline=$(($(date +%s) + 120))
  until port_open 5672; do
    (($(date +%s) < deadline)) || fail rabbitmq "nothing listens on 127.0.0.1:5672 after 120s"
    sleep 0.25
  done
  log "rabbitmq up"
}

# ---------------------------------------------------------------------------------------------------------
# Keystone (uwsgi, 5000)
# ---------------------------------------------------------------------------------------------------------

setup_keystone() {
  mkdir -p "$STATE/keystone"
  cat >/etc/keystone/keystone.conf <<EOF
[DEFAULT]
[database]
connection = $DB_URL/keystone
[token]
provider = fernet
[fernet_tokens]
key_repository = $STATE/keystone/fernet-keys
[credential]
key_repository = $STATE/keystone/credential-keys
[oslo_policy]
policy_dirs = /etc/keystone/policy.d
EOF
  create_db keystone
  if ! synced keystone keystone; then
    keystone-manage db_sync
    [[ -d $STATE/keystone/fernet-keys ]] || keystone-manage fernet_setup --keystone-user root --keystone-group root
    [[ -d $STATE/keystone/credential-keys ]] ||
      keystone-manage credential_setup --keystone-user root --keystone-group root
    # admin/secret in project admin, roles admin/member/reader, RegionOne, and the identity endpoints.
    keystone-manage bootstrap --bootstrap-password secret --bootstrap-region-id RegionOne \
      --bootstrap-admin-url "$KS/v3/" --bootstrap-internal-url "$KS/v3/" --bootstrap-public-url "$KS/v3/"
    mark_synced keystone
  fi
  start_uwsgi keystone 5000 /usr/bin/keystone-wsgi-public
  wait_api keystone
}

# Service users and the catalog for the other seven services (scripts/devcloud.py, idempotent).
register_catalog() {
  [[ -f $STATE/keystone/.catalog ]] && return 0
  python3 "$SCRIPT_DIR/devcloud.py" catalog
  touch "$STATE/keystone/.catalog"
}

# ---------------------------------------------------------------------------------------------------------
# Placement (uwsgi, 8778)
# ---------------------------------------------------------------------------------------------------------

setup_placement() {
  mkdir -p "$STATE/placement/lock"
  {
    cat <<EOF
[DEFAULT]
[api]
auth_strategy = keystone
[placement_database]
connection = $DB_URL/placement
[oslo_concurrency]
lock_path = $STATE/placement/lock
EOF
    authtoken placement
  } >/etc/placement/placement.conf
  create_db placement
  if ! synced placement placement; then
    placement-manage db sync
    mark_synced placement
  fi
}
start_placement() { start_uwsgi placement 8778 /usr/bin/placement-api; }

# ---------------------------------------------------------------------------------------------------------
# Glance (eventlet, 9292, file store)
# ---------------------------------------------------------------------------------------------------------

setup_glance() {
  mkdir -p "$STATE/glance/"{images,staging,tasks,lock}
  {
    cat <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = 9292
workers = 1
enabled_backends = file:file
[glance_store]
default_backend = file
[file]
filesystem_store_datadir = $STATE/glance/images
[os_glance_staging_store]
filesystem_store_datadir = $STATE/glance/staging
[os_glance_tasks_store]
filesystem_store_datadir = $STATE/glance/tasks
[paste_deploy]
flavor = keystone
EOF
    common_sections glance glance
    authtoken glance
  } >/etc/glance/glance-api.conf
  create_db glance
  if ! synced glance glance; then
    glance-manage --config-file /etc/glance/glance-api.conf db_sync
    mark_synced glance
  fi
}
start_glance() {
  start_daemon glance-api glance-api --config-file /etc/glance/glance-api.conf --log-file "$LOG/glance-api.log"
}

# ---------------------------------------------------------------------------------------------------------
# Nova (uwsgi API 8774 + conductor + scheduler + compute with fake.FakeDriver)
# ---------------------------------------------------------------------------------------------------------

setup_nova() {
  mkdir -p "$STATE/nova/"{instances,lock}
  {
    cat <<EOF
[DEFAULT]
# 0: periodic tasks (the scheduler's host discovery) start at once instead of after up to 60 s
periodic_fuzzy_delay = 0
host = $HOST
my_ip = 127.0.0.1
state_path = $STATE/nova
instances_path = $STATE/nova/instances
transport_url = $RABBIT_URL
compute_driver = fake.FakeDriver
enabled_apis = osapi_compute
osapi_compute_listen = 127.0.0.1
osapi_compute_workers = 1
heal_instance_info_cache_interval = 60
[api]
auth_strategy = keystone
[wsgi]
api_paste_config = /etc/nova/api-paste.ini
[api_database]
connection = $DB_URL/nova_api
[conductor]
workers = 1
[scheduler]
workers = 1
discover_hosts_in_cells_interval = 2
[compute]
# 0: nova-compute reads its provider from Placement once, not every 300 s. A refresh sees inventory the region
# contract adds to this provider (a custom class, as an operator would) and puts back the driver's own, so a test
# that crosses the refresh loses the class mid-way and its server goes NoValidHost.
resource_provider_association_refresh = 0
[filter_scheduler]
# The server-group filters make affinity and anti-affinity groups schedulable (identity server groups).
enabled_filters = ComputeFilter,ComputeCapabilitiesFilter,ImagePropertiesFilter,ServerGroupAffinityFilter,ServerGroupAntiAffinityFilter
[vnc]
# Console sessions: the fake driver answers a VNC console; the URL points at a proxy nobody runs here.
enabled = true
novncproxy_base_url = http://127.0.0.1:6080/vnc_auto.html
[glance]
region_name = RegionOne
[cinder]
os_region_name = RegionOne
EOF
    common_sections nova nova
    authtoken nova
    service_auth nova placement
    service_auth nova neutron
    # Cinder refuses Nova's attachment deletes (409 ConflictNovaUsingAttachment) without a service token.
    service_auth nova service_user
    echo 'send_service_user_token = true'
  } >/etc/nova/nova.conf
  create_db nova_api nova nova_cell0
  if ! synced nova nova; then
    nova-manage api_db sync
    nova-manage cell_v2 map_cell0 --database_connection "$DB_URL/nova_cell0"
    nova-manage cell_v2 list_cells | grep -q ' cell1 ' || nova-manage cell_v2 create_cell --name cell1
    nova-manage db sync
    mark_synced nova
  fi
}
start_nova() {
  # One thread per process: nova-api waits on RPC replies (console output, attach's device reservation) through
  # eventlet, and with several uwsgi threads the reply can land on another thread's hub and never wake the
  # waiting request, which then times out after 60 s with a 500.
  start_uwsgi nova-api 8774 /usr/bin/nova-api-wsgi 1
  start_daemon nova-conductor nova-conductor --config-file /etc/nova/nova.conf --log-file "$LOG/nova-conductor.log"
  start_daemon nova-scheduler nova-scheduler --config-file /etc/nova/nova.conf --log-file "$LOG/nova-scheduler.log"
  # The nova-compute package would pull in libvirt and qemu; the code is in python3-nova. argv[0] makes the
  # process look like the packaged entry point.
  start_daemon nova-compute python3 -c \
    'import sys; sys.argv[0]="/usr/bin/nova-compute"; from nova.cmd.compute import main; sys.exit(main())' \
    --config-file /etc/nova/nova.conf --log-file "$LOG/nova-compute.log"
}

# A boot fails with HostMappingNotFound until the compute node is mapped to cell1: wait for it to register,
# then map it ourselves rather than waiting for the scheduler's periodic task.
map_compute_host() {
  local deadline=$(($(date +%s) + API_TIMEOUT))
  until [[ $(sql "SELECT count(*) FROM nova.compute_nodes WHERE deleted=0 AND host='$HOST'") -gt 0 ]]; do
    alive nova-compute || fail nova-compute "nova-compute exited before registering its compute node"
    (($(date +%s) < deadline)) || fail nova-compute "compute node not registered within ${API_TIMEOUT}s"
    sleep 0.5
  done
  if [[ $(sql "SELECT count(*) FROM nova_api.host_mappings WHERE host='$HOST'") -eq 0 ]]; then
    nova-manage cell_v2 discover_hosts >>"$LOG/setup-nova.log" 2>&1 || fail nova "nova-manage cell_v2 discover_hosts"
  fi
  # The node's row comes before its resource provider's inventory (a second or two, longer on a loaded machine);
  # until placement has it, every boot fails NoValidHost.
  until [[ $(sql "SELECT count(*) FROM placement.inventories i JOIN placement.resource_providers rp
                  ON rp.id = i.resource_provider_id WHERE rp.name = '$HOST'") -gt 0 ]]; do
    alive nova-compute || fail nova-compute "nova-compute exited before reporting its inventory to placement"
    (($(date +%s) < deadline)) || fail nova-compute "no inventory in placement within ${API_TIMEOUT}s"
    sleep 0.5
  done
  log "nova-compute registered, its inventory in placement, and host $HOST mapped"
}

# ---------------------------------------------------------------------------------------------------------
# Neutron (eventlet, 9696): API only, ML2/openvswitch, no agents but one fake OVS agent row
# ---------------------------------------------------------------------------------------------------------

setup_neutron() {
  mkdir -p "$STATE/neutron/lock" /etc/neutron/plugins/ml2
  {
    cat <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = 9696
api_workers = 1
rpc_workers = 0
rpc_state_report_workers = 0
auth_strategy = keystone
core_plugin = ml2
service_plugins = router
allow_overlapping_ips = true
transport_url = $RABBIT_URL
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
dhcp_agent_notification = false
state_path = $STATE/neutron
api_paste_config = /etc/neutron/api-paste.ini
EOF
    common_sections neutron neutron
    authtoken neutron
    service_auth neutron nova
  } >/etc/neutron/neutron.conf
  # Not Debian's openvswitch,l2population + router,metering,qos: openvswitch alone is enough for CRUD.
  cat >/etc/neutron/plugins/ml2/ml2_conf.ini <<'EOF'
[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vxlan
mechanism_drivers = openvswitch
extension_drivers = port_security
[ml2_type_flat]
flat_networks = *
[ml2_type_vlan]
network_vlan_ranges = physnet1:100:200
[ml2_type_vxlan]
vni_ranges = 1:1000
[securitygroup]
enable_security_group = true
firewall_driver = noop
EOF
  create_db neutron
  if ! synced neutron neutron; then
    neutron-db-manage --config-file /etc/neutron/neutron.conf --config-file /etc/neutron/plugins/ml2/ml2_conf.ini \
      upgrade heads
    mark_synced neutron
  fi
  # Without an L2 agent ML2 cannot bind ports (binding:vif_type stays unbound) and Nova servers with a
  # network never boot. One agent row that is "alive" until 2099 lets ML2 bind them; there is no data plane.
  sql "DELETE FROM neutron.agents WHERE host='$HOST' AND agent_type='Open vSwitch agent';
       INSERT INTO neutron.agents (id, agent_type, \`binary\`, topic, host, admin_state_up, created_at,
         started_at, heartbeat_timestamp, configurations, \`load\`, resources_synced)
       VALUES (UUID(), 'Open vSwitch agent', 'neutron-openvswitch-agent', 'N/A', '$HOST', 1, NOW(), NOW(),
         '2099-01-01 00:00:00', '$(fake_ovs_agent_configuration)', 0, 1);"
}
fake_ovs_agent_configuration() {
  printf '%s' '{"bridge_mappings": {"public": "br-ex", "physnet1": "br-eth1"}, "tunnel_types": ["vxlan"],' \
    ' "ovs_hybrid_plug": false, "integration_bridge": "br-int", "datapath_type": "system",' \
    ' "ovs_capabilities": {"datapath_types": ["system"], "iface_types": []},' \
    ' "enable_distributed_routing": false, "l2_population": false, "arp_responder_enabled": false,' \
    ' "extensions": [], "devices": 0}'
}
start_neutron() {
  start_daemon neutron-server neutron-server --config-file /etc/neutron/neutron.conf \
    --config-file /etc/neutron/plugins/ml2/ml2_conf.ini --log-file "$LOG/neutron-server.log"
}

# ---------------------------------------------------------------------------------------------------------
# Cinder (uwsgi API 8776 + scheduler + volume with a fake driver)
# ---------------------------------------------------------------------------------------------------------

setup_cinder() {
  mkdir -p "$STATE/cinder/"{lock,fakecinder}
  # cinder's own FakeLoggingVolumeDriver leaves extended volumes in error_extending (its fake LVM has no
  # extend_volume); this subclass makes extend and retype succeed. On PYTHONPATH for cinder-volume only.
  cat >"$STATE/cinder/fakecinder/fakecinder.py" <<'EOF'
"""devcloud: cinder's fake volume driver, with extend and retype that succeed."""
from cinder.tests.fake_driver import FakeLoggingVolumeDriver


class FakeDriver(FakeLoggingVolumeDriver):
    def extend_volume(self, volume, new_size):
        pass

    def retype(self, context, volume, new_type, diff, host):
        return True, None
EOF
  {
    cat <<EOF
[DEFAULT]
host = $HOST
my_ip = 127.0.0.1
state_path = $STATE/cinder
transport_url = $RABBIT_URL
auth_strategy = keystone
api_paste_config = /etc/cinder/api-paste.ini
osapi_volume_listen = 127.0.0.1
osapi_volume_workers = 1
enabled_backends = fake
default_volume_type = __DEFAULT__
periodic_fuzzy_delay = 0
# cinder-scheduler otherwise ignores SIGTERM for up to 60 s, and down has to KILL it
graceful_shutdown_timeout = 3
[fake]
volume_driver = fakecinder.FakeDriver
volume_backend_name = fake
EOF
    common_sections cinder cinder
    authtoken cinder
  } >/etc/cinder/cinder.conf
  create_db cinder
  if ! synced cinder cinder; then
    cinder-manage db sync
    mark_synced cinder
  fi
}
start_cinder() {
  start_uwsgi cinder-api 8776 /usr/bin/cinder-wsgi
  start_daemon cinder-scheduler cinder-scheduler --config-file /etc/cinder/cinder.conf \
    --log-file "$LOG/cinder-scheduler.log"
  start_daemon cinder-volume env PYTHONPATH="$STATE/cinder/fakecinder" cinder-volume \
    --config-file /etc/cinder/cinder.conf --log-file "$LOG/cinder-volume.log"
}

# ---------------------------------------------------------------------------------------------------------
# Octavia (uwsgi API 9876 + worker): amphora provider, no-op amphora driver, Nova compute, allowed-address-pairs
# ---------------------------------------------------------------------------------------------------------

# The network driver is the real one (allowed_address_pairs_driver), so each load balancer's VIP is a Neutron port in
# the tenant's project (a floating IP can point at it) and its security group is real. That driver plugs the VIP's
# VRRP port into the amphora by a Nova interface attach and reads the interface Nova returns, which the no-op
# compute driver does not give (its attach returns None: the load balancer goes ERROR). So amphorae are real Nova
# servers of the fake virt driver (a few seconds each, in the service project), and only the amphora driver, which
# would talk to an agent inside the amphora, stays a no-op. The management network, flavor and image the worker
# needs exist only once Neutron, Nova and Glance answer: `devcloud.py octavia` makes them after the seed and writes
# the worker's second config file, so the worker starts last.
OCTAVIA_AMPHORA_CONF=$STATE/octavia/amphora.conf

# Replace a file only when its content changes, so its mtime says when a running daemon's config went stale.
write_if_changed() { # file (content on stdin)
  cat >"$1.new"
  if cmp -s "$1.new" "$1"; then rm -f "$1.new"; else mv "$1.new" "$1"; fi
}

setup_octavia() {
  local certs=$STATE/octavia/certs
  mkdir -p "$certs" "$STATE/octavia/lock"
  # CertComputeCreate reads the client CA (and puts it on the amphora's config drive); without one the first load
  # balancer goes to ERROR (FileNotFoundError). A throwaway CA serves every CA/cert option.
  [[ -s $certs/ca.pem ]] || openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=devcloud-octavia-ca \
    -keyout "$certs/ca.key" -out "$certs/ca.pem"
  {
    cat <<EOF
[DEFAULT]
transport_url = $RABBIT_URL
[api_settings]
bind_host = 127.0.0.1
bind_port = 9876
auth_strategy = keystone
enabled_provider_drivers = amphora:The Octavia Amphora driver (noop amphora agent),noop_driver:NoOp provider driver
default_provider_driver = amphora
[controller_worker]
amphora_driver = amphora_noop_driver
compute_driver = compute_nova_driver
network_driver = allowed_address_pairs_driver
volume_driver = volume_noop_driver
image_driver = image_glance_driver
loadbalancer_topology = SINGLE
workers = 1
# The fake virt driver boots in seconds: poll Nova every second (Octavia's default is every 10 s), for 5 minutes.
amp_active_wait_sec = 1
amp_active_retries = 300
client_ca = $certs/ca.pem
[task_flow]
jobboard_enabled = False
[oslo_messaging]
topic = octavia_prov
[certificates]
cert_generator = local_cert_generator
ca_certificate = $certs/ca.pem
ca_private_key = $certs/ca.key
[haproxy_amphora]
server_ca = $certs/ca.pem
client_cert = $certs/ca.pem
EOF
    common_sections octavia octavia
    authtoken octavia
    service_auth octavia service_auth
  } | write_if_changed /etc/octavia/octavia.conf
  create_db octavia
  if ! synced octavia octavia; then
    octavia-db-manage --config-file /etc/octavia/octavia.conf upgrade head
    mark_synced octavia
  fi
}

# A daemon still running from before its config changed (a dev cloud brought up by an older version of this
# script) is stopped here, so the start that follows runs it with the new config. Nothing else is restarted.
restart_if_stale() { # name config...
  local name=$1 f
  shift
  alive "$name" || return 0
  for f in "$@"; do
    if [[ $f -nt $RUN/$name.pid ]]; then
      log "$name: $f changed since it started; restarting it"
      stop_pids "$(pid_of "$name")"
      rm -f "$RUN/$name.pid"
      return 0
    fi
  done
}

start_octavia() {
  restart_if_stale octavia-api /etc/octavia/octavia.conf
  start_uwsgi octavia-api 9876 /usr/bin/octavia-wsgi
}

# After the seed: the service project's management network, flavor and image (devcloud.py octavia), then the worker.
setup_octavia_amphorae() {
  [[ -s $OCTAVIA_AMPHORA_CONF ]] && return 0
  python3 "$SCRIPT_DIR/devcloud.py" octavia "$OCTAVIA_AMPHORA_CONF"
}
start_octavia_worker() {
  restart_if_stale octavia-worker /etc/octavia/octavia.conf "$OCTAVIA_AMPHORA_CONF"
  start_daemon octavia-worker octavia-worker --config-file /etc/octavia/octavia.conf \
    --config-file "$OCTAVIA_AMPHORA_CONF" --log-file "$LOG/octavia-worker.log"
}
# The running Octavia daemons were started with today's config files.
octavia_current() {
  [[ -s $OCTAVIA_AMPHORA_CONF ]] && grep -q '^network_driver = allowed_address_pairs_driver$' /etc/octavia/octavia.conf &&
    [[ ! /etc/octavia/octavia.conf -nt $RUN/octavia-api.pid && ! /etc/octavia/octavia.conf -nt $RUN/octavia-worker.pid &&
      ! $OCTAVIA_AMPHORA_CONF -nt $RUN/octavia-worker.pid ]]
}

# ---------------------------------------------------------------------------------------------------------
# Ironic (API + conductor in one process, fake-hardware, no message bus, 6385)
# ---------------------------------------------------------------------------------------------------------

setup_ironic() {
  mkdir -p "$STATE/ironic/lock"
  {
    # Only fake-hardware: manual-management makes the conductor refuse to start (no default boot interface).
    cat <<EOF
[DEFAULT]
host = $HOST
my_ip = 127.0.0.1
state_path = $STATE/ironic
auth_strategy = keystone
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake,noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_vendor_interfaces = fake,no-vendor
enabled_bios_interfaces = fake,no-bios
enabled_network_interfaces = noop
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = noop
[api]
host_ip = 127.0.0.1
port = 6385
api_workers = 1
[conductor]
automated_clean = false
[dhcp]
dhcp_provider = none
EOF
    common_sections ironic ironic
    authtoken ironic
    service_auth ironic service_catalog
  } >/etc/ironic/ironic.conf
  create_db ironic
  if ! synced ironic ironic; then
    ironic-dbsync --config-file /etc/ironic/ironic.conf upgrade
    mark_synced ironic
  fi
}
start_ironic() { start_daemon ironic ironic --config-file /etc/ironic/ironic.conf --log-file "$LOG/ironic.log"; }

# ---------------------------------------------------------------------------------------------------------
# openregion's domain-manager policies (deploy/policies/, docs/adr/0010)
# ---------------------------------------------------------------------------------------------------------

POLICY_SERVICES=(keystone nova neutron cinder glance placement ironic)
policy_file() { echo "/etc/$1/policy.d/openregion-domain-manager.yaml"; }

# Each service reads <config dir>/policy.d (Keystone: policy_dirs in keystone.conf), and oslo.policy re-reads a
# changed file on the next request: installing or updating them needs no restart.
install_policies() {
  local svc
  for svc in "${POLICY_SERVICES[@]}"; do
    mkdir -p "/etc/$svc/policy.d"
    install -m 0644 "$REPO_DIR/deploy/policies/$svc.yaml" "$(policy_file "$svc")"
  done
}
policies_installed() {
  local svc
  for svc in "${POLICY_SERVICES[@]}"; do cmp -s "$REPO_DIR/deploy/policies/$svc.yaml" "$(policy_file "$svc")" || return 1; done
}

# ---------------------------------------------------------------------------------------------------------
# Seed data for the region service (scripts/devcloud.py; a CONTRACT for the tests) and clouds.yaml
# ---------------------------------------------------------------------------------------------------------

seed() {
  [[ -f $STATE/.seeded ]] && return 0
  python3 "$SCRIPT_DIR/devcloud.py" seed
  touch "$STATE/.seeded"
}

# Up means a server boots: the scheduler can still refuse every host after each API answers and the compute node
# is in Placement. Measured on a restart: ComputeFilter removed the host for 25 s (the service reads down until
# nova-compute's first heartbeat, later with hundreds of instances to look over), the NoValidHost of a CI run's
# first boot. One boot of or.small (no network), retried on ERROR, then deleted; a few seconds when none fails.
smoke_boot() {
  if python3 "$SCRIPT_DIR/devcloud.py" smoke >"$LOG/setup-smoke.log" 2>&1; then
    log "$(tail -n 1 "$LOG/setup-smoke.log")"
    return 0
  fi
  log "FAILED: no server booted"
  cat "$LOG/setup-smoke.log" >&2
  cmd_diagnose >&2
  exit 1
}

# The admin entry; `region configure` adds devcloud-region (domain-scoped) and devcloud-region-project. An
# existing file is left as it is, so a rerun never drops the region's entries under a running test suite.
write_clouds_yaml() {
  [[ -f $STATE/clouds.yaml ]] && grep -q '^  devcloud-admin:' "$STATE/clouds.yaml" && return 0
  cat >"$STATE/clouds.yaml.tmp" <<'EOF'
# devcloud credentials (throwaway passwords). OS_CLIENT_CONFIG_FILE=<this file> OS_CLOUD=<name>
clouds:
  devcloud-admin:
    auth:
      auth_url: "http://127.0.0.1:5000/v3"
      username: "admin"
      password: "secret"
      user_domain_name: "Default"
      project_name: "admin"
      project_domain_name: "Default"
    region_name: "RegionOne"
    identity_api_version: "3"
EOF
  chmod 0600 "$STATE/clouds.yaml.tmp"
  mv "$STATE/clouds.yaml.tmp" "$STATE/clouds.yaml"
}

# The region's scaffolding, as an operator makes it: `openregion region configure` with the admin credential.
# Domain openregion, project and user openregion-region and their grants (manager on the domain inherited to its
# projects, docs/adr/0010); the credentials in $STATE/region.env, and the clouds.yaml entries devcloud-region
# (domain-scoped) and devcloud-region-project the contract suite reads. The password stays `secret`, the dev
# cloud's throwaway password for every account. Idempotent: a second run writes nothing to Keystone.
configure_region() {
  [[ -n $NODE_BIN ]] || fail region "node is not on PATH: install Node 20 and run npm ci (or set OPENREGION_NODE)"
  [[ -d $REPO_DIR/node_modules/tsx ]] || fail region "$REPO_DIR/node_modules has no tsx: run npm ci first"
  (cd "$REPO_DIR" && OS_CLIENT_CONFIG_FILE="$STATE/clouds.yaml" OPENREGION_REGION_PASSWORD=secret \
    "$NODE_BIN" --import tsx src/cli/main.ts region configure --prefix openregion --os-cloud devcloud-admin \
    --provider-env "$STATE/region.env" --clouds-yaml "$STATE/clouds.yaml" --cloud-name devcloud-region)
}

# ---------------------------------------------------------------------------------------------------------
# Subcommands
# ---------------------------------------------------------------------------------------------------------

# Healthy: every pid file alive, every API answers, MariaDB and RabbitMQ up, seed done.
healthy() {
  local name
  mariadb_up && rabbit_alive && policies_installed && octavia_current || return 1
  [[ -f $STATE/.seeded && -f $STATE/clouds.yaml && -s $STATE/region.env ]] || return 1
  for name in "${DAEMONS[@]}"; do
    alive "$name" || return 1
    [[ -z ${API_PORT[$name]:-} ]] || answers "$(api_url "$name")" || return 1
  done
}

cmd_up() {
  [[ $EUID -eq 0 ]] || { echo "devcloud: must run as root" >&2; exit 1; }
  mkdir -p "$LOG" "$RUN"
  if command -v mysqladmin >/dev/null && healthy; then
    log "already up (state in $STATE); took $(($(date +%s) - START)) s"
    return 0
  fi
  install_packages
  install_policies
  start_mariadb
  start_rabbitmq
  # Keystone in the foreground; every other service's config and db sync meanwhile, in parallel.
  local svc others=(placement glance nova neutron cinder octavia ironic)
  for svc in "${others[@]}"; do spawn "$svc" "setup_$svc"; done
  step keystone setup_keystone
  step catalog register_catalog
  await "${others[@]}"
  wait_rabbitmq
  for svc in "${others[@]}"; do "start_$svc"; done
  local name
  for name in "${!API_PORT[@]}"; do wait_api "$name"; done
  for name in "${DAEMONS[@]}"; do
    [[ $name == octavia-worker ]] || alive "$name" || fail "$name" "process exited"
  done
  map_compute_host
  step seed seed
  step octavia-amphorae setup_octavia_amphorae
  start_octavia_worker
  smoke_boot
  alive octavia-worker || fail octavia-worker "process exited"
  write_clouds_yaml
  step region configure_region
  log "devcloud up: ${#DAEMONS[@]} daemons + MariaDB + RabbitMQ; credentials in $STATE/clouds.yaml"
  log "up took $(($(date +%s) - START)) s"
}

# TERM each process group, wait up to 10 s, then KILL what is left.
stop_pids() { # pid...
  local pid deadline=$(($(date +%s) + 10)) left
  for pid in "$@"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  while :; do
    left=()
    for pid in "$@"; do
      if kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null; then left+=("$pid"); fi
    done
    ((${#left[@]})) || return 0
    (($(date +%s) < deadline)) || break
    sleep 0.2
  done
  for pid in "${left[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; done
}

stop_daemons() {
  local f pids=()
  for f in "$RUN"/*.pid; do [[ -s $f ]] && pids+=("$(cat "$f")"); done
  [[ -s $RABBIT_PID_FILE ]] && pids+=("$(cat "$RABBIT_PID_FILE")")
  if ((${#pids[@]})); then
    log "stopping ${#pids[@]} process groups"
    stop_pids "${pids[@]}"
  fi
  rm -f "$RUN"/*.pid "$RABBIT_PID_FILE"
  # The Erlang port mapper was started by RabbitMQ; it exits on request once no node is registered.
  if command -v epmd >/dev/null; then epmd -kill >/dev/null 2>&1 || true; fi
}

stop_mariadb() {
  command -v mysqladmin >/dev/null && mariadb_up || return 0
  log "stopping mariadb"
  mysqladmin --protocol=socket -uroot shutdown
  local deadline=$(($(date +%s) + 30))
  while [[ -e /run/mysqld/mysqld.sock ]] && (($(date +%s) < deadline)); do sleep 0.2; done
}

cmd_down() {
  stop_daemons
  stop_mariadb # last: nothing may still be writing to it
  log "down"
}

cmd_reset() {
  stop_daemons
  if command -v mysqld_safe >/dev/null; then
    mkdir -p "$LOG"
    start_mariadb # needed for the drops (and harmless if already up)
    # DROP DATABASE waits forever on metadata locks held by idle pooled connections: daemons are stopped.
    local db
    for db in "${DATABASES[@]}"; do sql "DROP DATABASE IF EXISTS \`$db\`"; done
    log "dropped ${DATABASES[*]}"
    stop_mariadb
  fi
  rm -rf "${STATE:?}"/{keystone,placement,glance,nova,neutron,cinder,octavia,ironic,rabbitmq,log,run}
  rm -f "$STATE/.seeded" "$STATE/clouds.yaml" "$STATE/region.env"
  log "reset: state wiped in $STATE"
}

# Summed RSS (MiB) of every process group we started, plus MariaDB and RabbitMQ (which drop privileges).
mem_mib() {
  local f pgids=() kb=0
  for f in "$RUN"/*.pid; do [[ -s $f ]] && pgids+=("$(cat "$f")"); done
  kb=$(ps -eo pgid=,user=,comm=,rss= | awk -v groups="${pgids[*]}" '
    BEGIN { n = split(groups, g, " "); for (i = 1; i <= n; i++) want[g[i]] = 1 }
    want[$1] || $2 == "rabbitmq" || $2 == "mysql" || $3 == "mysqld_safe" { sum += $4 }
    END { print sum + 0 }')
  echo $((kb / 1024))
}

cmd_status() {
  local name state down=0 port
  printf '%-18s %-8s %-6s %s\n' SERVICE STATE PORT LOGS
  if command -v mysqladmin >/dev/null && mariadb_up; then state=running; else state=DOWN down=1; fi
  printf '%-18s %-8s %-6s %s\n' mariadb "$state" 3306 "$LOG/mariadb.log $LOG/mariadb.out"
  if rabbit_alive && port_open 5672; then state=running; else state=DOWN down=1; fi
  printf '%-18s %-8s %-6s %s\n' rabbitmq "$state" 5672 "$LOG/rabbitmq/ $LOG/rabbitmq.out"
  for name in "${DAEMONS[@]}"; do
    port=${API_PORT[$name]:-}
    if alive "$name" && { [[ -z $port ]] || answers "$(api_url "$name")"; }; then state=running; else state=DOWN down=1; fi
    local existing=() f
    for f in "$LOG/$name"{.log,.out,-uwsgi.log}; do [[ -e $f ]] && existing+=("$f"); done
    printf '%-18s %-8s %-6s %s\n' "$name" "$state" "${port:--}" "${existing[*]:-$LOG/$name.*}"
  done
  printf 'mem %s MiB RSS (all started process groups + mariadb + rabbitmq)\n' "$(mem_mib)"
  printf 'clouds.yaml %s\n' "$STATE/clouds.yaml"
  return "$down"
}

# Why Nova refused or failed servers (and Octavia its load balancers): the scheduler's verdicts (it says why at INFO) and every warning and error of
# the services a boot passes through, newest last. .ci/run prints this when a suite on the dev cloud fails.
cmd_diagnose() {
  local name f
  for name in nova-scheduler nova-conductor nova-compute nova-api placement neutron-server cinder-volume octavia-worker; do
    for f in "$LOG/$name.log" "$LOG/$name-uwsgi.log"; do
      [[ -s $f ]] || continue
      printf -- '----- %s: verdicts, warnings and errors (last 15)\n' "$f"
      { grep -E ' (WARNING|ERROR|CRITICAL) |Filtering removed all hosts|no allocation candidates|Unable to submit allocation' "$f" || true; } |
        { grep -vE 'Deprecated|RPCClient manually| ERROR [^ ]+ ( |Traceback|$)' || true; } | cut -c1-500 | tail -n 15
    done
  done
}

usage() {
  echo "usage: $0 install|up|down|status|reset|diagnose   (state: $STATE)" >&2
  exit 2
}

cmd_install() {
  [[ $EUID -eq 0 ]] || { echo "devcloud: must run as root" >&2; exit 1; }
  mkdir -p "$LOG" "$RUN"
  install_packages
}

case "${1:-}" in
  install) cmd_install ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  reset) cmd_reset ;;
  diagnose) cmd_diagnose ;;
  *) usage ;;
esac
