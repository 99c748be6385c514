"""devcloud: Keystone catalog registration and seed data, run by scripts/devcloud.sh with Debian's python3.

    python3 scripts/devcloud.py catalog   service project/users/roles and the catalog for RegionOne
    python3 scripts/devcloud.py seed      the objects the region service's contract tests rely on (the region's
                                          own domain, project and user come from `openregion region configure`)
    python3 scripts/devcloud.py smoke     boot one server and delete it: the cloud is up when Nova can place and
                                          build a server, which comes after every API answers
    python3 scripts/devcloud.py octavia FILE   what Octavia's worker needs to build amphorae in Nova (a management
                                          network, a private flavor, an image tagged `amphora`, unlimited quotas in
                                          the service project); writes the worker's config fragment naming them

Every step looks its object up by name first, so both commands can run any number of times.
The seed names are a contract: change them only together with the tests that use them.
"""

import os
import sys
import time

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from keystoneclient.v3 import client as ks_client

AUTH_URL = "http://127.0.0.1:5000/v3"
REGION = "RegionOne"
PASSWORD = "secret"

# (service type, service name, URL); public, internal and admin endpoints all use the URL.
CATALOG = [
    ("placement", "placement", "http://127.0.0.1:8778"),
    ("image", "glance", "http://127.0.0.1:9292"),
    ("compute", "nova", "http://127.0.0.1:8774/v2.1"),
    ("network", "neutron", "http://127.0.0.1:9696"),
    # Different clients look Cinder up under different types: register both.
    ("volumev3", "cinderv3", "http://127.0.0.1:8776/v3/%(project_id)s"),
    ("block-storage", "cinder", "http://127.0.0.1:8776/v3/%(project_id)s"),
    ("load-balancer", "octavia", "http://127.0.0.1:9876"),
    ("baremetal", "ironic", "http://127.0.0.1:6385"),
]
SERVICE_USERS = ["placement", "glance", "nova", "neutron", "cinder", "octavia", "ironic"]

# Image properties the region service validates (upstream v2.image.schema.json): kernel, family,
# distro, version and virtualization are required.
IMAGES = {
    "or-image-a": {
        "unikorn:os:kernel": "linux",
        "unikorn:os:family": "debian",
        "unikorn:os:distro": "ubuntu",
        "unikorn:os:version": "24.04",
        "unikorn:os:codename": "noble",
        "unikorn:os:variant": "server",
        "unikorn:virtualization": "virtualized",
        "unikorn:package:kubernetes": "v1.30.2",
        "architecture": "x86_64",
    },
    "or-image-b": {
        "unikorn:os:kernel": "linux",
        "unikorn:os:family": "redhat",
        "unikorn:os:distro": "rocky",
        "unikorn:os:version": "9.4",
        "unikorn:virtualization": "any",
        "architecture": "x86_64",
    },
    "or-image-deactivated": {
        "unikorn:os:kernel": "linux",
        "unikorn:os:family": "debian",
        "unikorn:os:distro": "debian",
        "unikorn:os:version": "12",
        "unikorn:os:codename": "bookworm",
        "unikorn:virtualization": "virtualized",
        "architecture": "x86_64",
    },
}
FLAVORS = [
    ("or.small", 1, 512, 1, {}),
    (
        "or.pinned",
        2,
        1024,
        1,
        {
            "resources:CUSTOM_BAREMETAL_GOLD": "1",
            "trait:CUSTOM_GOLD": "required",
            "trait:CUSTOM_MAINTENANCE": "forbidden",
        },
    ),
    (
        "or.baremetal",
        1,
        1024,
        10,
        {
            "resources:CUSTOM_BAREMETAL": "1",
            "resources:VCPU": "0",
            "resources:MEMORY_MB": "0",
            "resources:DISK_GB": "0",
        },
    ),
]
VOLUME_TYPES = ["or-standard", "or-fast"]


def log(msg):
    print(f"devcloud.py: {msg}", flush=True)


def admin_session():
    auth = v3.Password(
        auth_url=AUTH_URL,
        username="admin",
        password=PASSWORD,
        project_name="admin",
        user_domain_id="default",
        project_domain_id="default",
    )
    return ks_session.Session(auth=auth)


def only(items, name, what):
    """Exact-name post-filter (list filters may be fuzzy); two matches are an inconsistency."""
    found = [i for i in items if getattr(i, "name", None) == name or (isinstance(i, dict) and i.get("name") == name)]
    if len(found) > 1:
        raise SystemExit(f"devcloud.py: {len(found)} {what}s named {name!r}")
    return found[0] if found else None


# ---------------------------------------------------------------------------------------------- identity


def role(kc, name):
    r = only(kc.roles.list(name=name), name, "role")
    if r is None:
        r = kc.roles.create(name=name)
        log(f"role {name} created")
    return r


def project(kc, name, dom):
    p = only(kc.projects.list(name=name, domain=dom), name, "project")
    if p is None:
        p = kc.projects.create(name=name, domain=dom)
        log(f"project {name} created")
    return p


def user(kc, name, dom, project_=None):
    u = only(kc.users.list(name=name, domain=dom), name, "user")
    if u is None:
        u = kc.users.create(name=name, domain=dom, password=PASSWORD, default_project=project_)
        log(f"user {name} created")
    return u


def catalog(sess):
    kc = ks_client.Client(session=sess, interface="public")
    default = kc.domains.get("default")
    service_project = project(kc, "service", default)
    admin_role, service_role = role(kc, "admin"), role(kc, "service")
    for name in ("load-balancer_member", "load-balancer_admin", "creator"):
        role(kc, name)
    admin_project = project(kc, "admin", default)
    kc.roles.grant(role(kc, "load-balancer_admin"), user=user(kc, "admin", default), project=admin_project)
    for name in SERVICE_USERS:
        u = user(kc, name, default)
        # service: [keystone_authtoken] service_token_roles_required = true
        for r in (admin_role, service_role):
            kc.roles.grant(r, user=u, project=service_project)
    for stype, sname, url in CATALOG:
        svc = [s for s in kc.services.list(type=stype) if s.name == sname]
        svc = svc[0] if svc else kc.services.create(name=sname, type=stype, enabled=True)
        have = {e.interface: e for e in kc.endpoints.list(service=svc, region=REGION)}
        for interface in ("public", "internal", "admin"):
            e = have.get(interface)
            if e is None:
                kc.endpoints.create(service=svc, url=url, interface=interface, region=REGION)
            elif e.url != url:
                kc.endpoints.update(e, url=url)
        log(f"catalog: {stype} ({sname}) {url}")


# ---------------------------------------------------------------------------------------------- seed


class Api:
    """Plain REST calls against one catalog entry, with the admin token."""

    def __init__(self, sess, service_type, headers=None):
        self.sess = sess
        self.base = sess.auth.get_access(sess).service_catalog.url_for(
            service_type=service_type, interface="public", region_name=REGION
        ).rstrip("/")
        self.headers = headers or {}

    def call(self, method, path, **kwargs):
        headers = dict(self.headers, **kwargs.pop("headers", {}))
        kwargs.setdefault("raise_exc", True)
        return self.sess.request(self.base + path, method, headers=headers, **kwargs)

    def get(self, path):
        return self.call("GET", path).json()

    def post(self, path, body):
        return self.call("POST", path, json=body).json()


def seed_identity(kc):
    """The roles the region's grants name. The region's own domain, project, user and grants are not made here:
    scripts/devcloud.sh runs `openregion region configure` for them, as an operator would."""
    for name in ("manager", "load-balancer_member", "load-balancer_admin", "creator", "service"):
        role(kc, name)
    default = kc.domains.get("default")
    kc.roles.grant(role(kc, "load-balancer_admin"), user=user(kc, "admin", default), project=project(kc, "admin", default))
    log("identity: roles manager, load-balancer_member, load-balancer_admin, creator, service")


def seed_flavors(nova):
    flavors = nova.get("/flavors/detail?is_public=None")["flavors"]
    for name, vcpus, ram, disk, specs in FLAVORS:
        f = only(flavors, name, "flavor")
        if f is None:
            body = {"flavor": {"name": name, "vcpus": vcpus, "ram": ram, "disk": disk, "os-flavor-access:is_public": True}}
            f = nova.post("/flavors", body)["flavor"]
            log(f"flavor {name} created")
        if specs:
            nova.post(f"/flavors/{f['id']}/os-extra_specs", {"extra_specs": specs})


def seed_images(glance):
    for name, props in IMAGES.items():
        img = only(glance.get(f"/v2/images?name={name}")["images"], name, "image")
        if img is None:
            body = dict(props, name=name, disk_format="raw", container_format="bare", visibility="public")
            img = glance.post("/v2/images", body)
            log(f"image {name} created")
        if img["status"] == "queued":
            data = (f"openregion devcloud {name}\n".encode()) * 128  # a few KB
            glance.call("PUT", f"/v2/images/{img['id']}/file", data=data, headers={"Content-Type": "application/octet-stream"})
            img = glance.get(f"/v2/images/{img['id']}")
        if name == "or-image-deactivated" and img["status"] == "active":
            glance.call("POST", f"/v2/images/{img['id']}/actions/deactivate")
            img = glance.get(f"/v2/images/{img['id']}")
        log(f"image {name}: {img['status']}")


def seed_network(neutron):
    net = only(neutron.get("/v2.0/networks?name=or-external")["networks"], "or-external", "network")
    if net is None:
        body = {
            "network": {
                "name": "or-external",
                "provider:network_type": "flat",
                "provider:physical_network": "public",
                "router:external": True,
                "shared": False,
            }
        }
        net = neutron.post("/v2.0/networks", body)["network"]
        log("network or-external created")
    sub = only(neutron.get("/v2.0/subnets?name=or-external-subnet")["subnets"], "or-external-subnet", "subnet")
    if sub is None:
        body = {
            "subnet": {
                "name": "or-external-subnet",
                "network_id": net["id"],
                "ip_version": 4,
                "cidr": "203.0.113.0/24",
                "gateway_ip": "203.0.113.1",
                "enable_dhcp": False,
            }
        }
        neutron.post("/v2.0/subnets", body)
        log("subnet or-external-subnet created")


def seed_volume_types(cinder):
    types = cinder.get("/types?is_public=None")["volume_types"]
    for name in VOLUME_TYPES:
        if only(types, name, "volume type") is None:
            cinder.post("/types", {"volume_type": {"name": name, "os-volume-type-access:is_public": True}})
            log(f"volume type {name} created")


def seed(sess):
    seed_identity(ks_client.Client(session=sess, interface="public"))
    seed_flavors(Api(sess, "compute"))
    seed_images(Api(sess, "image"))
    seed_network(Api(sess, "network"))
    seed_volume_types(Api(sess, "volumev3"))


# ---------------------------------------------------------------------------------------------- octavia

# Octavia's allowed-address-pairs network driver plugs each load balancer's VIP into its amphora through Nova (an
# interface attach of the VRRP port), so the amphora must be a real Nova server: the fake virt driver boots it, and
# the no-op amphora driver never talks to it. Everything here belongs to the service project, where Octavia's own
# user works, and stays out of the tenants' view (a private flavor and image, a network nobody else sees).
AMPHORA_FLAVOR_ID = "devcloud-amphora"
AMPHORA_NAME = "octavia-amphora"
AMPHORA_TAG = "amphora"
MGMT_NETWORK = "octavia-lb-mgmt"
MGMT_CIDR = "172.31.255.0/24"


def octavia(sess, path):
    kc = ks_client.Client(session=sess, interface="public")
    service = project(kc, "service", kc.domains.get("default"))
    nova = Api(sess, "compute", {"OpenStack-API-Version": "compute 2.90"})
    neutron = Api(sess, "network")
    glance = Api(sess, "image")

    flavor = nova.call("GET", f"/flavors/{AMPHORA_FLAVOR_ID}", raise_exc=False)
    if flavor.status_code == 404:
        body = {"flavor": {"name": AMPHORA_NAME, "id": AMPHORA_FLAVOR_ID, "vcpus": 1, "ram": 64, "disk": 1,
                           "os-flavor-access:is_public": False}}
        nova.post("/flavors", body)
        log(f"flavor {AMPHORA_NAME} ({AMPHORA_FLAVOR_ID}) created")
    access = nova.get(f"/flavors/{AMPHORA_FLAVOR_ID}/os-flavor-access")["flavor_access"]
    if not any(a["tenant_id"] == service.id for a in access):
        nova.post(f"/flavors/{AMPHORA_FLAVOR_ID}/action", {"addTenantAccess": {"tenant": service.id}})

    img = only(glance.get(f"/v2/images?name={AMPHORA_NAME}&owner={service.id}")["images"], AMPHORA_NAME, "image")
    if img is None:
        body = {"name": AMPHORA_NAME, "disk_format": "raw", "container_format": "bare", "visibility": "private",
                "owner": service.id, "tags": [AMPHORA_TAG]}
        img = glance.post("/v2/images", body)
        log(f"image {AMPHORA_NAME} created")
    if img["status"] == "queued":
        glance.call("PUT", f"/v2/images/{img['id']}/file", data=b"openregion devcloud amphora\n" * 128,
                    headers={"Content-Type": "application/octet-stream"})

    net = only(neutron.get(f"/v2.0/networks?name={MGMT_NETWORK}")["networks"], MGMT_NETWORK, "network")
    if net is None:
        net = neutron.post("/v2.0/networks", {"network": {"name": MGMT_NETWORK, "project_id": service.id}})["network"]
        log(f"network {MGMT_NETWORK} created")
    if only(neutron.get(f"/v2.0/subnets?name={MGMT_NETWORK}")["subnets"], MGMT_NETWORK, "subnet") is None:
        body = {"subnet": {"name": MGMT_NETWORK, "network_id": net["id"], "ip_version": 4, "cidr": MGMT_CIDR,
                           "project_id": service.id}}
        neutron.post("/v2.0/subnets", body)

    # One amphora server, one VRRP port and one security group per load balancer, in the service project: a suite
    # that leaks load balancers must not make the next one fail on Nova's or Neutron's default quotas.
    nova.call("PUT", f"/os-quota-sets/{service.id}", json={"quota_set": {
        "instances": -1, "cores": -1, "ram": -1, "server_groups": -1}})
    neutron.call("PUT", f"/v2.0/quotas/{service.id}", json={"quota": {
        "network": -1, "subnet": -1, "port": -1, "security_group": -1, "security_group_rule": -1}})

    with open(path + ".tmp", "w") as f:
        f.write(f"""# devcloud: written by scripts/devcloud.py octavia (the service project's objects)
[controller_worker]
amp_boot_network_list = {net['id']}
amp_flavor_id = {AMPHORA_FLAVOR_ID}
amp_image_tag = {AMPHORA_TAG}
amp_image_owner_id = {service.id}
""")
    os.replace(path + ".tmp", path)
    log(f"octavia: amphorae boot {AMPHORA_FLAVOR_ID} from the image tagged {AMPHORA_TAG} on {MGMT_NETWORK} ({net['id']})")


# ---------------------------------------------------------------------------------------------- smoke

SMOKE_NAME = "devcloud-smoke"
SMOKE_TIMEOUT = 180  # seconds for the whole check: a loaded machine is slow, never this slow


def smoke(sess):
    """Boot or.small with no network in the admin project until one goes ACTIVE, then delete it.

    Every API answering and the compute node's inventory in Placement do not yet mean a boot succeeds: a server the
    scheduler rejects goes ERROR (NoValidHost) with nothing to retry. A failed attempt prints its fault and the next
    attempt starts after a pause; the deadline ends it with the faults seen.
    """
    nova = Api(sess, "compute", {"OpenStack-API-Version": "compute 2.90"})
    flavor = only(nova.get("/flavors?is_public=None")["flavors"], "or.small", "flavor")
    image = only(Api(sess, "image").get("/v2/images?name=or-image-a")["images"], "or-image-a", "image")
    if flavor is None or image is None:
        raise SystemExit("devcloud.py: smoke needs the seed's or.small and or-image-a")
    deadline = time.monotonic() + SMOKE_TIMEOUT
    for leftover in nova.get(f"/servers?name=^{SMOKE_NAME}$")["servers"]:
        smoke_delete(nova, leftover["id"], deadline)
    attempt = 0
    while True:
        attempt += 1
        body = {"server": {"name": SMOKE_NAME, "flavorRef": flavor["id"], "imageRef": image["id"], "networks": "none"}}
        server_id = nova.post("/servers", body)["server"]["id"]
        server = smoke_settle(nova, server_id, deadline)
        smoke_delete(nova, server_id, deadline)
        if server["status"] == "ACTIVE":
            log(f"smoke: a server booted ACTIVE on attempt {attempt} and was deleted")
            return
        log(f"smoke: attempt {attempt} went {server['status']}: {server.get('fault', {}).get('message', 'no fault')}")
        if time.monotonic() > deadline:
            raise SystemExit(f"devcloud.py: smoke: no server went ACTIVE within {SMOKE_TIMEOUT}s")
        time.sleep(5)


def smoke_settle(nova, server_id, deadline):
    while True:
        server = nova.get(f"/servers/{server_id}")["server"]
        if server["status"] in ("ACTIVE", "ERROR"):
            return server
        if time.monotonic() > deadline:
            raise SystemExit(f"devcloud.py: smoke: server {server_id} still {server['status']} after {SMOKE_TIMEOUT}s")
        time.sleep(1)


def smoke_delete(nova, server_id, deadline):
    nova.call("DELETE", f"/servers/{server_id}")
    while nova.call("GET", f"/servers/{server_id}", raise_exc=False).status_code != 404:
        if time.monotonic() > deadline:
            raise SystemExit(f"devcloud.py: smoke: server {server_id} not deleted within {SMOKE_TIMEOUT}s")
        time.sleep(1)


def main(argv):
    if len(argv) == 3 and argv[1] == "octavia":
        octavia(admin_session(), argv[2])
        return
    commands = {"catalog": catalog, "seed": seed, "smoke": smoke}
    if len(argv) != 2 or argv[1] not in commands:
        raise SystemExit("usage: devcloud.py catalog|seed|smoke|octavia FILE")
    commands[argv[1]](admin_session())


if __name__ == "__main__":
    main(sys.argv)
