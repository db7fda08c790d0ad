"""The demo registry and ``studio demo`` / ``studio list demos``."""

import inspect
import json
import subprocess
import sys

from studio.core.demos.catalog import DEMOS, EXPLANATIONS
from tests.conftest import run_cli


def test_registry_imports_without_torch():
    code = "import sys, studio.core.demos as d; assert d.DEMOS.names(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_demo_parameter_is_an_argument_of_its_builder_and_has_an_explanation():
    assert set(DEMOS.names()) == {"optimizer_race", "linear_neuron", "playground", "large_batch", "noise_scale",
                                  "regularisation", "edge_of_stability"}
    for entry in DEMOS:
        signature = inspect.signature(entry.load_builder())
        for param in entry.params:
            assert param.name in signature.parameters, (entry.name, param.name)
            assert signature.parameters[param.name].default == param.default, (entry.name, param.name)
        assert {"progress", "emit"} <= set(signature.parameters)
        explanation = EXPLANATIONS[entry.name]
        assert explanation.claim and explanation.formula and explanation.paper
        assert set(explanation.basic) <= {p.name for p in entry.params}
        assert explanation.paper in entry.info


def test_cli_runs_a_demo_and_prints_its_key_numbers_as_json():
    out = run_cli("demo", "optimizer_race", "--set", "optimizers=gd(lr=1.9); gd(lr=2.1); newton", "--set",
                  "steps=300", "--json", "--quiet")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["demo"] == "optimizer_race"
    steps = {k: v["steps_to_tol"] for k, v in result["optimizers"].items()}
    assert steps["gd(lr=2.1)"] == "diverged" and steps["newton"] == 1 and isinstance(steps["gd(lr=1.9)"], int)


def test_cli_runs_the_edge_of_stability_demo_as_json():
    out = run_cli("demo", "edge_of_stability", "--set", "n_samples=200", "--set", "widths=16", "--set", "steps=30",
                  "--set", "sharpness_every=10", "--set", "momentum=0.5", "--set", "lr=0.1", "--set", "threads=1",
                  "--json", "--quiet")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["demo"] == "edge_of_stability" and result["steps"] == 30
    assert result["threshold"] == 30.0 and result["sharpness_start"] > 0 and result["loss_end"] < result["loss_start"]


def test_cli_refuses_an_unknown_parameter_with_exit_code_2():
    out = run_cli("demo", "optimizer_race", "--set", "speed=3")
    assert out.returncode == 2
    assert "speed" in out.stderr and "Traceback" not in out.stderr


def test_list_demos_json():
    out = run_cli("list", "demos", "--json")
    assert out.returncode == 0, out.stderr
    names = [d["name"] for d in json.loads(out.stdout.strip().splitlines()[-1])["demos"]]
    assert "large_batch" in names and "noise_scale" in names
