"""Adds every study folder's `conf/` to Hydra's search path, after warmjax's own configs.

A study lives in `studies/<name>/` (its registration, design, driver, data and report),
and its Hydra config in `studies/<name>/conf/study/<config>.yaml`, which `+study=<config>`
then finds like any config in `warmjax/conf/study/`. The studies are those beside this
checkout (`<repository>/studies`, absent from a wheel) and those under each folder that
`WARMJAX_STUDIES` lists (separated by the path separator).
"""

from __future__ import annotations

import os
from pathlib import Path

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

REPOSITORY_STUDIES = Path(__file__).resolve().parents[2] / "studies"


def study_conf_dirs() -> list[Path]:
    """Each study's `conf/` folder that holds a `study/` group, in name order."""
    roots = [REPOSITORY_STUDIES, *(Path(p) for p in
                                   os.environ.get("WARMJAX_STUDIES", "").split(os.pathsep) if p)]
    found = []
    for root in roots:
        if root.is_dir():
            found += sorted(p.parent for p in root.glob("*/conf/study") if p.is_dir())
    return found


class StudiesSearchPath(SearchPathPlugin):
    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        for conf in study_conf_dirs():
            search_path.append(provider="warmjax-studies", path=f"file://{conf}")


def study_configs(package_conf: str | Path) -> dict[str, Path]:
    """Every `+study=` config by name: warmjax's own (`<package_conf>/study/`) and each
    study folder's; a study folder's config of the same name as warmjax's does not count
    (warmjax's comes first on the search path)."""
    found: dict[str, Path] = {}
    for folder in [Path(package_conf) / "study", *(c / "study" for c in study_conf_dirs())]:
        for path in sorted(folder.glob("*.yaml")):
            found.setdefault(path.stem, path)
    return found
