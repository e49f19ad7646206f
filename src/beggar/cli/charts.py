"""Line charts as inline SVG text for beggar archive report's page
(docs/archive.md): no dependency; each chart a few kilobytes whatever the
game's length (at most POINTS a line). The marks' labels are laid out in
rows by estimated widths (place_labels), so that no text covers another."""

from __future__ import annotations

import math
from html import escape

#: The most points a line of a chart keeps.
POINTS = 1500

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


#: Em widths that bound those of DejaVu Sans (the widest common sans-serif, and
#: Debian's default) and of Liberation Sans / Arial, by kind of character; a
#: label's box is estimated from these, so it holds the drawn text wherever the
#: page is opened with one of those fonts.
_NARROW, _WIDE = frozenset(" .,:;'!|ijlIfrt()[]{}/-"), frozenset("mwMW%@=+<>~#&")
#: A line of text, as a share of its font size: ascent and descent are 1.164 em
#: in DejaVu Sans, 1.117 in Liberation Sans.
LINE = 1.3
#: The space between a mark's line and its label, and between two labels in a row.
PAD, GAP = 2, 6


def text_width(text, size):
    return size * sum(0.42 if char in _NARROW else 1.0 if char in _WIDE or not char.isascii()
                      else 0.8 if char.isupper() else 0.65 for char in text)


def place_labels(labels, low, high, size):
    """Where the labels [(x, text)] of vertical marks go, within `low` to
    `high`, so that no two boxes overlap: just right of its x, or left where
    it would cross `high`; then, in order of x, the first row (0 the top one)
    where it overlaps no label already placed. Returns [(left edge, width,
    row, anchor)]: anchor "end" where the box ends at its mark (drawn from its
    right edge, so that the text, narrower than its estimate, ends there)."""
    placed = [None] * len(labels)
    rows = []                                   # per row, the (start, end) of its boxes
    for index in sorted(range(len(labels)), key=lambda i: (labels[i][0], i)):
        x, text = labels[index]
        width = text_width(text, size)
        anchor, start = ("start", x + PAD) if x + PAD + width <= high else ("end", x - PAD - width)
        if not low <= start <= high - width:
            anchor, start = "start", max(low, min(start, high - width))
        end = start + width
        for row, boxes in enumerate(rows):
            if all(end + GAP <= other_start or start >= other_end + GAP for other_start, other_end in boxes):
                break
        else:
            row, boxes = len(rows), []
            rows.append(boxes)
        boxes.append((start, end))
        placed[index] = (start, width, row, anchor)
    return placed


def flow(widths, low, high):
    """A legend's items, left to right from `low`, a new row where the next
    would cross `high`: [(left edge, row)] in the order of `widths`."""
    placed, cursor, row = [], low, 0
    for width in widths:
        if cursor > low and cursor + width > high:
            cursor, row = low, row + 1
        placed.append((cursor, row))
        cursor += width + 3 * GAP
    return placed


def _nice_ticks(low, high, count=6):
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    ticks, value = [], math.ceil(low / step) * step
    while value <= high + step * 1e-9:
        ticks.append(value)
        value += step
    return ticks


def _thin(points):
    if len(points) <= POINTS:
        return points
    every = -(-len(points) // POINTS)
    return points[::every] + ([points[-1]] if (len(points) - 1) % every else [])


def _label(value):
    return f"{int(value):,}" if value == int(value) else f"{value:g}"


def chart(lines, x_label, y_label, title, log_y=False, marks=(), spans=(), width=760, height=300):
    """An <svg> chart. `lines`: [(label, [(x, y)])]; `marks`: vertical lines
    [(x, label)]; `spans`: shaded ranges [(x0, x1, label)]. `height` is that
    of the plot and its axes: the legend's rows below add to it, and so may
    the marks' labels."""
    left, right, top, bottom = 70, 20, 30, 45
    plot_w, plot_h = width - left - right, height - top - bottom
    kept = [(label, _thin([(x, y) for x, y in points if not log_y or y > 0])) for label, points in lines]
    xs = [x for _, points in kept for x, _ in points] + [x for x, _ in marks] + [x for span in spans for x in span[:2]]
    ys = [y for _, points in kept for _, y in points]
    if not xs or not ys:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="40"><text x="10" y="25">' \
               f'{escape(title)}: nothing to draw</text></svg>'
    x_low, x_high = min(xs), max(xs)
    if x_high == x_low:
        x_high = x_low + 1
    if marks:
        x_high += (x_high - x_low) * 0.03       # a line at the last x stays clear of the frame
    if log_y:
        y_low, y_high = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    else:
        y_low, y_high = min(0, min(ys)), max(ys)
    if y_high == y_low:
        y_high = y_low + 1

    def px(x):
        return left + (x - x_low) / (x_high - x_low) * plot_w

    mark_size = 10
    pitch = math.ceil(LINE * mark_size)
    mark_labels = place_labels([(px(x), label) for x, label in marks], left + 1, left + plot_w - 1, mark_size)
    mark_rows = 1 + max((row for _, _, row, _ in mark_labels), default=-1)
    # So many rows of labels that they would run out of the plot: the plot grows.
    grown = max(0, mark_rows * pitch + 2 - plot_h)
    plot_h, height = plot_h + grown, height + grown

    legend_size = 11
    drawn = [(COLOURS[number % len(COLOURS)], label, points)
             for number, (label, points) in enumerate(kept) if points]
    legend_at = flow([14 + text_width(label, legend_size) for _, label, _ in drawn], left, left + plot_w)
    legend_rows = 1 + max((row for _, row in legend_at), default=-1)
    legend_pitch = math.ceil(LINE * legend_size) + 2
    total = height + legend_rows * legend_pitch + (4 if legend_rows else 0)

    def py(y):
        value = math.log10(y) if log_y else y
        return top + plot_h - (value - y_low) / (y_high - y_low) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
           f'viewBox="0 0 {width} {total}" font-family="sans-serif" font-size="11">',
           f'<rect class="plot" x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="white" stroke="#999"/>']
    out.append(f'<text x="{left}" y="18" font-size="13">{escape(title)}</text>')
    for x0, x1, label in spans:
        out.append(f'<rect x="{px(x0):.1f}" y="{top}" width="{max(1.0, px(x1) - px(x0)):.1f}" height="{plot_h}" '
                   f'fill="orange" fill-opacity="0.2"><title>{escape(label)}</title></rect>')
    for tick in _nice_ticks(x_low, x_high):
        x = px(tick)
        out.append(f'<line x1="{x:.1f}" y1="{top + plot_h}" x2="{x:.1f}" y2="{top + plot_h + 4}" stroke="#333"/>'
                   f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{_label(tick)}</text>')
    y_ticks = [10.0 ** e for e in range(int(y_low), int(y_high) + 1)] if log_y else _nice_ticks(y_low, y_high, 5)
    if log_y and len(y_ticks) > 8:
        y_ticks = y_ticks[::-(-len(y_ticks) // 8)]
    for tick in y_ticks:
        y = py(tick)
        text = f"1e{int(round(math.log10(tick)))}" if log_y else _label(tick)
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{text}</text>')
    for x, label in marks:
        xpos = px(x)
        out.append(f'<line x1="{xpos:.1f}" y1="{top}" x2="{xpos:.1f}" y2="{top + plot_h}" stroke="#888" '
                   f'stroke-dasharray="3,3"><title>{escape(label)}</title></line>')
    for colour, _, points in drawn:
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.3" points="{path}"/>')
    # The marks' labels go over the lines: each on a white ground, so that the
    # lines it crosses do not run through its text; its own mark's line, at
    # its left or right edge, leads from it down to the axis.
    for (_, label), (start, label_w, row, anchor) in zip(marks, mark_labels):
        row_top = top + 1 + row * pitch
        at = start + label_w if anchor == "end" else start
        out.append(f'<rect x="{start - 1:.1f}" y="{row_top}" width="{label_w + 2:.1f}" height="{pitch - 1}" '
                   f'fill="white" fill-opacity="0.85"/><text x="{at:.1f}" y="{row_top + mark_size}" '
                   f'text-anchor="{anchor}" fill="#555" font-size="{mark_size}">{escape(label)}</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{escape(y_label)}</text>')
    if drawn:
        # Below the axes, outside the plot: no line runs under it.
        out.append('<g class="legend">')
        for (colour, label, _), (start, row) in zip(drawn, legend_at):
            baseline = height + 8 + row * legend_pitch
            out.append(f'<rect x="{start:.1f}" y="{baseline - 6}" width="10" height="3" fill="{colour}"/>'
                       f'<text x="{start + 14:.1f}" y="{baseline}">{escape(label)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
