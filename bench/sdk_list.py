"""openstacksdk's side of bench/sdk-compare.ts: authenticate, then list one project's servers as admin.

Prints one JSON line: wall time (ms) of each round after the imports, servers listed, HTTP requests made.
Requests are counted at keystoneauth's Session.request, which every openstacksdk call goes through.
"""
import json
import sys
import time

import keystoneauth1.session
import openstack

requests = 0
_request = keystoneauth1.session.Session.request


def counted(self, *args, **kwargs):
    global requests
    requests += 1
    return _request(self, *args, **kwargs)


keystoneauth1.session.Session.request = counted
cloud, project_id, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
times, listed = [], 0
for _ in range(rounds):
    requests = 0
    start = time.perf_counter()
    conn = openstack.connect(cloud=cloud)
    conn.authorize()
    listed = len(list(conn.compute.servers(all_projects=True, project_id=project_id)))
    times.append((time.perf_counter() - start) * 1000)
    conn.close()
print(json.dumps({"ms": times, "servers": listed, "requests": requests}))
