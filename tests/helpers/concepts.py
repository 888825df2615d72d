"""A tiny real model whose neighbours make sense for the UI tests' handful of sentences.

A static student (an embedding bag over a word-level vocabulary) in which the words of one
meaning share one random vector in every language ("train", "Zug", "поезд", "火", "车"), and
every other word is unknown (a zero vector). A German query therefore finds the English,
Russian and Chinese translations of its matches, through the engine's normal model loading,
indexing and search. ``SEED_UNITS`` is the memory the tests search.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

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

# One meaning per line, in English, German, Russian and Chinese ("=": as in English).
CONCEPTS: list[str] = [
    "train zug поезд 火车",
    "berlin = берлин 柏林",
    "leaves fährt отправляется 出发",
    "nine neun девять 九",
    "where wo где 哪里",
    "nearest nächste ближайшая 最近",
    "pharmacy apotheke аптека 药店",
    "please bitte пожалуйста 请",
    "restart starten перезапустите 重启",
    "server = сервер 服务器",
    "update = обновления 更新",
    "weather wetter погода 天气",
    "sunny sonnig солнечная 晴朗",
    "tomorrow morgen завтра 明",
    "table tisch столик 桌",
    "two zwei двоих 两",
    "late verspätung опоздал 晚",
    "storm sturms шторма 暴风雨",
]
LANGS = ("en", "de", "ru", "zh")
TINT = 0.3
"""How much of a word's vector says its language (so a German query prefers German)."""
COMMON = 1.2
"""How much every known word shares (as in real models, unrelated sentences are not
orthogonal: mining margins land in the usual 1–2 range)."""
DIM = 32
CARD = {
    "teacher": "bundled:teacher",
    "languages": ["de", "ru", "zh"],
    "created": "2026-11-20T00:00:00",
    "data": "the UI tests' concept table",
}


def build_concept_model(folder: Path) -> Path:
    """Write the model folder (sentence-transformers layout, with an xlsearch card).

    A word's vector is its meaning's vector, a little of its language's and a part all words
    share; a Chinese word is its first character (the others are unknown), so that every
    translation of a unit weighs its meanings alike."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from xlsearch.engine.models.trainable import SentenceModel, StaticBody

    gen = torch.Generator().manual_seed(0)
    meanings = torch.randn(len(CONCEPTS), DIM, generator=gen)
    tints = TINT * torch.randn(len(LANGS), DIM, generator=gen)
    common = COMMON * torch.randn(DIM, generator=gen)
    vocab = {"[UNK]": 0}
    rows = [torch.zeros(DIM)]  # unknown words (and punctuation) do not move a sentence
    for c, line in enumerate(CONCEPTS):
        words = line.split()
        for lang, word in enumerate(words):
            shared = word == "=" or (lang == 0 and words[1] == "=")
            token = words[0] if word == "=" else word[0] if lang == 3 else word
            if token not in vocab:
                vocab[token] = len(rows)
                rows.append(meanings[c] + common + (0 if shared else tints[lang]))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    bag = torch.nn.EmbeddingBag.from_pretrained(torch.stack(rows), freeze=False, mode="mean")
    model = SentenceModel(StaticBody(tok, bag), normalize=True)
    return model.save(folder, card=dict(CARD))


def write_seed_tmx(path: Path) -> Path:
    """``SEED_UNITS`` as a TMX 1.4 file, as a CAT tool exports a memory."""
    from xml.sax.saxutils import escape

    tus = "".join(
        "<tu>"
        + "".join(
            f'<tuv xml:lang="{lang}"><seg>{escape(text)}</seg></tuv>' for lang, text in u.items()
        )
        + "</tu>\n"
        for u in SEED_UNITS
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
        f'creationtoolversion="1" o-tmf="t"/><body>\n{tus}</body></tmx>\n',
        encoding="utf-8",
    )
    return path


def build_home(root: Path, model_name: str = "demo-student") -> Path:
    """A template XLSEARCH_HOME: the concept model and the seed memory in collection ``demo``
    (its index is built per home, since an index belongs to the model folder's path)."""
    models = root / "data" / "models"
    models.mkdir(parents=True)
    build_concept_model(models / model_name)
    write_seed_tmx(root / "demo.tmx")
    return root


def install_home(template: Path, home: Path, model_name: str = "demo-student") -> Path:
    """Copy ``template`` into ``home`` (XLSEARCH_HOME), make its model active, import and
    index the seed memory; return the model folder."""
    from xlsearch.service.local import LocalEngine

    shutil.copytree(template, home, dirs_exist_ok=True)
    model = home / "data" / "models" / model_name
    engine = LocalEngine()
    engine.set_active_model(str(model))
    engine.import_files([str(home / "demo.tmx")], "demo")
    engine.build_index("demo")
    return model


EN = ["the dog sleeps", "the cat runs", "a red house", "a small tree", "good morning world"]


DE = ["der hund schläft", "die katze läuft", "das rote haus", "ein kleiner baum", "guten morgen"]


def write_pairs(path: Path, n: int = 200) -> Path:
    rng = random.Random(1)
    lines = []
    for i in range(n):
        j, k = rng.randrange(len(EN)), rng.randrange(len(EN))
        lines.append(f"{EN[j]} and {EN[k]} {i}\t{DE[j]} und {DE[k]} {i}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path
