"""The README and the pages under docs/ tell the truth: the README's examples
run as real commands and print what it shows (where that output is
deterministic), its Python examples give the values its comments say, every
command the pages show is one the command accepts, every file they name
is in the repository, and so is every page the package's sources cite. The README shows only quick examples (seconds); the
pages' long runs are parsed, not run."""

import ast
import importlib.util
import re
import shlex
import shutil
from pathlib import Path

import pytest

from beggar.cli import _parser
from beggar.cli.options import NOTATION

from helpers import beggar, in_process

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Files the pages name that the tool writes where it runs, not the repository's.
WRITTEN = ("results/archive.sqlite", "results/archive-finds/")


def _blocks(path):
    """The fenced code blocks of a page, as lists of lines."""
    blocks, block = [], None
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            if block is None:
                block = []
            else:
                blocks.append(block)
                block = None
        elif block is not None:
            block.append(line)
    return blocks


def _shown_runs(path, paused=()):
    """[(command, [lines it is shown to print])] of a page's `$ ` lines, but
    those under a `## ` heading named in `paused` (its subsections too)."""
    runs = []
    section, current, fenced = None, None, False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
            current = None          # a block's end ends the output shown
        elif not fenced:
            if line.startswith("## "):
                section = line[3:].strip()
        elif line.startswith("$ "):
            current = (line[2:], [])
            if section not in paused:
                runs.append(current)
        elif current is not None:
            current[1].append(line)
    for _, shown in runs:
        while shown and not shown[-1]:
            shown.pop()         # the blank line before the next command
    return runs


def _matches(shown, printed):
    """`printed` is what `shown` shows: line by line, a line '...' (however
    indented) standing for any number of lines."""
    if not shown:
        return not printed
    if shown[0].strip() == "...":
        return any(_matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and shown[0] == printed[0] and _matches(shown[1:], printed[1:])


def _commands(line):
    """The simple commands of a shell line: words, split at && | ;, with
    comments and redirections left out."""
    words = shlex.split(line, comments=True)
    commands, current = [], []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in ("&&", "|", ";", "||"):
            commands.append(current)
            current = []
        elif re.fullmatch(r"\d?>>?", word):
            skip = True                 # '2> progress.txt': the file is the shell's
        else:
            current.append(word)
    return [command for command in commands + [current] if command]


def test_the_readme_examples_print_what_it_shows(tmp_path, monkeypatch):
    # Run where the README's files are, in a copy, so a --plot lands in tmp_path.
    for name in ("casella.txt",):
        shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    plots = importlib.util.find_spec("matplotlib") is not None     # the plot extra
    runs = _shown_runs(ROOT / "README.md")
    assert [line.split()[:2] for line, _ in runs][:3] == [["beggar", "verify"], ["beggar", "play"], ["cat", "casella.txt"]]
    for line, shown in runs:
        [words] = _commands(line)
        if words[0] == "cat":
            assert _matches(shown, Path(words[1]).read_text().splitlines()), line
            continue
        assert words[0] == "beggar", f"the README runs quick beggar examples only: {line}"
        if not plots and "--plot" in words:
            at = words.index("--plot")
            words = words[:at] + words[at + 2:]
            shown = [text for text in shown if not text.startswith("plot written")]
        result = beggar(*words[1:], env={"BEGGAR_ENGINE": "compiled"})     # as the README shows
        assert result.returncode == 0, (line, result.stderr)
        assert _matches(shown, result.stdout.rstrip("\n").splitlines()), (line, result.stdout)


def test_the_readme_python_examples_give_what_their_comments_say(monkeypatch):
    monkeypatch.setenv("BEGGAR_ENGINE", "compiled")     # the default the README plays on
    [block] = _python_blocks(ROOT / "README.md")
    namespace = {}
    checked = 0
    for line in block:
        code, _, comment = line.partition("#")
        code, comment = code.strip(), comment.strip()
        if not code:
            continue
        try:
            if "..." in comment:
                raise ValueError(comment)       # a value shown in part
            expected = ast.literal_eval(comment)
        except (ValueError, SyntaxError):
            exec(code, namespace)       # a statement, or a comment in words
            continue
        assert eval(code, namespace) == expected, line
        checked += 1
    assert checked >= 3


def _python_blocks(path):
    text = path.read_text()
    return [block.splitlines() for block in re.findall(r"```python\n(.*?)```", text, re.S)]


def _shown_commands(page):
    """[(command line, in prose)] of a page: its `$ ` lines, its indented
    command blocks, and the beggar and benchmark commands its prose quotes
    (`beggar ...`, `python3 benchmarks/...`) with no PLACEHOLDER, [option]
    or a|b in them."""
    text = page.read_text()
    lines = [(line[2:], False) for block in _blocks(page) for line in block if line.startswith("$ ")]
    lines += [(line.strip(), False) for line in text.splitlines()
              if re.match(r" {4}(beggar|python3 -m beggar) ", line)]
    for quoted in re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S)):
        line = " ".join(quoted.split())
        words = line.split()
        if (re.match(r"(taskset -c \d+ )?(python3? benchmarks/|beggar \w+)", line)
                and not words[1].endswith(":")          # a message the command prints
                and not any(re.fullmatch(r"[A-Z][A-Z0-9_.]*|\.\.\.|.*[|\[\]].*", word) for word in words)):
            lines.append((line, True))
    return lines


def test_every_command_the_pages_show_is_accepted(capsys):
    parser = _parser()
    shown = 0
    for page in PAGES:
        for line, in_prose in _shown_commands(page):
            for words in _commands(line):
                while words and (words[0] in ("taskset", "-c") or words[0].isdigit() or "=" in words[0]):
                    words = words[1:]       # taskset -c 0, VARIABLE=value
                if words[:3] == ["python3", "-m", "beggar"]:
                    words = ["beggar"] + words[3:]
                if words[:1] in (["python3"], ["python"]) and words[1].startswith("benchmarks/"):
                    script = (ROOT / words[1]).read_text()
                    for option in (word.split("=")[0] for word in words[2:] if word.startswith("--")):
                        assert option in script, f"{page.name}: {line}: {words[1]} has no {option}"
                    shown += 1
                if not words or words[0] != "beggar":
                    continue
                argv = [word for word in words[1:]
                        if not (word.startswith("-") and "/" in word and set(word) <= NOTATION)]
                try:
                    parser.parse_args(argv)
                except SystemExit:
                    error = capsys.readouterr().err.strip()
                    # Prose may name a command without its arguments ('`beggar census` prints...').
                    if not (in_prose and "arguments are required" in error):
                        pytest.fail(f"{page.name}: `{line}`: {error}")
                shown += 1
    assert shown > 40


_PATH = re.compile(r"(?<![\w./~-])((?:src|search|results|benchmarks|tests|docs|\.ci)/[\w.*/-]*[\w*]"
                   r"|beggar/[\w/-]+\.\w+"
                   r"|(?:casella\.txt|pyproject\.toml|setup\.py|MANIFEST\.in))")


def _slug(heading):
    return re.sub(r"[^\w -]", "", heading.strip().lower()).replace(" ", "-")


def test_every_file_the_pages_name_exists():
    named = 0
    for page in PAGES:
        text = page.read_text()
        for path in _PATH.findall(text):
            if path.startswith(WRITTEN):
                continue
            if path.startswith("beggar/"):
                path = "src/" + path        # a path inside the installed package
            assert any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists(), f"{page.name}: {path}"
            named += 1
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"\w+://", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (page.parent / file).resolve() if file else page
            assert linked.exists(), f"{page.name}: a link to {target}"
            if anchor:
                headings = {_slug(line.lstrip("#")) for line in linked.read_text().splitlines()
                            if line.startswith("#")}
                assert anchor in headings, f"{page.name}: a link to {target}: no such heading"
            named += 1
    assert named > 30


def test_the_quick_start_says_where_the_archive_lands_and_it_lands_there(tmp_path):
    """Run outside a clone, `beggar search` makes results/archive.sqlite in the
    folder it runs in: the quick start says so, and the archive commands find it."""
    quick = (ROOT / "README.md").read_text().split("## Quick start")[1].split("\n## ")[0]
    assert "`results/archive.sqlite` in the folder the command runs in" in quick
    assert "anywhere else, a `results/` folder made\nthere" in quick
    result = in_process("search", "--deals", 20_000, "--seed", 1, "--workers", 1, "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "results" / "archive.sqlite").is_file()
    assert "1 job;" in in_process("archive", "jobs", cwd=tmp_path).stdout


def test_the_readme_times_both_commands_idle_and_busy_and_says_how_to_watch_the_build():
    """The first install builds for minutes and pip prints nothing meanwhile:
    a reader is told how long, on idle and on busy cores, and how to watch."""
    quick = " ".join((ROOT / "README.md").read_text().split("## Quick start")[1].split("\n## ")[0].split())
    install, tests = quick.split("Install the test extras")
    for text in (install, tests):
        assert re.search(r"\d\S* (s|minutes?) on two idle cores, [^;]*?\d\S* minutes on two (cores )?busy", text), text
    assert "nothing printed meanwhile" in install
    assert "`python3 -m pip install -v .` shows the compiler at work" in install


def test_every_page_the_package_cites_is_in_the_project():
    cited = []
    for path in sorted((ROOT / "src" / "beggar").rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd", ".pyi", ".h", ".cu"):
            continue
        for page in re.findall(r"(?<![\w/.:-])((?:[\w-]+/)*[\w-]+\.md)\b", path.read_text()):
            if not (ROOT / page).is_file():
                cited.append(f"{path.relative_to(ROOT)} cites {page}")
    assert not cited, cited
