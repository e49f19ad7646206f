"""beggar archive report: one self-contained HTML page, looked at in a real
headless browser (Debian's chromium) where one is installed; a census's
counts in the text views' forms; a hunt's balanced deals that never end, a
section per table."""

import html
import json
import os
import re
import shlex
import shutil
import subprocess

import pytest

from beggar import loops
from beggar.archive import Archive
from beggar.cli import page as report_page
from helpers import beggar, in_process, job_file, job_id
from test_hunt import TINY, _play_here, _seats, grown, hunt_job

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A report of an archive with long 2- and 3-player games, a census with its loop, and odds."""
    folder = tmp_path_factory.mktemp("report")
    archive = folder / "a.sqlite"
    two = beggar("search", job_file(folder, "two", deals=400_000, chunk=100_000), "--archive", archive, "--quiet")
    three = beggar("search", job_file(folder, "three", deals=200_000, chunk=100_000, min_cards=1200,
                                      extra="players = 3\nextend_cards = 0\n"), "--archive", archive, "--quiet")
    census = beggar("census", "half-camicia", "--archive", archive, "--quiet")
    assert two.returncode == three.returncode == census.returncode == 0, (two.stderr, three.stderr, census.stderr)
    hunted(archive)
    page = folder / "finds.html"
    written = beggar("archive", "report", page, "--archive", archive)
    assert written.returncode == 0, written.stderr
    assert written.stdout.startswith(f"report written to {page} (")
    return page, archive, [job_id(run.stdout) for run in (two, three, census)]


def hunted(path):
    """A hunt of the 16-card deck, played in this process into the archive
    at `path` (a third of a second): its seats at 2, 3 and 4 keep balanced
    deals that never end into two loops. Its job's id."""
    with Archive(path) as archive:
        job, spec = hunt_job(archive, TINY, grown(TINY)[:1])
        assert _play_here(archive, job, spec)
    return job


#: The sections the report gives a hunt of TINY: one a table, with its hand sizes.
TINY_TABLES = ((2, "9/9"), (3, "6/6/6"), (4, "5/5/4/4"))


def test_the_report_gives_each_table_a_section_of_its_balanced_deals_that_never_end(tmp_path, monkeypatch):
    path = tmp_path / "a.sqlite"
    job = hunted(path)
    # One loop shown: the one holding the tables' best deal, though a shorter period comes first in the list.
    monkeypatch.setattr(report_page, "LOOPS", 1)
    made = in_process("archive", "report", tmp_path / "r.html", "--job", job, "--archive", path)
    assert made.returncode == 0, made.stderr
    text = html.unescape((tmp_path / "r.html").read_text())
    assert "<h2>Balanced deals that never end, by table</h2>" in text
    with Archive(path) as archive:
        seats = _seats(archive, job)
        for players, sizes in TINY_TABLES:
            games = archive.games(job=job, players=players, status="loop")
            into = {game["loop"] for game in games}
            assert games and len(into) == 2
            assert (f"<h3>16 2J deck, {players} players, {sizes}: {len(games)} balanced deals that never end, "
                    f"into 2 loops</h3>") in text
            assert f"5 of {len(games)} deals shown" in text
            listing = re.search(rf"<code>(beggar archive list --status loop --deck '16 2J' --players {players} "
                                r"--job \S+ --archive \S+)</code>", text).group(1)
            listed = in_process(*shlex.split(listing)[1:]).stdout
            assert f"{len(games)} of {len(games)} games shown" in listed
            for key in into:
                loop_id = archive.loop_id("16 2J", key)
                state = str(loops.kept_state(archive.loop(loop_id), path)[0])
                command = f"beggar basin {state}" + (f" --players {players}" if players > 2 else "")
                assert f"<code>{command}</code>" in text
                # The command finds again the deals of that table kept in that loop.
                found = in_process(*command.split()[1:])
                assert found.returncode == 0 and all(game["deal"] in found.stdout for game in games
                                                     if game["loop"] == key)
            count = sum(1 for seat in seats if seat["players"] == players)
            assert re.search(rf"<p>{count} seats searched at this table by the hunt; the best: \d+ cards in the "
                             r"smallest hand, a balanced deal that never ends, <code>[^<]+</code>, from loop (\d+)",
                             text)
        best_loops = set(re.findall(r"a balanced deal that never ends, <code>[^<]+</code>, from loop (\d+)", text))
        shown = re.findall(r"<h3>Loop (\d+):", text)
        assert len(shown) == 1 and set(shown) <= best_loops
        assert archive.loops(job=job, limit=1)[0]["id"] != int(shown[0])     # not the first the list gives
        assert f"1 of {archive.count_loops(job=job)} loops shown" in text
    assert f"every loop: <code>beggar archive list --loops --job {job} --archive {path}</code>" in text


def test_the_report_maps_the_loops_by_family_with_their_deals_at_each_table(tmp_path):
    from beggar import family
    path = tmp_path / "a.sqlite"
    job = hunted(path)
    made = in_process("archive", "report", tmp_path / "r.html", "--job", job, "--archive", path)
    assert made.returncode == 0, made.stderr
    text = html.unescape((tmp_path / "r.html").read_text())
    assert "<h2>Loop families</h2>" in text
    with Archive(path) as archive:
        rows = archive.loops(job=job)
        named = {row["key"]: family.of_loop(loops.of_deal(loops.kept_state(row, path)[0])).name for row in rows}
        for name in set(named.values()):
            members = [key for key, other in named.items() if other == name]
            deals = [sum(1 for game in archive.games(job=job, players=players, status="loop")
                         if game["loop"] in members) for players in (2, 3, 4)]
            assert re.search(rf"<td><code>{re.escape(name)}</code></td><td>{len(members)}</td><td>[\d, ]+</td>"
                             rf"<td>[\d, ]+</td><td>{deals[0]}</td><td>{deals[1]}</td><td>{deals[2]}</td>", text), name
    assert f"{len(set(named.values()))} famil" in text
    # Each family's first loop, by the command that shows it, as printed.
    for command in re.findall(r"<code>(beggar archive show --loop \d+ [^<]*)</code>", text):
        shown = in_process(*shlex.split(command)[1:])
        assert shown.returncode == 0 and "family   " in shown.stdout, command


def test_a_table_a_hunt_aims_at_and_has_not_seated_says_so(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        job, _ = hunt_job(archive, TINY, grown(TINY)[:1])
    made = in_process("archive", "report", tmp_path / "r.html", "--archive", path)
    assert made.returncode == 0, made.stderr
    text = (tmp_path / "r.html").read_text()
    for players, sizes in TINY_TABLES:
        assert (f"<h3>16 2J deck, {players} players, {sizes}: no balanced deal that never ends kept</h3>\n"
                "<p>No seat searched at this table yet.</p>") in text


@pytest.mark.slow
def test_the_report_is_one_page_that_stands_alone(report):
    page, archive, jobs = report
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    # No script, and nothing fetched: every chart is inline SVG.
    assert "<script" not in text and not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert text.count("<svg") >= 4
    for name in jobs:
        assert name in text
    for heading in ("Jobs", "Balanced deals that never end, by table", "The longest games of each table", "Loops",
                    "Survival and odds"):
        assert f"<h2>{heading}</h2>" in text
    assert "standard deck, 2 players, 26/26</h3>" in text and "standard deck, 3 players, 18/17/17</h3>" in text
    assert "beggar play " in text and "One period from its canonical state" in text
    assert "A census plays every deal" in text
    one = beggar("archive", "report", page.with_name("one.html"), "--job", jobs[1], "--archive", archive)
    assert one.returncode == 0, one.stderr
    assert jobs[0] not in page.with_name("one.html").read_text()
    assert beggar("archive", "report", page.with_name("x.html"), "--job", "nope", "--archive",
                  archive).returncode == 2


def headless(tmp_path, *args):
    """Chromium run headless on `args`; skips where none is installed."""
    chromium = browser()
    if chromium is None:
        pytest.skip("no headless browser installed (Debian: apt-get install chromium): the page was "
                    "checked as text only")
    result = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,3000",
                             *args], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    return result


#: Injected into a copy of the page (the page itself has no script): the boxes
#: of every chart's text as the browser lays it out, in the page's own fonts.
#: getBoundingClientRect, not getBBox: the y axis's title is rotated.
MEASURE = """<script>
(function () {
  const problems = [];
  let texts = 0, legends = 0;
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const box = (r) => `${r.left.toFixed(1)},${r.top.toFixed(1)} to ${r.right.toFixed(1)},${r.bottom.toFixed(1)}`;
  const svgs = document.querySelectorAll("svg");
  svgs.forEach((svg, n) => {
    const boxes = Array.from(svg.querySelectorAll("text"), (t) => [t.textContent, t.getBoundingClientRect()]);
    texts += boxes.length;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        if (meets(boxes[i][1], boxes[j][1]))
          problems.push(`chart ${n}: "${boxes[i][0]}" (${box(boxes[i][1])}) and "${boxes[j][0]}" ` +
                        `(${box(boxes[j][1])}) overlap`);
    const legend = svg.querySelector("g.legend"), plot = svg.querySelector("rect.plot");
    if (!legend) return;
    legends += 1;
    const around = legend.getBoundingClientRect();
    const lines = [plot, ...svg.querySelectorAll("polyline")].map((e) => e.getBoundingClientRect());
    lines.forEach((r) => { if (meets(around, r)) problems.push(`chart ${n}: the legend (${box(around)}) ` +
                                                              `is over the lines (${box(r)})`); });
  });
  const verdict = document.createElement("pre");
  verdict.id = "verdict";
  const first = document.querySelector("svg text");
  verdict.textContent = JSON.stringify({charts: svgs.length, texts: texts, legends: legends, problems: problems,
                                        font: first ? getComputedStyle(first).fontFamily : ""});
  document.body.appendChild(verdict);
})();
</script>"""


def measure(tmp_path, text):
    """The verdict of MEASURE on the page `text`, as the browser lays it out."""
    measured = tmp_path / "measured.html"
    measured.write_text(text.replace("</body>", MEASURE + "</body>"))
    dom = headless(tmp_path, "--dump-dom", measured.as_uri()).stdout
    found = re.search(r'<pre id="verdict">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.slow
def test_the_measuring_script_sees_text_over_text_and_a_legend_over_the_lines(tmp_path):
    # Two labels at one place, and a legend inside the plot: what the report's charts must not do.
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" font-family="sans-serif" '
           'font-size="11"><rect class="plot" x="50" y="10" width="200" height="150"/>'
           '<text x="60" y="30">Kleber 1999: 5790</text><text x="70" y="32">Anderson 2013: 7225</text>'
           '<text x="60" y="190">apart</text><polyline points="50,10 250,160"/>'
           '<g class="legend"><text x="60" y="150">hand 1</text></g></svg>')
    verdict = measure(tmp_path, f"<!DOCTYPE html><html><head></head><body>{svg}</body></html>")
    assert verdict["charts"] == verdict["legends"] == 1 and verdict["texts"] == 4
    problems = verdict["problems"]
    assert len(problems) == 3, problems        # the two labels; the legend over the frame and over the line
    assert '"Kleber 1999: 5790"' in problems[0] and '"Anderson 2013: 7225"' in problems[0]
    assert all("the legend" in problem for problem in problems[1:])


def installed(font):
    listed = shutil.which("fc-list") and subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True)
    return bool(listed) and font in listed.stdout


@pytest.mark.slow
# The widths the layout assumes bound both fonts a sans-serif page gets on Debian.
@pytest.mark.parametrize("font", [None, "DejaVu Sans", "Liberation Sans"])
def test_no_text_of_a_chart_covers_another_in_a_browser_nor_the_legend_the_lines(report, tmp_path, font):
    page, _, _ = report
    text = page.read_text()
    if font is not None:
        if not installed(font):
            pytest.skip(f"the font {font} is not installed: the page was measured in the browser's own")
        text = text.replace("</head>", f"<style>svg {{ font-family: '{font}' !important; }}</style></head>")
    verdict = measure(tmp_path, text)
    # The script ran over the page's charts: its hand sizes, the loop, the survival curves.
    assert verdict["charts"] >= 6 and verdict["legends"] == verdict["charts"] and verdict["texts"] > 100, verdict
    assert font is None or font in verdict["font"], verdict["font"]
    assert verdict["problems"] == []


@pytest.mark.slow
def test_the_report_renders_in_a_headless_browser_without_console_errors(report, tmp_path):
    page, _, _ = report
    shot = tmp_path / "report.png"
    # --enable-logging=stderr writes the page's console messages as CONSOLE lines.
    result = headless(tmp_path, "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", page.as_uri())
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert not console, console
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000      # a page drawn, not a blank one


#: Injected into a copy of the page: the page's text as the browser renders it
#: (innerText: what is laid out and shown, not the markup), put in a <pre>.
RENDERED_TEXT = """<script>
(function () {
  const text = document.body.innerText;
  const out = document.createElement("pre");
  out.id = "rendered";
  out.textContent = JSON.stringify(text);
  document.body.appendChild(out);
})();
</script>"""


@pytest.mark.slow
def test_a_browser_shows_the_hunt_s_balanced_deals_a_section_a_table(report, tmp_path):
    page, archive, _ = report
    shot = tmp_path / "report.png"
    headless(tmp_path, f"--screenshot={shot}", page.as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    copy = tmp_path / "text.html"
    copy.write_text(page.read_text().replace("</body>", RENDERED_TEXT + "</body>"))
    dom = headless(tmp_path, "--dump-dom", copy.as_uri()).stdout
    found = re.search(r'<pre id="rendered">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    text = json.loads(html.unescape(found.group(1)))
    assert "Balanced deals that never end, by table" in text
    with Archive(archive) as opened:
        for players, sizes in TINY_TABLES:
            deals = opened.count_games(deck=TINY, players=players, status="loop")
            assert f"16 2J deck, {players} players, {sizes}: {deals} balanced deals that never end, into 2 loops" \
                in text
            assert f"5 of {deals} deals shown" in text
    assert re.search(r"beggar basin \S+ --players 3", text) and re.search(r"beggar basin \S+ --players 4", text)
    # Before the longest games: the hunt's result is not below the fold of finished games.
    assert text.index("by table") < text.index("The longest games of each table")


@pytest.mark.slow
def test_the_report_page_gives_a_census_its_counts_in_the_text_views_forms(census_run, tmp_path):
    archive, run, job = census_run
    page = tmp_path / "report.html"
    made = beggar("archive", "report", page, "--job", job, "--archive", archive)
    assert made.returncode == 0, made.stderr
    html = page.read_text()
    assert "95 % interval" not in html and "nothing is predicted from them" in html
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", html)       # times as every text view writes them
