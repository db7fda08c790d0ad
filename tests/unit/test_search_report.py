"""The Search view's read of the storage: the newest study when none is asked, and fANOVA's importances computed
again only when a trial completed (a refit takes seconds; the view reads at every change of the runs)."""

from __future__ import annotations

import optuna

from studio.core.search import report as report_module
from studio.core.search.report import read_studies
from tests.gui.search_study import make_study


def test_importances_are_kept_until_a_trial_completes(studio_home, monkeypatch) -> None:
    studio_home.mkdir(parents=True, exist_ok=True)
    assert read_studies(studio_home, "", {}) == ([], None)
    make_study(studio_home, "old", trials=6)
    spec = make_study(studio_home, "new", trials=9)
    fits = []
    real = report_module.importances
    monkeypatch.setattr(report_module, "importances", lambda study, seed=0: fits.append(1) or real(study, seed))
    cache: dict = {}
    names, report = read_studies(studio_home, "", cache)
    assert names == ["old", "new"] and report is not None and report["study"] == "new"  # the newest
    assert set(report["importances"]) == {"optimizer.lr", "train.batch_size"} and len(fits) == 1
    assert read_studies(studio_home, "new", cache)[1]["importances"] == report["importances"] and len(fits) == 1
    study = optuna.load_study(study_name="new", storage=f"sqlite:///{studio_home / 'search.db'}")
    study.tell(study.ask(spec.space.distributions()), 0.5)  # one more complete trial
    read_studies(studio_home, "new", cache)
    assert len(fits) == 2
    assert read_studies(studio_home, "old", cache)[1]["study"] == "old" and len(fits) == 3
