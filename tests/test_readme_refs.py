"""The READMEs' references resolve: what a new user looks up after reading README.md or perf/README.md exists.

- every perf/RESULTS.md section quoted by name (`RESULTS "dec9"`, `perf/RESULTS.md "host path"`) and every
  "final call of DATE" names a heading of perf/RESULTS.md (newuser10: README cited "Final call of 2026-12-02",
  a section that never existed; its figures are in "Device calls of stop 22");
- every run id cited as `RESULTS run K1` / `RESULTS D1-D2` occurs in perf/RESULTS.md;
- every `python -m MODULE` names an importable module, and no command is written as a bare `rocflash SUBCOMMAND`
  (pyproject.toml installs no console script: `rocflash info` is "command not found"; newuser10);
- every repository path named (tests/..., perf/..., hip_src/..., rocflash/..., ck_configs/..., ci/...) exists;
- every checked ``ROCFLASH_*`` switch (rocflash.envvars SWITCHES, BUILD_SWITCHES) is in README's list of them.

Fast: reads text files, imports nothing but module specs.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
READMES = ("README.md", "perf/README.md")


def _text(name: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / name).read_text())  # names may wrap over lines


def _headings() -> list[str]:
    return [re.sub(r"\s+", " ", line).lower() for line in (ROOT / "perf/RESULTS.md").read_text().splitlines()
            if line.startswith("#")]


def section_refs(text: str) -> set[str]:
    quoted = re.findall(r'RESULTS(?:\.md)?[ ,]*"([^"]+)"', text)
    final = [f"Final call of {d}" for d in re.findall(r"[Ff]inal call of (\d{4}-\d\d-\d\d)", text)]
    return set(quoted) | set(final)


def missing_sections(text: str, headings: list[str]) -> list[str]:
    return sorted(r for r in section_refs(text) if not any(r.lower() in h for h in headings))


def run_refs(text: str) -> set[str]:
    ids = set()
    for first, rest in re.findall(r"RESULTS(?:\.md)?,? (?:runs? )?([A-Z]{1,3}\d+(?:-\d+)?)((?:(?:-|, | and )[A-Z]{1,3}\d+)*)",
                                  text):
        ids.add(first)
        ids.update(re.findall(r"[A-Z]{1,3}\d+", rest))
    return ids


def bare_commands(text: str) -> list[str]:
    """Code spans that start with `rocflash <word>`: a console script this package does not install."""
    return sorted(set(re.findall(r"`(rocflash [a-z][\w-]*)[^`]*`", text)))


@pytest.mark.parametrize("readme", READMES)
def test_results_sections_exist(readme):
    missing = missing_sections(_text(readme), _headings())
    assert not missing, f"{readme} cites perf/RESULTS.md sections that have no heading there: {missing}"


@pytest.mark.parametrize("readme", READMES)
def test_results_run_ids_exist(readme):
    results = (ROOT / "perf/RESULTS.md").read_text()
    missing = sorted(r for r in run_refs(_text(readme)) if not re.search(rf"\b{re.escape(r)}\b", results))
    assert not missing, f"{readme} cites run ids that perf/RESULTS.md never mentions: {missing}"


@pytest.mark.parametrize("readme", READMES)
def test_commands_exist(readme):
    text = _text(readme)
    mods = sorted(set(re.findall(r"python3? -m (rocflash[\w.]*)", text)))
    assert mods
    assert not [m for m in mods if importlib.util.find_spec(m) is None], mods
    pyproject = (ROOT / "pyproject.toml").read_text()
    if "[project.scripts]" not in pyproject:
        bare = bare_commands(text)
        assert not bare, (f"{readme} writes {bare} as a shell command, but pyproject.toml installs no console "
                          "script: write `python -m rocflash ...`")


@pytest.mark.parametrize("readme", READMES)
def test_paths_exist(readme):
    paths = set(re.findall(r"(?<![\w/.-])((?:tests|perf|hip_src|rocflash|ck_configs|ci|\.ci)/[\w./-]*\w)",
                           _text(readme)))
    assert paths
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, f"{readme} names paths that do not exist: {missing}"


def test_checks_can_fail():
    """The checks on texts with the defects newuser10 found (a section that does not exist, a bare command)."""
    heads = ["## device calls of stop 22 (2026-12-01)", "## final call of 2026-12-01 (main c499ea9)"]
    assert missing_sections('(RESULTS "Final call of 2026-12-02")', heads) == ["Final call of 2026-12-02"]
    assert missing_sections("in the final call of 2026-12-02: pass", heads) == ["Final call of 2026-12-02"]
    assert missing_sections('RESULTS "Device calls of stop 22" and the final call of 2026-12-01', heads) == []
    assert run_refs("(RESULTS D1-D2: 95 tests; RESULTS run K1, RESULTS.md run D5-1)") == {"D1", "D2", "K1", "D5-1"}
    assert bare_commands("`rocflash info` lists it; `python -m rocflash info` too") == ["rocflash info"]


def test_every_switch_in_readme():
    from rocflash import envvars

    text = _text("README.md")
    listed = text[text.index("Environment switches ("):][:600]
    names = [*envvars.SWITCHES, *envvars.BUILD_SWITCHES, "ROCFLASH_BACKEND", "ROCFLASH_JOBS"]
    missing = [n for n in names if f"`{n}`" not in listed]
    assert not missing, f"README's environment switches list lacks {missing} (rocflash/envvars.py checks them)"
