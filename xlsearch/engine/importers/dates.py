"""Dates as translation tools write them (TMX, SDLXLIFF, ISO 8601), read as one UTC form."""

from __future__ import annotations

from datetime import UTC, datetime

DATE_FORMATS = (
    "%Y%m%dT%H%M%SZ",  # TMX
    "%Y-%m-%dT%H:%M:%SZ",
    "%Y-%m-%dT%H:%M:%S.%fZ",
    "%Y-%m-%dT%H:%M:%S%z",
    "%Y-%m-%dT%H:%M:%S.%f%z",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%m/%d/%Y %H:%M:%S",  # SDLXLIFF sdl:value created_on / modified_on
    "%Y-%m-%d",
    "%Y%m%d",
    "%Y-%m",
    "%Y",
)


def parse_date(value: str | None) -> str | None:
    """An ISO 8601 UTC timestamp (``2024-01-31T10:15:00Z``) for a date as tools write it."""
    if not value:
        return None
    value = value.strip()
    for fmt in DATE_FORMATS:
        try:
            stamp = datetime.strptime(value, fmt)
        except ValueError:
            continue
        if stamp.tzinfo is not None:
            stamp = stamp.astimezone(UTC).replace(tzinfo=None)
        return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    return None
