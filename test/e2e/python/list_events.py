# The Python Kubernetes client (Debian's python3-kubernetes) reading Events through both APIs, as a user's
# script would: events.k8s.io/v1 (EventsV1Api) and core/v1 (CoreV1Api), printed as one JSON document so
# the test can compare what each API shows of the same objects.
import json
import sys

from kubernetes import client, config

kubeconfig, namespace = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
events_v1 = client.EventsV1Api().list_namespaced_event(namespace)
core_v1 = client.CoreV1Api().list_namespaced_event(namespace)
print(json.dumps({
    "eventsV1": [
        {
            "name": e.metadata.name,
            "resourceVersion": e.metadata.resource_version,
            "note": e.note,
            "reason": e.reason,
            "regarding": e.regarding.name,
            "reportingController": e.reporting_controller,
            "deprecatedCount": e.deprecated_count,
        }
        for e in events_v1.items
    ],
    "coreV1": [
        {"name": e.metadata.name, "resourceVersion": e.metadata.resource_version, "message": e.message}
        for e in core_v1.items
    ],
}))
