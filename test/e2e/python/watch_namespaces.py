# The Python Kubernetes client (Debian's python3-kubernetes) watching Namespaces, as a user's script would:
# it lists, then watches from the list's resourceVersion, and prints each event it sees as one JSON line.
# It stops when it sees the Namespace named on the command line, or after its timeout.
import json
import sys

from kubernetes import client, config, watch

kubeconfig, wanted = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
v1 = client.CoreV1Api()
rv = v1.list_namespace().metadata.resource_version
print(json.dumps({"listed": rv}), flush=True)
w = watch.Watch()
for event in w.stream(v1.list_namespace, resource_version=rv, timeout_seconds=20):
    name = event["object"].metadata.name
    print(json.dumps({"type": event["type"], "name": name}), flush=True)
    if name == wanted:
        w.stop()
        sys.exit(0)
sys.exit(3)
