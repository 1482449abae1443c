"""Whether every translation of a catalog says what its English says: ``python -m
common.catalog_check`` lists, for each ``<locale>.po`` beside an ``en.po`` (the platform's
and each game's), the English ids it lacks, the ids English no longer has, and the
messages whose placeholders ("{0}", "{1:signed}") or plural forms differ from the
English; each must also compile (Babel's checks and its MO writer). Exits 1 when anything
is found, so that a new English id shows which languages still need its words.
"""

import argparse
import re
import sys
from dataclasses import dataclass, field
from io import BytesIO, StringIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from common.phrases import FALLBACK, PLATFORM_CATALOGS

ROOT = Path(__file__).resolve().parent.parent
_PLACEHOLDER = re.compile(r"\{(\d+)(?::([a-z]+))?\}")


def catalog_folders(root: Path = ROOT) -> list[Path]:
    """Every folder of catalogs: the platform's and each game's."""
    return [PLATFORM_CATALOGS, *sorted(path.parent for path in (root / "services").glob("*/catalog/en.po"))]


@dataclass
class Report:
    """What one translation lacks or gets wrong against its English."""

    path: Path
    missing: list[str] = field(default_factory=list)  # English ids without words here
    extra: list[str] = field(default_factory=list)  # ids English does not have
    wrong: list[str] = field(default_factory=list)  # placeholders, plural forms, compiling

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.wrong)


def _key(context: str | None, message_id: str) -> str:
    return f"{context}:{message_id}" if context else message_id


def _messages(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    found = {}
    for message in catalog:
        if not message.id:
            continue
        key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        found[_key(message.context, key)] = tuple(str(s or "") for s in strings)
    return found


def _placeholders(forms: tuple[str, ...]) -> set[tuple[str, str]]:
    return {(index, style or "") for form in forms for index, style in _PLACEHOLDER.findall(form)}


def check(path: Path) -> Report:
    """``path`` (a translation) against the ``en.po`` beside it."""
    report = Report(path)
    english = _messages(read_po(StringIO(path.with_name(f"{FALLBACK}.po").read_text("utf-8"))))
    catalog = read_po(StringIO(path.read_text("utf-8")))
    translated = _messages(catalog)
    for key, forms in english.items():
        words = translated.get(key)
        if words is None or not all(words):
            report.missing.append(key)
            continue
        if len(words) != len(forms):
            report.wrong.append(f"{key}: {len(words)} forms, English has {len(forms)}")
        if _placeholders(words) != _placeholders(forms):
            report.wrong.append(
                f"{key}: placeholders {sorted(_placeholders(words))}, English {sorted(_placeholders(forms))}"
            )
    report.extra = [key for key in translated if key not in english]
    for message, errors in catalog.check():
        report.wrong += [f"{_key(message.context, str(message.id))}: {error}" for error in errors]
    try:
        write_mo(BytesIO(), catalog)
    except Exception as error:
        report.wrong.append(f"does not compile: {error}")
    return report


def reports(root: Path = ROOT) -> list[Report]:
    return [
        check(path) for folder in catalog_folders(root) for path in sorted(folder.glob("*.po")) if path.stem != FALLBACK
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    found = reports()
    for report in found:
        where = report.path.relative_to(ROOT)
        if report.clean:
            print(f"{where}: complete")
            continue
        for title, keys in (("missing", report.missing), ("not in English", report.extra), ("wrong", report.wrong)):
            for key in keys:
                print(f"{where}: {title}: {key}")
    return 0 if all(report.clean for report in found) else 1


if __name__ == "__main__":
    sys.exit(main())
