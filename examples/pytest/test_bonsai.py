"""Tests against a Bonsai cluster with the official Python client (the `bonsai` fixture is in conftest.py)."""
from kubernetes import client, watch


def test_default_namespaces(core):
    names = {ns.metadata.name for ns in core.list_namespace().items}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= names


def test_nodes_are_registered(core):
    nodes = core.list_node().items
    assert len(nodes) >= 1


def test_deployment_becomes_ready(apps):
    labels = {"app": "web"}
    apps.create_namespaced_deployment(
        "default",
        client.V1Deployment(
            metadata=client.V1ObjectMeta(name="web"),
            spec=client.V1DeploymentSpec(
                replicas=2,
                selector=client.V1LabelSelector(match_labels=labels),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels=labels),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx")]),
                ),
            ),
        ),
    )
    # Watch (no polling) until both replicas are ready.
    w = watch.Watch()
    ready = 0
    for event in w.stream(
        apps.list_namespaced_deployment, "default", field_selector="metadata.name=web", timeout_seconds=30
    ):
        ready = event["object"].status.ready_replicas or 0
        if ready == 2:
            w.stop()
    assert ready == 2
