#!/usr/bin/env python3
"""The charts of docs/benchmarks.md, as plain SVG (standard library only).

As a module: matrix_chart(cells, machine, command) draws the tool matrix as bars, ours beside
xdpsock and DPDK per cell, one panel per benchmark; latency_chart(rows, machine, command) draws
the latency table as a percentile plot, one line per row, log scale. scripts/benchmark and
scripts/latency call them with what they measured.
As a program: `bench/svg_chart.py matrix|latency DOC.md OUT.svg` draws them from the tables
already in docs/benchmarks.md (their command, machine and date included), measuring nothing.
"""
import math
import re
import sys
from html import escape

TOOLS = [('afxdp', 'afxdp', '#2171b5'), ('xdpsock', 'xdpsock', '#fd8d3c'),
         ('dpdk', 'DPDK testpmd', '#74c476')]
BENCHMARKS = ['xdp-drop', 'rxdrop', 'txpush', 'l2fwd']


def cell_name(cell):
    """The name a cell goes by in the chart: 'rxdrop spin native 1c 1q', 'paced 4 Mpps' added."""
    name = f'{cell["benchmark"]} {cell["wait"]} {cell["mode"]} {cell["cores"]}c {cell["queues"]}q'
    return name + (f' {cell["source"]}' if cell.get('source', 'full') not in ('full', '-') else '')


def _header(width, height, title, machine, command):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            'font-family="sans-serif" font-size="11">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="10" y="20" font-size="14">{escape(title)}</text>',
            f'<text x="10" y="38">{escape(command)}</text>',
            f'<text x="10" y="54">Machine: {escape(machine)}</text>']


def _legend(x, y, entries):
    out = []
    for i, (name, color) in enumerate(entries):
        out.append(f'<rect x="{x + i * 120}" y="{y - 9}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{x + 14 + i * 120}" y="{y}">{escape(name)}</text>')
    return out


def _nice_top(value):
    """The axis' top: 1, 2 or 5 times a power of ten, at or above value."""
    if value <= 0:
        return 1
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


def matrix_chart(cells, machine, command):
    """cells: dicts with benchmark, wait, mode, cores, queues, source, tool, mpps. One panel per
    benchmark, a group of bars per cell of ours (afxdp, then xdpsock and DPDK when measured)."""
    groups = {}
    for cell in cells:
        groups.setdefault(cell['benchmark'], {}).setdefault(cell_name(cell), {})[cell['tool']] = \
            cell['mpps']
    tools = [t for t in TOOLS if any(t[0] in g for b in groups.values() for g in b.values())]
    bar, gap, left, panel_h, label_h, top = 12, 14, 80, 180, 150, 100
    widest = max(len(g) for g in groups.values())
    width = max(left + widest * (len(tools) * bar + gap) + 40, 20 + 7 * len(command), 760)
    order = [b for b in BENCHMARKS if b in groups] + [b for b in groups if b not in BENCHMARKS]
    height = top + len(order) * (panel_h + label_h) + 20
    svg = _header(width, height, 'afxdp tool matrix: Mpps per cell (median), higher is better',
                  machine, command)
    svg += _legend(left, 72, [(name, color) for _, name, color in tools])
    for p, bench in enumerate(order):
        y0 = top + p * (panel_h + label_h)
        base = y0 + panel_h
        high = _nice_top(max(max(g.values()) for g in groups[bench].values()))
        svg.append(f'<text x="{left}" y="{y0 - 6}" font-size="13">{escape(bench)}</text>')
        svg.append(f'<text transform="translate(20,{y0 + panel_h / 2:.0f}) rotate(-90)" '
                   'text-anchor="middle">Mpps</text>')
        for k in range(6):
            v = high * k / 5
            y = base - panel_h * k / 5
            svg.append(f'<line x1="{left}" x2="{width - 20}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
            svg.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
        for g, (name, values) in enumerate(groups[bench].items()):
            x0 = left + 8 + g * (len(tools) * bar + gap)
            for i, (tool, label, color) in enumerate(tools):
                if tool not in values:
                    continue
                h = panel_h * values[tool] / high
                svg.append(f'<rect x="{x0 + i * bar}" y="{base - h:.1f}" width="{bar - 1}" '
                           f'height="{h:.1f}" fill="{color}"><title>{escape(name)}, {label}: '
                           f'{values[tool]:.3f} Mpps</title></rect>')
            cx = x0 + len(tools) * bar / 2
            svg.append(f'<text class="cell" transform="translate({cx:.1f},{base + 10}) rotate(40)" '
                       f'font-size="10">{escape(name)}</text>')
        svg.append(f'<line x1="{left}" x2="{left}" y1="{y0}" y2="{base}" stroke="black"/>')
        svg.append(f'<line x1="{left}" x2="{width - 20}" y1="{base}" y2="{base}" stroke="black"/>')
    svg.append(f'<text x="{width / 2:.0f}" y="{height - 6}" text-anchor="middle">cell: benchmark, '
               'wait, mode, cores (c), queues (q), source</text>')
    return '\n'.join(svg + ['</svg>']) + '\n'


PERCENTILES = [('p50_us', 'p50', 0.5), ('p90_us', 'p90', 0.9), ('p99_us', 'p99', 0.99),
               ('p99_9_us', 'p99.9', 0.999), ('max_us', 'max', 0.9999)]
COLORS = ['#2171b5', '#6baed6', '#08306b', '#41ab5d', '#a1d99b', '#fd8d3c', '#e6550d', '#756bb1',
          '#bcbddc', '#636363']


def latency_chart(rows, machine, command):
    """rows: dicts with row (the name) and p50_us, p90_us, p99_us, p99_9_us, max_us. x: the
    percentile, spaced as -log10(1 - p); y: the round trip in µs, log scale; a line per row."""
    left, top, plot_w, plot_h = 80, 90, 520, 380
    legend_w = 440
    width, height = left + plot_w + legend_w, top + plot_h + 60
    values = [r[k] for r in rows for k, _, _ in PERCENTILES]
    lo = 10 ** math.floor(math.log10(max(min(values), 0.1)))
    hi = 10 ** math.ceil(math.log10(max(values) * 1.0001))

    def x(p):
        span = -math.log10(1 - PERCENTILES[-1][2]) - -math.log10(1 - PERCENTILES[0][2])
        return left + plot_w * (-math.log10(1 - p) + math.log10(1 - PERCENTILES[0][2])) / span

    def y(v):
        return top + plot_h - plot_h * (math.log10(max(v, lo)) - math.log10(lo)) / (
            math.log10(hi) - math.log10(lo))

    width = max(width, 20 + 7 * len(command))
    svg = _header(width, height, 'Round trip through a reflector: µs at each percentile, log scale, '
                  'lower is better', machine, command)
    decade = lo
    while decade <= hi * 1.0001:
        svg.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(decade):.1f}" '
                   f'y2="{y(decade):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y(decade) + 4:.1f}" text-anchor="end">{decade:g}</text>')
        decade *= 10
    for _, name, p in PERCENTILES:
        svg.append(f'<line x1="{x(p):.1f}" x2="{x(p):.1f}" y1="{top}" y2="{top + plot_h}" stroke="#eee"/>')
        svg.append(f'<text x="{x(p):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{name}</text>')
    svg.append(f'<text x="{left + plot_w / 2:.0f}" y="{top + plot_h + 36}" text-anchor="middle">'
               'percentile</text>')
    svg.append(f'<text transform="translate(20,{top + plot_h / 2:.0f}) rotate(-90)" '
               'text-anchor="middle">round trip, µs</text>')
    for i, r in enumerate(rows):
        color = COLORS[i % len(COLORS)]
        dash = '' if i < len(COLORS) else ' stroke-dasharray="4 2"'
        points = ' '.join(f'{x(p):.1f},{y(r[k]):.1f}' for k, _, p in PERCENTILES)
        svg.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"{dash}>'
                   f'<title>{escape(r["row"])}</title></polyline>')
        ly = top + 8 + i * 18
        svg.append(f'<line x1="{left + plot_w + 20}" x2="{left + plot_w + 40}" y1="{ly - 4}" '
                   f'y2="{ly - 4}" stroke="{color}" stroke-width="2"{dash}/>')
        svg.append(f'<text class="row" x="{left + plot_w + 46}" y="{ly}" font-size="10">'
                   f'{escape(r["row"])}</text>')
    svg.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="black"/>')
    svg.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" '
               'stroke="black"/>')
    return '\n'.join(svg + ['</svg>']) + '\n'


def _section(text, heading):
    start = text.index(f'\n## {heading}\n')
    end = text.find('\n## ', start + 1)
    return text[start:end if end >= 0 else len(text)]


def _table_rows(lines):
    """The rows of the Markdown tables in lines, as dicts keyed by their header's columns."""
    rows, header = [], None
    for line in lines:
        if not line.startswith('|'):
            header = None
            continue
        fields = [f.strip() for f in line.strip().strip('|').split('|')]
        if header is None:
            header = fields
        elif not set(line) <= set('|- '):
            rows.append(dict(zip(header, fields)))
    return rows


def _number(text):
    return float(text.replace(',', ''))


def matrix_from_doc(text):
    """The cells, machine and command of the "Tool matrix" section of docs/benchmarks.md."""
    section = _section(text, 'Tool matrix')
    machine = re.search(r'^Machine: (.*)$', section, re.M).group(1).replace('`', '').rstrip('.')
    command = re.search(r'```sh\n(.*?)\n```', section, re.S).group(1)
    cells = []
    for bench in re.split(r'\n### ', section)[1:]:
        name, _, body = bench.partition('\n')
        for r in _table_rows(body.splitlines()):
            if r['Mpps (median)'] == '-':
                continue
            cells.append({'benchmark': name.strip(), 'wait': r['wait'], 'mode': r['mode'],
                          'cores': int(r['cores']), 'queues': int(r['queues']),
                          'source': r['source'], 'tool': r.get('tool', 'afxdp'),
                          'mpps': _number(r['Mpps (median)'])})
    return cells, machine, command


def latency_from_doc(text):
    """The rows, machine note and command of the "Latency" section of docs/benchmarks.md: the
    machine is the tool matrix's, the date the latency run's own."""
    section = _section(text, 'Latency')
    command = re.search(r'^`(RATE=[^`]*)`', section, re.M).group(1)
    date = re.search(r'\((\d{4}-\d\d-\d\d[^,)]*)', section).group(1)
    machine = re.sub(r', \d{4}-\d\d-\d\d$', '', matrix_from_doc(text)[1]) + ', ' + date
    rows = []
    for r in _table_rows(section.splitlines()):
        row = {'row': r['path, wait (reflector)']}
        for key, name, _ in PERCENTILES:
            row[key] = _number(r['p50 µs' if name == 'p50' else name])
        rows.append(row)
    return rows, machine, command


def main(argv):
    if len(argv) != 4 or argv[1] not in ('matrix', 'latency'):
        sys.exit('usage: bench/svg_chart.py matrix|latency DOC.md OUT.svg')
    with open(argv[2], encoding='utf-8') as f:
        text = f.read()
    if argv[1] == 'matrix':
        svg = matrix_chart(*matrix_from_doc(text))
    else:
        svg = latency_chart(*latency_from_doc(text))
    with open(argv[3], 'w', encoding='utf-8') as f:
        f.write(svg)


if __name__ == '__main__':
    main(sys.argv)
