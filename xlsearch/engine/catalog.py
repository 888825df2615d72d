"""The models xlsearch knows: the bundled teacher, distilled students and user folders."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import ModelError
from xlsearch.engine.modelio import (
    BUNDLED_TEACHER,
    bundled_teacher_path,
    read_card,
    resolve_model_path,
    search_path,
)
from xlsearch.engine.settings import Settings


@dataclass
class ModelInfo:
    """One model folder and what its card says."""

    spec: str
    """What to pass to ``load_encoder`` (``bundled:teacher`` or a folder path)."""
    path: Path
    card: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "teacher (all-MiniLM-L6-v2)" if self.spec == BUNDLED_TEACHER else self.path.name

    @property
    def is_student(self) -> bool:
        """True for models xlsearch distilled (their card names a teacher)."""
        return bool(self.card.get("teacher"))

    @property
    def created(self) -> str:
        return str(self.card.get("created", ""))


def list_models() -> list[ModelInfo]:
    """The bundled teacher, then every model folder under ``./models`` and the user models dir."""
    found = [
        ModelInfo(
            BUNDLED_TEACHER,
            bundled_teacher_path(),
            {"kind": "transformer", "dim": 384, "languages": ["en"]},
        )
    ]
    seen: set[Path] = set()
    for folder in search_path():
        if not folder.is_dir():
            continue
        for sub in sorted(folder.iterdir()):
            if sub.name.startswith(".") or sub.name.endswith((".saving", ".old", ".ckpt")):
                continue
            if not ((sub / "modules.json").is_file() or (sub / "config.json").is_file()):
                continue
            real = sub.resolve()
            if real in seen:
                continue
            seen.add(real)
            try:
                card = read_card(sub)
            except ModelError:
                card = {}
            found.append(ModelInfo(str(real), real, card))
    return found


def active_model(settings: Settings | None = None) -> str:
    """The model used for indexing and search.

    ``settings.active_model`` if set, else the newest distilled student, else the teacher.
    """
    settings = settings or Settings.load()
    if settings.active_model:
        return settings.active_model
    students = [m for m in list_models() if m.is_student]
    if students:
        return max(students, key=lambda m: m.created).spec
    return BUNDLED_TEACHER


def set_active_model(spec: str) -> str:
    """Make ``spec`` the active model (checked to exist) and save the setting."""
    resolved = BUNDLED_TEACHER if spec == BUNDLED_TEACHER else str(resolve_model_path(spec))
    settings = Settings.load()
    settings.active_model = resolved
    settings.save()
    return resolved
