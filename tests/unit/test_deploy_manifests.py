"""The checked-in deployment files are valid for what reads them: the KubeRay RayService manifest
against the RayService CRD's schema (strict, like `kubectl apply --validate=strict`: an unknown
field is an error), its embedded Serve config against Ray Serve's config schema and the
application's own arguments, and it says the same as deploy/serve_config.yaml."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "deploy" / "kuberay" / "rayservice.yaml"
SERVE_CONFIG = REPO / "deploy" / "serve_config.yaml"
# KubeRay's ray.io/v1 RayService openAPIV3Schema (provenance in its "$comment").
CRD_SCHEMA = REPO / "tests" / "data" / "kuberay-rayservice-v1.schema.json"


def strict(schema):
    """The schema with every object that lists its properties closed to others, as the API
    server's strict field validation treats them (`x-kubernetes-preserve-unknown-fields` and
    `additionalProperties` keep an object open)."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: strict(value) for key, value in schema.items()}
    if (
        "properties" in schema
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        closed["additionalProperties"] = False
    return closed


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    schema = strict(json.loads(CRD_SCHEMA.read_text()))
    # apiVersion/kind/metadata are the API server's; the CRD schema checks their types only.
    return jsonschema.Draft7Validator(schema)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load(MANIFEST.read_text())


def test_the_rayservice_manifest_validates_against_the_crd_schema(validator, manifest) -> None:
    assert (manifest["apiVersion"], manifest["kind"]) == ("ray.io/v1", "RayService")
    errors = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(manifest)
    ]
    assert errors == []


@pytest.mark.parametrize(
    "path, value",
    [
        (("spec", "rayClusterConfig", "workerGroupSpecs", 0, "replicas"), "two"),
        (("spec", "rayClusterConfig", "headGroupSpec", "rayStartParams", "num-cpus"), 0),
        (("spec", "serveConfigV2"), {"applications": []}),
    ],
)
def test_the_schema_check_catches_wrong_types(validator, manifest, path, value) -> None:
    broken = copy.deepcopy(manifest)
    node = broken
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert not validator.is_valid(broken)


def test_the_schema_check_catches_unknown_fields(validator, manifest) -> None:
    broken = copy.deepcopy(manifest)
    worker = broken["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]
    worker["containers"][0]["readinesProbe"] = worker["containers"][0].pop("readinessProbe")
    assert not validator.is_valid(broken)


def test_workers_are_ready_from_ready_and_expose_the_engine_metrics(manifest) -> None:
    serve_config = yaml.safe_load(manifest["spec"]["serveConfigV2"])
    (app,) = serve_config["applications"]
    metrics_port = app["args"]["metrics_port"]
    worker = manifest["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]
    (container,) = worker["spec"]["containers"]
    probe = container["readinessProbe"]["httpGet"]
    assert (probe["path"], probe["port"]) == ("/ready", serve_config["http_options"]["port"])
    assert metrics_port in {port["containerPort"] for port in container["ports"]}
    annotations = worker["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(metrics_port)
    assert container["resources"]["limits"]["nvidia.com/gpu"] == app["args"]["num_gpus"]


def test_the_serve_configs_are_valid_and_say_the_same(manifest) -> None:
    from ray.serve.schema import ServeDeploySchema

    from engine.deploy.ray_serve import EngineAppArgs, build_app

    checked_in = yaml.safe_load(SERVE_CONFIG.read_text())
    assert yaml.safe_load(manifest["spec"]["serveConfigV2"]) == checked_in
    config = ServeDeploySchema.model_validate(checked_in)
    (app,) = config.applications
    assert app.import_path == "engine.deploy.ray_serve:build_app"
    args = EngineAppArgs.model_validate(app.args)
    build_app(args)  # the application graph builds from these arguments
