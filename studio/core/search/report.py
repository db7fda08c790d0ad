"""What a study has found, as plain data for the Search view and ``studio search --report``: every trial (its
settings, state, value, run and the values it reported per epoch), the best so far after each trial (the
optimisation history), and each setting's importance by fANOVA (Hutter et al. 2014; Optuna's
``FanovaImportanceEvaluator``, which fits a random forest: scikit-learn). Optuna is imported by ``study.py``.
"""

from __future__ import annotations

import math
from typing import Any

from studio.core.search.driver import ABANDONED, RUN_ID
from studio.core.search.study import SearchSpec, import_optuna, load_spec

IMPORTANCE_TRIALS = 3  # complete trials fANOVA needs before its importances mean anything
STATE_WORDS = {"COMPLETE": "complete", "PRUNED": "pruned", "FAIL": "failed", "RUNNING": "running",
               "WAITING": "waiting"}


def _plain(value: Any) -> Any:
    return value if not isinstance(value, float) or math.isfinite(value) else None


def trial_rows(study: Any) -> list[dict[str, Any]]:
    """Every trial but those abandoned with a stopped search, in trial order."""
    out = []
    for t in study.get_trials(deepcopy=False):
        if t.user_attrs.get(ABANDONED):
            continue
        out.append({"number": t.number, "state": STATE_WORDS.get(t.state.name, t.state.name.lower()),
                    "value": _plain(t.value) if t.values else None, "params": dict(t.params),
                    "run_id": t.user_attrs.get(RUN_ID), "epochs": t.user_attrs.get("epochs"),
                    "reported": {str(k): _plain(v) for k, v in sorted(t.intermediate_values.items())},
                    "error": t.user_attrs.get("error", "")})
    return out


def history(rows: list[dict[str, Any]], maximize: bool) -> list[float | None]:
    """The best value among the trials up to each one (the optimisation history's line; None before any)."""
    best: float | None = None
    out: list[float | None] = []
    for row in rows:
        v = row["value"]
        if row["state"] == "complete" and v is not None:
            best = v if best is None else (max(best, v) if maximize else min(best, v))
        out.append(best)
    return out


def importances(study: Any, seed: int = 0) -> tuple[dict[str, float], str]:
    """Each searched setting's share of the objective's variance by fANOVA (summing to 1), and a sentence when
    there are none yet (too few complete trials, a single setting, scikit-learn missing)."""
    optuna = import_optuna()
    complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if len(complete) < IMPORTANCE_TRIALS:
        return {}, f"importances need {IMPORTANCE_TRIALS} complete trials; {len(complete)} so far"
    searched = {k for t in complete for k in t.params}
    if len(searched) < 2:
        return ({k: 1.0 for k in searched}, "one setting searched: it explains all there is")
    try:
        evaluator = optuna.importance.FanovaImportanceEvaluator(seed=seed)
        found = optuna.importance.get_param_importances(study, evaluator=evaluator)
    except ImportError:
        return {}, "importances need scikit-learn (pip install 'studio[search]')"
    except (ValueError, RuntimeError) as err:  # e.g. every trial gave the same value
        return {}, f"no importances: {str(err).splitlines()[0][:160]}"
    return {k: float(v) for k, v in found.items()}, ""


def study_report(home: Any, name: str, with_importances: bool = True) -> dict[str, Any]:
    """A study's trials, history, best trial and importances (JSON-able)."""
    study, spec = load_spec(home, name)
    return report_of(study, spec, with_importances)


def report_of(study: Any, spec: SearchSpec, with_importances: bool = True) -> dict[str, Any]:
    rows = trial_rows(study)
    maximize = spec.direction == "maximize"
    best = [r for r in rows if r["state"] == "complete" and r["value"] is not None]
    top = (max if maximize else min)(best, key=lambda r: r["value"]) if best else None
    found, why = importances(study, spec.seed) if with_importances else ({}, "")
    counts = {s: sum(r["state"] == s for r in rows) for s in ("complete", "pruned", "failed", "running")}
    return {"study": spec.name, "metric": spec.metric, "direction": spec.direction, "sampler": spec.sampler,
            "pruner": spec.pruner, "space": spec.space.texts(), "keys": spec.space.keys,
            "log_keys": [d.key for d in spec.space.dims if d.log], "epochs": spec.base.train.epochs,
            "trials": rows, "history": history(rows, maximize), "best": top, "counts": counts,
            "importances": found, "importance_note": why}


def read_studies(home: Any, wanted: str, cache: dict[tuple[str, int], tuple[dict[str, float], str]]
                 ) -> tuple[list[str], dict[str, Any] | None]:
    """The studies in the storage and the report of ``wanted`` (the newest when it is not one of them; None without
    any), for the Search view's reading thread. fANOVA refits a random forest (seconds for 60 trials): its
    importances are kept in ``cache`` by (study, complete trials) and computed again only when a trial completed."""
    from studio.core.search.study import load_spec, study_names

    names = study_names(home)
    if not names:
        return names, None
    name = wanted if wanted in names else names[-1]
    study, spec = load_spec(home, name)
    report = report_of(study, spec, with_importances=False)
    key = (name, report["counts"]["complete"])
    if key not in cache:
        cache[key] = importances(study, spec.seed)
    report["importances"], report["importance_note"] = cache[key]
    return names, report
