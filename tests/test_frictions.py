"""What a new user tripped on (issue 28, the smaller ones), each through the real command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_page_the_package_cites_is_in_the_project():
    cited = []
    for path in sorted((ROOT / "src" / "beggar").rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd", ".pyi", ".h", ".cu"):
            continue
        for page in re.findall(r"(?<![\w/.:-])((?:[\w-]+/)*[\w-]+\.md)\b", path.read_text()):
            if not (ROOT / page).is_file():
                cited.append(f"{path.relative_to(ROOT)} cites {page}")
    assert not cited, cited
