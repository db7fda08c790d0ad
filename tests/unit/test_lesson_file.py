"""The .studio-lesson file (core/lessons): saved and read back step for step; a truncated, tampered, oversized,
newer or code-naming lesson is refused in one sentence that names the file; a failed save leaves nothing."""

from __future__ import annotations

import json
import os
import zipfile

import pytest

from studio.core.config import RunConfig
from studio.core.lessons import lesson_file
from studio.core.lessons.lesson import Lesson, LessonError, Step


def a_lesson() -> Lesson:
    config = RunConfig().to_dict()
    return Lesson("Optimizers, week 3", [
        Step("note", "Welcome", "Today: why Adam moves differently from SGD."),
        Step("demo", "", "Watch the valley.", demo="optimizer_race", params={"steps": 120}),
        Step("dataset", dataset="fashion_mnist_small"),
        Step("config", "Train this", config=config),
        Step("compare", runs=["adam-lr0.001", "sgd-lr0.1"]),
    ])


def one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text and text.startswith("week3.studio-lesson cannot be opened: ")
    return text


def test_a_lesson_is_read_back_as_saved(tmp_path):
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    assert path.name == "week3.studio-lesson"
    lesson, manifest = lesson_file.load(path)
    assert lesson.title == "Optimizers, week 3" and lesson.steps[0].to_dict() == a_lesson().steps[0].to_dict()
    assert lesson.steps[3].config == RunConfig().to_dict() and lesson.steps[2].dataset == "fashion_mnist_small"
    assert [s.kind for s in lesson.steps] == ["note", "demo", "dataset", "config", "compare"]
    assert lesson.steps[1].params["steps"] == 120 and lesson.steps[1].heading()  # the catalog's description
    assert lesson.steps[4].runs == ["adam-lr0.001", "sgd-lr0.1"]
    assert manifest["format"] == "studio-lesson" and manifest["version"] == 1 and manifest["steps"] == 5
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["lesson.json", "manifest.json"]


def test_a_truncated_file_is_refused(tmp_path):
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "damaged" in one_line(err) and "ask for it again" in str(err.value)


def rewrite(path, lesson_json: bytes | None = None, manifest: dict | None = None, extra: dict | None = None):
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    if lesson_json is not None:
        members["lesson.json"] = lesson_json
    if manifest is not None:
        members["manifest.json"] = json.dumps(manifest).encode()
    members.update(extra or {})
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_a_tampered_step_fails_its_checksum(tmp_path):
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    with zipfile.ZipFile(path) as zf:
        body = json.loads(zf.read("lesson.json"))
    body["steps"][1]["params"]["steps"] = 5000
    rewrite(path, json.dumps(body).encode())
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "checksum does not match" in one_line(err)


def test_a_lesson_from_a_newer_studio_says_to_update(tmp_path):
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    _, manifest = lesson_file.load(path)
    rewrite(path, manifest={**manifest, "version": 2, "studio": "9.0"})
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "newer Studio (9.0, lesson format 2)" in one_line(err) and "update Studio" in str(err.value)


def test_an_extra_member_or_a_zip_bomb_is_refused(tmp_path):
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    rewrite(path, extra={"../evil.py": b"import os"})
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "'../evil.py'" in one_line(err)
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as zf:
        with pytest.warns(UserWarning):  # a second, huge lesson.json: the one read
            zf.writestr("lesson.json", b" " * (lesson_file.MAX_MEMBER + 10))
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "unpacks to more than 4 MB" in one_line(err)


def test_a_config_naming_a_code_file_is_refused(tmp_path):
    lesson = a_lesson()
    lesson.steps[3].config = {**lesson.steps[3].config, "model": {"name": "python", "path": "/tmp/model.py"}}
    path = tmp_path / "week3.studio-lesson"
    body = json.dumps(lesson.to_dict()).encode()
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "studio-lesson", "version": 1,
                                                 "sha256": {"lesson.json": lesson_file.sha256(body)}}))
        zf.writestr("lesson.json", body)
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "step 4's [model] is 'python', which reads a file or runs code" in one_line(err)


def test_an_unknown_demo_or_kind_is_one_sentence(tmp_path):
    for step, words in (({"kind": "script", "code": "rm -rf"}, "'script' step"),
                        ({"kind": "demo", "demo": "nope"}, "the demo 'nope'")):
        body = json.dumps({"title": "x", "steps": [step]}).encode()
        path = tmp_path / "week3.studio-lesson"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("manifest.json", json.dumps({"format": "studio-lesson", "version": 1,
                                                     "sha256": {"lesson.json": lesson_file.sha256(body)}}))
            zf.writestr("lesson.json", body)
        with pytest.raises(LessonError) as err:
            lesson_file.load(path)
        assert words in one_line(err)


def test_an_oversized_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = lesson_file.save(a_lesson(), tmp_path / "week3")
    monkeypatch.setattr(lesson_file, "MAX_FILE", 100)
    with pytest.raises(LessonError) as err:
        lesson_file.load(path)
    assert "more than a lesson file holds" in one_line(err)


def test_a_save_to_a_full_disk_is_one_sentence_and_leaves_nothing(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    (tmp_path / "week3.studio-lesson.part").symlink_to("/dev/full")
    with pytest.raises(LessonError) as err:
        lesson_file.save(a_lesson(), tmp_path / "week3")
    assert str(err.value) == "the disk is full: week3.studio-lesson was not saved; free some space or choose another " \
                             "folder"
    assert list(tmp_path.iterdir()) == []
