"""The fake engine's demo units and its deterministic hashed bag-of-words embedding."""

from __future__ import annotations

import re
import zlib

DIM = 64

SEED_UNITS: list[dict[str, str]] = [
    {
        "en": "The train to Berlin leaves at nine.",
        "de": "Der Zug nach Berlin fährt um neun ab.",
        "ru": "Поезд в Берлин отправляется в девять.",
        "zh": "去柏林的火车九点出发。",
    },
    {
        "en": "Where is the nearest pharmacy?",
        "de": "Wo ist die nächste Apotheke?",
        "ru": "Где ближайшая аптека?",
        "zh": "最近的药店在哪里？",
    },
    {
        "en": "Please restart the server after the update.",
        "de": "Bitte starten Sie den Server nach dem Update neu.",
        "ru": "Пожалуйста, перезапустите сервер после обновления.",
        "zh": "更新后请重启服务器。",
    },
    {
        "en": "The weather will be sunny tomorrow.",
        "de": "Das Wetter wird morgen sonnig.",
        "ru": "Завтра будет солнечная погода.",
        "zh": "明天天气晴朗。",
    },
    {
        "en": "I would like a table for two, please.",
        "de": "Ich hätte gern einen Tisch für zwei, bitte.",
        "ru": "Столик на двоих, пожалуйста.",
        "zh": "请给我一张两人桌。",
    },
    {
        "en": "The train was late because of the storm.",
        "de": "Der Zug hatte wegen des Sturms Verspätung.",
        "ru": "Поезд опоздал из-за шторма.",
        "zh": "火车因暴风雨晚点了。",
    },
]


def words(text: str) -> list[str]:
    """Lower-cased word tokens; CJK text is split into characters."""
    out: list[str] = []
    for token in re.findall(r"\w+", text.lower()):
        if re.match(r"[\u3040-\u30ff\u4e00-\u9fff]", token):
            out.extend(token)
        else:
            out.append(token)
    return out


def embed(text: str) -> list[float]:
    """A hashed bag-of-words vector (deterministic across runs and platforms)."""
    vec = [0.0] * DIM
    for word in words(text):
        h = zlib.crc32(word.encode("utf-8"))
        vec[h % DIM] += 1.0 if (h >> 8) & 1 else -1.0
    return vec


def script_lang(text: str) -> str:
    if re.search(r"[\u0400-\u04ff]", text):
        return "ru"
    if re.search(r"[\u3040-\u30ff]", text):
        return "ja"
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    if re.search(r"[\u0600-\u06ff]", text):
        return "ar"
    return "und"
