"""The report page's SVG charts lay their text out so that none covers another:
the marks' labels by estimated widths (place_labels), the legend below the
plot. Checked here on the estimates; tests/test_report.py checks the drawn
page in a browser."""

import itertools
import random
import string
import xml.etree.ElementTree as ElementTree

from beggar import published
from beggar.cli import charts

SVG = "{http://www.w3.org/2000/svg}"
#: Characters of every width class the estimate knows, and one it does not.
CHARACTERS = string.ascii_letters + string.digits + " .,:;()-/=>%_'é"


def random_text(rng):
    return "".join(rng.choice(CHARACTERS) for _ in range(rng.randint(1, 40)))


def overlap(a, b):
    """Whether two boxes (x0, y0, x1, y1) share more than an edge."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_labels_at_any_x_come_out_apart_each_at_its_mark():
    rng = random.Random(28)
    size = 10
    for case in range(600):
        low, high = 70, rng.choice((200, 400, 740))
        # Crowded on purpose: equal x, x one pixel apart, x at both edges, long labels.
        xs = [rng.choice((low, high, rng.uniform(low, high), rng.uniform(high - 30, high)))
              for _ in range(rng.randint(1, 14))]
        xs += xs[:rng.randint(0, 3)]
        labels = [(x, random_text(rng)) for x in xs]
        placed = charts.place_labels(labels, low, high, size)
        assert placed == charts.place_labels(labels, low, high, size)      # deterministic
        pitch = charts.LINE * size
        boxes = []
        for (x, text), (start, width, row, anchor) in zip(labels, placed):
            assert width == charts.text_width(text, size) and anchor in ("start", "end")
            if width <= high - low:
                assert low <= start and start + width <= high, (case, x, text, start)
                # At its mark: beside it, or over it where neither side has room.
                assert start - charts.PAD - 1e-9 <= x <= start + width + charts.PAD + 1e-9, (case, x, text, start)
            if anchor == "end":
                assert abs(start + width - (x - charts.PAD)) < 1e-9
            boxes.append((start, row * pitch, start + width, row * pitch + 1.2 * size))
        for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
            assert not overlap(a, b), (case, labels[i], labels[j], a, b)


def test_rows_are_filled_from_the_top_and_a_label_moves_down_only_for_a_neighbour():
    size = 10
    far_apart = [(100 + 150 * i, "Nessler 2012: 7207") for i in range(4)]
    assert [row for *_, row, _ in charts.place_labels(far_apart, 70, 740, size)] == [0, 0, 0, 0]
    same_x = [(300, "Nessler 2012: 7207"), (300, "Anderson 2013: 7225"), (301, "x")]
    assert [row for *_, row, _ in charts.place_labels(same_x, 70, 740, size)] == [0, 1, 2]
    assert charts.place_labels([], 70, 740, size) == []


def test_a_label_reads_leftwards_from_a_mark_near_the_right_edge():
    (start, width, row, anchor), = charts.place_labels([(730, "Nessler 2022: 8344")], 70, 740, 10)
    assert anchor == "end" and start + width == 730 - charts.PAD and row == 0


def test_text_width_grows_with_size_and_characters():
    assert charts.text_width("", 10) == 0
    assert charts.text_width("abc", 20) == 2 * charts.text_width("abc", 10)
    assert charts.text_width("iiii", 10) < charts.text_width("aaaa", 10) < charts.text_width("WWWW", 10)
    # A digit of DejaVu Sans, the widest common sans-serif, is 0.636 em; an M 0.863, a W 0.989.
    assert charts.text_width("0", 10) >= 6.36 and charts.text_width("M", 10) >= 8.63
    assert charts.text_width("W", 10) >= 9.89


def test_legend_items_flow_into_rows_without_overlapping():
    rng = random.Random(7)
    for _ in range(500):
        widths = [rng.uniform(20, 300) for _ in range(rng.randint(1, 9))]
        placed = charts.flow(widths, 70, 740)
        boxes = [(start, row, start + width, row + 1) for width, (start, row) in zip(widths, placed)]
        for a, b in itertools.combinations(boxes, 2):
            assert not overlap(a, b)
        assert all(box[2] <= 740 for box in boxes)


def text_boxes(svg):
    """Estimated boxes (x0, y0, x1, y1) of a chart's unrotated <text> elements, and the plot's frame."""
    root = ElementTree.fromstring(svg)
    frame = next(rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "plot")
    plot = tuple(float(frame.get(k)) for k in ("x", "y")) + (
        float(frame.get("x")) + float(frame.get("width")), float(frame.get("y")) + float(frame.get("height")))
    boxes, legend = [], []
    for parent in root.iter():
        for text in parent.findall(f"{SVG}text"):
            if text.get("transform"):
                continue
            size = float(text.get("font-size", root.get("font-size")))
            width = charts.text_width(text.text, size)
            x, y = float(text.get("x")), float(text.get("y"))
            x0 = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor", "start")]
            box = (x0, y - 0.95 * size, x0 + width, y + 0.25 * size)
            boxes.append((text.text, box))
            if parent.get("class") == "legend":
                legend.append(box)
    return boxes, legend, plot


def survival_chart():
    """The survival chart of the record table, as the report page draws it."""
    curve = [(x, 10 ** (-x / 400)) for x in range(0, 3100, 50)]
    fit = [(x, 10 ** (-x / 500)) for x in range(2000, 8400, 50)]
    marks = [(cards, f"{name}: {cards}") for name, cards in published.records()]
    return charts.chart([("P(cards >= L)", curve), ("fit: exp(-(L - 2000) / 215)", fit)], "cards L",
                        "P(cards >= L)", "survival of game lengths", log_y=True, marks=marks)


def hand_chart(players):
    rng = random.Random(players)
    lines = [(f"hand {h + 1}", [(t, rng.randint(0, 52)) for t in range(0, 400, 3)]) for h in range(players)]
    return charts.chart(lines, "trick", "cards in hand", "game 1: 3150 cards, 442 tricks", height=220)


def test_no_text_of_a_chart_covers_another_and_the_legend_is_off_the_plot():
    for svg in (survival_chart(), hand_chart(2), hand_chart(3), hand_chart(4)):
        boxes, legend, plot = text_boxes(svg)
        for (one, a), (other, b) in itertools.combinations(boxes, 2):
            assert not overlap(a, b), (one, other, a, b)
        assert legend and not any(overlap(box, plot) for box in legend)


def test_the_records_labels_are_all_drawn_once_in_the_plot():
    boxes, _, plot = text_boxes(survival_chart())
    for name, cards in published.records():
        box, = [box for text, box in boxes if text == f"{name}: {cards}"]
        assert plot[0] <= box[0] and box[2] <= plot[2] and plot[1] <= box[1] and box[3] <= plot[3]


def test_so_many_marks_that_their_rows_outgrow_the_plot_grow_it():
    marks = [(100, f"mark {i}") for i in range(40)]
    svg = charts.chart([("line", [(0, 1), (200, 2)])], "x", "y", "crowded", marks=marks, height=220)
    boxes, legend, plot = text_boxes(svg)
    for (one, a), (other, b) in itertools.combinations(boxes, 2):
        assert not overlap(a, b), (one, other)
    assert all(plot[1] <= box[1] and box[3] <= plot[3] for text, box in boxes if text.startswith("mark "))
