"""Typed settings: defaults, then ``config.json``, then ``XLSEARCH_*`` env vars."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.runtime import locations

ENV_PREFIX = "XLSEARCH_"


@dataclass
class Settings:
    """User settings. Every field can be overridden by ``XLSEARCH_<FIELD>`` (upper case)."""

    active_model: str = ""
    """Model used for indexing and search; empty = newest distilled student, else the teacher."""
    teacher: str = "bundled:teacher"
    """The English teacher for distillation."""
    device: str = "auto"
    """``auto`` (cuda → mps → cpu), ``cpu``, ``cuda``, ``cuda:1``, ``mps``."""
    batch_size: int = 32
    """Sentences per encoder batch."""
    max_seq_length: int = 128
    """Tokens kept per sentence when encoding."""
    quantize: bool = False
    """int8 dynamic quantisation of transformer encoders on CPU (faster, tiny quality loss)."""
    threads: int = 0
    """CPU threads for torch/FAISS; 0 = automatic (the free cores, ``engine/runtime/cpu.py``)."""
    theme: str = "textual-dark"
    """TUI theme name."""

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read settings from ``path`` (default: config folder) and the environment."""
        path = path or settings_path()
        values: dict[str, object] = {}
        if path.exists():
            try:
                values.update(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError) as exc:
                raise ConfigError(f"{path}: cannot read settings ({exc})") from exc
        known = {f.name: f for f in fields(cls)}
        unknown = set(values) - set(known)
        if unknown:
            raise ConfigError(f"{path}: unknown setting(s) {', '.join(sorted(unknown))}")
        for name, f in known.items():
            env = os.environ.get(ENV_PREFIX + name.upper())
            if env is not None:
                values[name] = env
            if name in values:
                values[name] = _coerce(name, f.type, values[name])
        return cls(**values)  # type: ignore[arg-type]

    def save(self, path: Path | None = None) -> Path:
        """Write the settings as JSON (atomically)."""
        from xlsearch.engine.runtime.atomic import write_json
        from xlsearch.engine.runtime.faults import disk_full_as_error

        path = path or settings_path()
        kept = "the settings were not saved" + (
            ", the previous ones are kept" if path.exists() else ""
        )
        try:
            with disk_full_as_error(path, kept):
                write_json(path, asdict(self))
        except OSError as exc:  # a read-only or foreign-owned config folder
            raise ConfigError(
                f"cannot save the settings to {path}: {exc.strerror or exc}; {kept}",
                hint="make the folder writable (chmod -R u+w) or point XLSEARCH_HOME at a "
                "writable folder",
            ) from exc
        return path


def settings_path() -> Path:
    """The settings file."""
    return locations.config_dir() / "config.json"


def _coerce(name: str, type_name: object, value: object) -> object:
    kind = str(type_name)
    try:
        if kind == "bool":
            if isinstance(value, str):
                return value.strip().lower() in {"1", "true", "yes", "on"}
            return bool(value)
        if kind == "int":
            return int(str(value))
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"setting {name!r}: {value!r} is not a valid {kind}") from exc
