"""Line charts as inline SVG text, for pages that must stand alone (beggar
archive report): no dependency, no network, no script; each chart is a few
kilobytes whatever the length of the game it draws (its points are thinned
to at most POINTS a line)."""

from __future__ import annotations

import math
from html import escape

#: The most points a line of a chart keeps.
POINTS = 1500

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _nice_ticks(low, high, count=6):
    """Round tick values from low to high, about `count` of them."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    first = math.ceil(low / step) * step
    ticks = []
    value = first
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
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:g}"


def chart(lines, x_label, y_label, title="", log_y=False, marks=(), spans=(), width=760, height=300,
          steps=False):
    """An SVG chart. `lines`: [(label, [(x, y)])]; `marks`: vertical lines
    [(x, label)] (records, say); `spans`: shaded ranges [(x0, x1, label)];
    `log_y`: a logarithmic y axis (values <= 0 left out); `steps`: draw each
    line as steps (a survival curve). Returns the <svg> element as text."""
    left, right, top, bottom = 70, 20, 30 if title else 12, 45
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
        if y_high == y_low:
            y_high += 1
    else:
        y_low, y_high = min(0, min(ys)), max(ys)
        if y_high == y_low:
            y_high = y_low + 1

    def px(x):
        return left + (x - x_low) / (x_high - x_low) * plot_w

    def py(y):
        value = math.log10(y) if log_y else y
        return top + plot_h - (value - y_low) / (y_high - y_low) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="white" stroke="#999"/>']
    if title:
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
    for number, (x, label) in enumerate(marks):
        xpos = px(x)
        out.append(f'<line x1="{xpos:.1f}" y1="{top}" x2="{xpos:.1f}" y2="{top + plot_h}" stroke="#888" '
                   f'stroke-dasharray="3,3"><title>{escape(label)}</title></line>'
                   # Near the right edge, the label reads leftwards from its line.
                   + (f'<text x="{xpos - 2:.1f}" text-anchor="end"' if xpos > left + 0.7 * plot_w
                      else f'<text x="{xpos + 2:.1f}"')
                   + f' y="{top + 12 + 11 * (number % 4)}" fill="#555" font-size="10">{escape(label)}</text>')
    for number, (label, points) in enumerate(kept):
        if not points:
            continue
        colour = COLOURS[number % len(COLOURS)]
        path = []
        for index, (x, y) in enumerate(points):
            if steps and index:
                path.append(f"{px(x):.1f},{py(points[index - 1][1]):.1f}")
            path.append(f"{px(x):.1f},{py(y):.1f}")
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.3" points="{" ".join(path)}"/>')
        out.append(f'<rect x="{left + 8}" y="{top + plot_h - 14 - 14 * number}" width="10" height="3" '
                   f'fill="{colour}"/><text x="{left + 22}" y="{top + plot_h - 10 - 14 * number}">'
                   f'{escape(label)}</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{escape(y_label)}</text>')
    out.append("</svg>")
    return "\n".join(out)
