"""Which image files an input-pipeline sweep reads: a folder of class subfolders (as ``studio data import``
reads it), or a dataset by name — the folder it was imported from when that still holds the images, else its
training images written once as PNG files under the data dir. Each problem is one sentence before work starts."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.contracts.dataload import DATASET_IMAGES, MAX_SIDE, DataloadRequest
from studio.core.datasets.importers.images import Geometry, SkipImage, choose_geometry, probe
from studio.core.errors import ConfigError, DataError

PROBE_FILES = 256  # headers read to choose the size


@dataclass
class Files:
    """The image files of a sweep with their class names (sorted, like torchvision's ImageFolder)."""

    folder: Path
    paths: list[str]
    labels: list[int]
    classes: list[str]
    notes: list[str] = field(default_factory=list)


def list_folder(folder: Path, limit: int, seed: int = 0) -> Files:
    """The images of ``folder`` (class subfolders; train/ and test/ folders of them too), a seeded random
    ``limit`` of them at most; ConfigError for a missing or empty folder or one without images."""
    from studio.core.datasets.importers.folder import scan, unwrap

    if not folder.exists():
        raise ConfigError(f"the folder {folder} does not exist")
    if not folder.is_dir():
        raise ConfigError(f"{folder} is a file; name a folder of images in class subfolders")
    root = unwrap(folder)
    try:
        paths, names, _codes, notes = scan(root)
    except DataError as err:
        raise ConfigError(str(err)) from None
    classes = sorted(set(names))
    index = {c: i for i, c in enumerate(classes)}
    labels = [index[n] for n in names]
    if len(paths) > limit:
        keep = sorted(random.Random(seed).sample(range(len(paths)), limit))
        notes.append(f"{limit:,} of the {len(paths):,} images were used (a seeded random choice; --limit)")
        paths, labels = [paths[i] for i in keep], [labels[i] for i in keep]
    return Files(root, paths, labels, classes, notes)


def dataset_folder(name: str, images: int = DATASET_IMAGES, progress: Any = None) -> tuple[Path, str]:
    """(a folder of image files of the dataset ``name``, a note): the folder it was imported from, else its
    first ``images`` training images written once as PNG files under ``<data dir>/.dataload/``."""
    from studio.core.datasets import cache
    from studio.core.datasets.catalog import DATASETS

    if name not in DATASETS:
        raise ConfigError(f"no dataset named {name!r}; `studio list datasets` shows them")
    manifest = cache.manifest(name) or {}
    source = Path(str(manifest.get("source") or ""))
    if manifest.get("source_kind") == "images" and source.is_dir():
        return source, f"{name}: the image folder it was imported from ({source})"
    from studio.core.host.paths import data_dir

    target = data_dir() / ".dataload" / f"{name}-{images}"
    done = target.parent / f"{target.name}.done"  # beside the folder: inside, the scan counted it "not an image"
    if not done.exists():
        write_dataset_pngs(name, target, images, progress)
        done.write_text("complete\n")
    why = "its source folder is gone" if manifest.get("source_kind") == "images" else "it is stored as arrays"
    return target, (f"{name} has no image files here ({why}): its first {images:,} training images were written "
                    f"once as PNG files to {target}")


def write_dataset_pngs(name: str, target: Path, images: int, progress: Any = None) -> None:
    """The dataset's first ``images`` training images as ``target/<class>/<i>.png`` (imports torch)."""
    import shutil

    from studio.core.datasets.catalog import DATASETS
    from studio.engine.dataload.pngs import write_pngs

    data = DATASETS.build(name, name=name, seed=0)
    if not getattr(data, "is_image", False):
        raise ConfigError(f"{name} is not an image dataset; the input pipeline reads image files")
    n = min(images, len(data.y_train))
    if target.exists():
        shutil.rmtree(target)
    write_pngs(data.x_train[:n].numpy(), data.y_train[:n].numpy(), data.classes, target, progress=progress)


def resolve(request: DataloadRequest, progress: Any = None) -> Files:
    """The request's files (request already validated)."""
    if request.dataset:
        folder, note = dataset_folder(request.dataset, progress=progress)
        files = list_folder(folder, request.limit, request.seed)
        files.notes.insert(0, note)
        return files
    return list_folder(Path(request.folder).expanduser(), request.limit, request.seed)


def geometry_of(paths: list[str], size: tuple[int, int] | None) -> Geometry:
    """The most common size of the first files (scaled to fit MAX_SIDE) and 1 or 3 channels; ``size`` overrides."""
    sizes: Counter = Counter()
    modes: Counter = Counter()
    for path in paths:
        try:
            w, h, mode, _ = probe(path)
        except SkipImage:
            continue
        sizes[(w, h)] += 1
        modes[mode] += 1
        if sum(sizes.values()) >= PROBE_FILES:
            break
    if not sizes:
        raise ConfigError(f"none of the {len(paths)} image files could be read (e.g. {paths[0]})")
    geo = choose_geometry(sizes, modes, size)
    if size is None and max(geo.height, geo.width) > MAX_SIDE:
        scale = MAX_SIDE / max(geo.height, geo.width)
        geo = Geometry(geo.channels, max(1, round(geo.height * scale)), max(1, round(geo.width * scale)))
    return geo
