"""A search's study: what was asked (``SearchSpec``), kept in Optuna's own SQLite storage beside the run store
(``STUDIO_HOME/search.db``: a plain Optuna RDB file, so ``optuna-dashboard sqlite:///…/search.db`` opens it and a
search survives a restart), and the sampler and pruner it names. Each mistake is one sentence (a ConfigError, exit 2):
Optuna missing, a storage that is locked or from another Optuna or Studio version, a metric no run logs, more
trials than the space or the sampler allows.

Optuna is imported inside the functions that need it, never at import.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.search.space import SearchSpace, parse_space
from studio.core.vocab import Metric

STORAGE = "search.db"  # beside runs.db
SCHEMA = 1  # what a study's "studio" user attribute holds; a study with another one is from another Studio version
ATTR = "studio"
LOCK_WAIT_S = 5.0  # how long opening the storage waits for another process's write lock
SAMPLERS = ("tpe", "random", "qmc", "grid")
PRUNERS = ("none", "median", "asha", "hyperband")
DIRECTIONS = {"max": "maximize", "min": "minimize", "maximize": "maximize", "minimize": "minimize"}
INSTALL = "the search needs Optuna: pip install 'studio[search]' (or pip install optuna scikit-learn)"


def storage_path(home: str | Path) -> Path:
    return Path(home) / STORAGE


def storage_url(home: str | Path) -> str:
    return f"sqlite:///{storage_path(home)}"


def import_optuna() -> Any:
    """Optuna, quiet (it logs each trial at INFO); ConfigError with the install line where it is missing."""
    try:
        import optuna
    except ImportError:
        raise ConfigError(INSTALL) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


@dataclass
class SearchSpec:
    """What a search is asked to do: its space over a base config, the metric and its direction, the sampler and
    pruner, the budget (trials and/or seconds), how many trials run at once, and the seeds its best settings are
    repeated over at the end."""

    name: str
    space: SearchSpace
    base: RunConfig
    metric: str = Metric.VAL_ACC.value
    direction: str = "maximize"
    sampler: str = "tpe"
    pruner: str = "asha"
    trials: int | None = 20
    timeout_s: float | None = None
    parallel: int = 1
    seed: int = 0
    repeat_seeds: list[int] = field(default_factory=list)

    def validate(self, known_metrics: set[str] | None = None) -> None:
        """One sentence for the first thing that cannot be searched as asked."""
        if self.sampler not in SAMPLERS:
            raise ConfigError(f"the sampler is one of {', '.join(SAMPLERS)}, not {self.sampler!r}")
        if self.pruner not in PRUNERS:
            raise ConfigError(f"the pruner is one of {', '.join(PRUNERS)}, not {self.pruner!r}")
        if self.direction not in DIRECTIONS.values():
            raise ConfigError(f"the direction is max or min, not {self.direction!r}")
        if self.trials is None and self.timeout_s is None:
            raise ConfigError("give the search a budget: a number of trials, a time, or both")
        if self.trials is not None and self.trials < 1:
            raise ConfigError(f"a search runs at least 1 trial, not {self.trials}")
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise ConfigError(f"the time budget must be above 0, not {self.timeout_s:g} s")
        if self.parallel < 1:
            raise ConfigError(f"at least 1 trial runs at a time, not {self.parallel}")
        check_metric(self.metric, known_metrics or set())
        if self.pruner != "none" and not self.metric.startswith("val/") and self.metric != Metric.SHARPNESS:
            raise ConfigError(f"a pruner compares trials at each epoch's end, where only val/ metrics (and "
                              f"sharpness/top_eig) are logged; {self.metric} is not: use --pruner none or a val/ "
                              "metric")
        check_budget(self)

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "space": self.space.texts(), "base": self.base.to_toml(), "metric": self.metric,
                "direction": self.direction, "sampler": self.sampler, "pruner": self.pruner, "seed": self.seed}

    @classmethod
    def from_json(cls, name: str, data: dict[str, Any]) -> SearchSpec:
        base = RunConfig.from_toml(data["base"])
        return cls(name, parse_space(list(data["space"]), base), base, data["metric"], data["direction"],
                   data["sampler"], data["pruner"], seed=int(data.get("seed", 0)))


def check_metric(metric: str, known: set[str]) -> None:
    """A metric some run logs: Studio's own (``vocab.Metric``) or one a run in the store logged; the nearest names
    otherwise."""
    names = {m.value for m in Metric} | set(known)
    if metric in names:
        return
    nearest = difflib.get_close_matches(metric, sorted(names), n=2, cutoff=0.5)
    hint = f"; did you mean {' or '.join(nearest)}?" if nearest else ""
    raise ConfigError(f"no run logs a metric called {metric!r}{hint}")


def check_budget(spec: SearchSpec) -> None:
    """More trials than the space holds (a grid, or lists only) would repeat settings: refused, with the most."""
    if spec.sampler == "grid" and spec.space.grid() is None:
        continuous = next(d.key for d in spec.space.dims if d.grid() is None)
        raise ConfigError(f"the grid sampler needs a list of values for {continuous} (e.g. {continuous}="
                          "0.001,0.01,0.1), not a range")
    if spec.trials is None:
        return
    if spec.sampler == "grid":
        points = 1
        for values in (spec.space.grid() or {}).values():
            points *= len(values)
        if spec.trials > points:
            raise ConfigError(f"the grid has {points} points; {spec.trials} trials is more than it allows "
                              f"(use --trials {points} or fewer)")
        return
    size = spec.space.size()
    if size is not None and spec.trials > size:
        raise ConfigError(f"the space holds {size} distinct settings; {spec.trials} trials would repeat them "
                          f"(use --trials {size} or fewer, or widen the space)")


# --- samplers and pruners -------------------------------------------------------------------------
def make_sampler(spec: SearchSpec) -> Any:
    optuna = import_optuna()
    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=spec.seed)
    if spec.sampler == "qmc":
        return optuna.samplers.QMCSampler(qmc_type="sobol", scramble=True, seed=spec.seed,
                                          warn_asynchronous_seeding=False, warn_independent_sampling=False)
    if spec.sampler == "grid":
        return optuna.samplers.GridSampler(spec.space.grid(), seed=spec.seed)
    return optuna.samplers.TPESampler(seed=spec.seed, n_startup_trials=min(10, max(2, (spec.trials or 20) // 3)))


def make_pruner(spec: SearchSpec) -> Any:
    """The pruner, in epochs: the trials report their metric at each epoch's end (step = epoch)."""
    optuna = import_optuna()
    epochs = spec.base.train.epochs
    if spec.pruner == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1)
    if spec.pruner == "asha":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    if spec.pruner == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=1, max_resource=max(1, epochs), reduction_factor=3)
    return optuna.pruners.NopPruner()


# --- the storage ----------------------------------------------------------------------------------
def open_storage(home: str | Path) -> Any:
    """Optuna's RDB storage on ``search.db``; one sentence when it is locked or from another Optuna version."""
    optuna = import_optuna()
    path = storage_path(home)
    try:
        return optuna.storages.RDBStorage(storage_url(home),
                                          engine_kwargs={"connect_args": {"timeout": LOCK_WAIT_S}})
    except Exception as err:  # noqa: BLE001 - sqlalchemy's and Optuna's errors become one sentence
        raise ConfigError(describe_storage_error(err, path)) from None


def describe_storage_error(err: BaseException, path: Path) -> str:
    text = str(err)
    if "locked" in text:
        return (f"the search storage {path} is locked by another process (a search writing it); wait for it to "
                "finish or stop it, then try again")
    if "version" in text.lower() or "schema" in text.lower() or "alembic" in text.lower():
        return (f"the search storage {path} was written by another Optuna version ({text.splitlines()[0][:160]}); "
                "upgrade it with `optuna storage upgrade --storage sqlite:///…` or move the file aside")
    if "not a database" in text or "malformed" in text:
        return f"the search storage {path} is not an SQLite database Optuna can read; move it aside"
    return f"cannot open the search storage {path}: {text.splitlines()[0][:200] if text else type(err).__name__}"


def study_names(home: str | Path) -> list[str]:
    """The studies in the storage (none when there is no storage yet), oldest first."""
    if not storage_path(home).exists():
        return []
    optuna = import_optuna()
    try:
        return [s.study_name for s in optuna.get_all_study_summaries(open_storage(home), include_best_trial=False)]
    except ConfigError:
        raise
    except Exception as err:  # noqa: BLE001
        raise ConfigError(describe_storage_error(err, storage_path(home))) from None


def load_spec(home: str | Path, name: str) -> tuple[Any, SearchSpec]:
    """An existing study and what it was asked (the storage and its schema checked)."""
    optuna = import_optuna()
    storage = open_storage(home)
    try:
        study = optuna.load_study(study_name=name, storage=storage)
    except KeyError:
        known = study_names(home)
        hint = f"; the storage has {', '.join(known)}" if known else "; the storage has none yet"
        raise ConfigError(f"there is no study called {name!r}{hint}") from None
    except Exception as err:  # noqa: BLE001
        raise ConfigError(describe_storage_error(err, storage_path(home))) from None
    data = study.user_attrs.get(ATTR)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        made = f"search schema {found}" if found is not None else "not made by Studio"
        raise ConfigError(f"the study {name!r} in {storage_path(home)} is from another Studio version ({made}; this "
                          f"one reads schema {SCHEMA}); start a new study with another name")
    return study, SearchSpec.from_json(name, data)


def create_or_continue(home: str | Path, spec: SearchSpec) -> tuple[Any, bool]:
    """The study for ``spec``: created, or the existing one of that name continued when it searches the same space
    for the same metric (True: continued). One sentence when it differs."""
    optuna = import_optuna()
    if spec.name in study_names(home):
        study, old = load_spec(home, spec.name)
        if (old.space.texts(), old.metric, old.direction) != (spec.space.texts(), spec.metric, spec.direction):
            raise ConfigError(f"the study {spec.name!r} searches {'; '.join(old.space.texts())} for "
                              f"{old.direction[:3]} {old.metric}; to continue it give the same space and metric "
                              "(or name a new study)")
        study.sampler, study.pruner = make_sampler(spec), make_pruner(spec)
        return study, True
    try:
        study = optuna.create_study(study_name=spec.name, storage=open_storage(home), sampler=make_sampler(spec),
                                    pruner=make_pruner(spec), direction=spec.direction)
        study.set_user_attr(ATTR, json.loads(json.dumps(spec.to_json())))
    except ConfigError:
        raise
    except Exception as err:  # noqa: BLE001
        raise ConfigError(describe_storage_error(err, storage_path(home))) from None
    return study, False


def open_for(home: str | Path, name: str) -> Any:
    """A study with its own sampler and pruner (a continued search, the report)."""
    study, spec = load_spec(home, name)
    study.sampler, study.pruner = make_sampler(spec), make_pruner(spec)
    return study
