"""Terms per language: which analyzer reads which language, what each makes of words,
the index's record of them, and a question in each language finding its page."""

from __future__ import annotations

import copy
import json

import pytest
from stop_words import get_stop_words  # type: ignore[import-untyped]

from docs_panel.build.index_build import build_index, split_index
from docs_panel.build.site.extract import extract_site
from docs_panel.core.analyzers import VERSION, analyzer, from_record, record
from docs_panel.core.docs_index import Section, load_index
from docs_panel.portable.errors import DocsIndexError
from tests.fixture_files import GENERATORS

VITEPRESS = GENERATORS / "vitepress" / "site"

# This test's own copy of the table: every UI language and the languages docs sites ship.
NAMES = {
    "en": "english",
    "en-US": "english",
    "": "english",
    "fr": "snowball-french",
    "de-CH": "snowball-german",
    "es": "snowball-spanish",
    "pt-BR": "snowball-portuguese",
    "ar": "snowball-arabic",
    "ru-RU": "snowball-russian",
    "it": "snowball-italian",
    "nl": "snowball-dutch",
    "tr": "snowball-turkish",
    "pl": "snowball-polish",
    "fa-IR": "snowball-persian",
    "zh-Hans": "cjk-bigram",
    "ja": "cjk-bigram",
    "ko-KR": "cjk-bigram",
    "vi": "plain",
}


@pytest.mark.parametrize(("language", "name"), NAMES.items())
def test_each_language_has_its_analyzer(language: str, name: str) -> None:
    assert analyzer(language).name == name


@pytest.mark.parametrize(
    ("language", "words", "alike"),
    [
        ("fr", "les fichiers de configuration", "un fichier configurer"),
        ("de", "die Dateien und Einstellungen", "eine Datei, die Einstellung"),
        ("es", "las búsquedas locales", "una búsqueda local"),
        ("pt", "as páginas traduzidas", "uma página traduzida"),
        ("ru", "боковые панели", "боковая панель"),
        ("it", "le pagine tradotte", "una pagina tradotta"),
        ("nl", "de zoekresultaten", "een zoekresultaat"),
        ("pl", "pliki konfiguracyjne", "plik konfiguracyjny"),
        ("tr", "ayarları ve dosyaları", "ayar dosya"),  # noqa: RUF001 (Turkish dotless i)
        ("ar", "المكتبات", "مكتبة"),
        ("fa", "کتابهای", "کتاب"),
    ],
)
def test_a_words_forms_meet_on_one_stem(language: str, words: str, alike: str) -> None:
    """Inflected forms share their content terms; the language's stopwords give none."""
    words_of = analyzer(language).words
    assert set(words_of.terms(words)) == set(words_of.terms(alike)) != set()


@pytest.mark.parametrize("language", ["fr", "de", "es", "ru", "pl", "fa"])
def test_stopwords_come_from_the_stop_words_package(language: str) -> None:
    algorithm = analyzer(language).name.removeprefix("snowball-")
    listed = {word.lower() for word in get_stop_words(algorithm) if word.isalpha()}
    assert analyzer(language).words.stopwords == listed
    assert all(analyzer(language).words.terms(word) == [] for word in sorted(listed)[:20])


@pytest.mark.parametrize("language", sorted(NAMES))
def test_identifiers_options_and_dotted_names_stay_whole_in_every_language(
    language: str,
) -> None:
    found = analyzer(language).words.terms("os.path.join, --user et getItem")
    assert {"os.path.join", "--user", "getitem"} <= set(found)


def test_cjk_runs_are_read_as_overlapping_bigrams_and_latin_words_as_english() -> None:
    words = analyzer("zh-Hans").words
    assert words.terms("使用VitePress构建网站") == [
        "使用",
        "vitepress",
        "vite",
        "press",
        "构建",
        "建网",
        "网站",
    ]
    assert words.terms("字") == ["字"]
    assert words.terms("設定ファイル") == ["設定", "定フ", "ファ", "ァイ", "イル"]
    assert analyzer("ko").words.terms("사이드바를 설정") == ["사이", "이드", "드바", "바를", "설정"]


def test_records_round_trip_and_unknown_ones_are_refused() -> None:
    for language in ("", "fr", "zh", "vi"):
        built = analyzer(language)
        again = from_record(json.loads(json.dumps(record(built))))
        assert again.name == built.name
        assert again.words.terms("Les fichiers 部署到 os.path") == built.words.terms(
            "Les fichiers 部署到 os.path"
        )
    for bad in (
        {"name": "english", "version": VERSION + 1},
        {"name": "snowball-klingon", "version": VERSION, "stopwords": []},
        {"name": "snowball-french", "version": VERSION},
        "english",
    ):
        with pytest.raises(ValueError):
            from_record(bad)


SECTIONS = [
    Section("/guide/deploy.html", "Deploy", "Deploy", "Deploy to GitHub Pages.", language="en"),
    Section("/guide/search.html", "Search", "Search", "Local search.", language="en"),
    Section(
        "/zh/guide/deploy.html",
        "部署",
        "部署 VitePress 站点",
        "以下指南基于一些共同的假设：使用 GitHub Actions 部署到 GitHub Pages。",  # noqa: RUF001
        language="zh-hans",
    ),
    Section(
        "/zh/guide/search.html",
        "搜索",
        "本地搜索",
        "VitePress 支持模糊全文搜索。",
        language="zh-hans",
    ),
    Section(
        "/ru/guide/deploy.html",
        "Развёртывание",
        "Развёртывание сайта",
        "Следующие руководства развёртывают сайт на GitHub Pages.",
        language="ru",
    ),
    Section("/ru/guide/search.html", "Поиск", "Поиск", "Локальный поиск.", language="ru"),
]


def test_a_question_in_each_language_finds_its_page() -> None:
    """A reader's question is read as the index read pages in the reader's language."""
    index = load_index(json.loads(json.dumps(build_index(SECTIONS, "en"))))
    for question, language, page in [
        ("如何部署", "zh-Hans", "/zh/guide/deploy.html"),
        ("搜索", "zh", "/zh/guide/search.html"),
        ("развёртывания сайтов", "ru", "/ru/guide/deploy.html"),
        ("deploying", "", "/guide/deploy.html"),
    ]:
        hits = index.search(question, language=language)
        assert hits and hits[0].section.page == page, question


def test_the_index_records_each_languages_analyzer_and_refuses_a_mismatch() -> None:
    payload = build_index(SECTIONS, "en")
    assert payload["languages"] == ["en", "ru", "zh-hans"]
    assert [entry["name"] for entry in payload["analyzers"]] == [  # type: ignore[attr-defined]
        "english",
        "snowball-russian",
        "cjk-bigram",
    ]
    head, _ = split_index(payload, split_bytes=0)
    assert head["analyzers"] == payload["analyzers"]
    for change in (
        lambda p: p["analyzers"][2].update(version=VERSION + 1),
        lambda p: p["analyzers"][1].update(name="snowball-klingon"),
        lambda p: p.pop("analyzers"),
        lambda p: p["analyzers"].pop(),
    ):
        broken = copy.deepcopy(payload)
        change(broken)
        with pytest.raises(DocsIndexError, match="rebuild the index"):
            load_index(broken)


def test_french_pages_of_a_real_vitepress_site_answer_french_questions() -> None:
    """On the VitePress fixture, French questions as a French reader find the French
    pages; none gets an empty result."""
    extracted = extract_site(VITEPRESS)
    index = load_index(json.loads(json.dumps(build_index(extracted.sections, "en"))))
    for question, page in [
        ("comment installer Lumen", "/fr/getting-started/install.html"),
        ("vérifier que l'installation fonctionne", "/fr/getting-started/install.html"),
        ("mettre à jour", "/fr/getting-started/install.html"),
        ("synchroniser mes photothèques", "/fr/index.html"),
    ]:
        hits = index.search(question, language="fr")
        assert hits and hits[0].section.page == page, question
