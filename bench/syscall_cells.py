#!/usr/bin/env python3
"""scripts/syscalls' table: syscalls per frame of each application run, ours beside xdpsock's.

  bench/syscall_cells.py OUT_DIR [--markdown] [--command TEXT]

OUT_DIR holds one directory per demo run (cells.jsonl, the demo's --json lines) and in it, per
application run, run.<ns>.args (its arguments), .perf (`perf stat -x,` counts) and .out (its
output). A cell's frames are the application's own total: rx for rxdrop, tx for l2fwd and txpush.
"""
import argparse
import collections
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo_cells import read_cells, read_machine  # noqa: E402

# The syscalls a data path makes to wait or to kick; everything else is set-up and statistics.
DATA_PATH = ['poll', 'ppoll', 'sendto', 'recvfrom', 'sched_yield']
BENCHMARKS = ['rxdrop', 'l2fwd', 'txpush']
WAITS = ['spin', 'poll()', 'busy-poll']
XDPSOCK_BENCHMARK = {'-r': 'rxdrop', '-l': 'l2fwd', '-t': 'txpush'}


def run_key(args):
    """(benchmark, tool, wait) of one application run, from its arguments."""
    if args and args[0] in BENCHMARKS:
        tool, benchmark = 'afxdp', args[0]
    else:
        tool = 'xdpsock'
        benchmark = next((XDPSOCK_BENCHMARK[a] for a in args if a in XDPSOCK_BENCHMARK), 'rxdrop')
    wait = 'busy-poll' if '-B' in args else ('poll()' if '-p' in args else 'spin')
    return benchmark, tool, wait


def read_perf(path):
    """{'raw': n, 'poll': n, ...} from `perf stat -x,` output."""
    counts = {}
    with open(path) as f:
        for line in f:
            fields = line.strip().split(',')
            if len(fields) < 3 or not fields[0].isdigit():
                continue
            event = fields[2]
            name = 'raw' if event.startswith('raw_syscalls') else event.split('sys_enter_')[-1]
            counts[name] = int(fields[0])
    return counts


def afxdp_frames(text, benchmark):
    for line in reversed(text.splitlines()):
        if '"summary"' in line:
            summary = json.loads(line)
            return summary['rx_packets' if benchmark == 'rxdrop' else 'tx_packets']
    return None


def xdpsock_frames(text, benchmark):
    """The last total on xdpsock's "rx" (rxdrop) or "tx" row."""
    row = 'rx' if benchmark == 'rxdrop' else 'tx'
    totals = [int(m.group(1)) for m in re.finditer(rf'^{row}\s+\S+\s+([\d,]+)', text, re.M)]
    return totals[-1] if totals else None


def read_runs(directory):
    """{(benchmark, tool, wait): (frames, counts)}: the last run of each key (a reference that
    found its queue busy is started again)."""
    runs = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.args'):
            continue
        stem = os.path.join(directory, name[:-len('.args')])
        if not os.path.exists(stem + '.perf'):
            continue
        with open(stem + '.args') as f:
            args = f.read().split('\n')
        with open(stem + '.out', errors='replace') as f:
            text = f.read()
        key = run_key(args)
        reader = afxdp_frames if key[1] == 'afxdp' else xdpsock_frames
        frames = reader(text, key[0])
        if frames:
            runs[key] = (frames, read_perf(stem + '.perf'))
    return runs


def collect(out):
    """{(benchmark, wait, rate, tool): [sample, ...]}, a sample a dict per round."""
    cells = collections.defaultdict(list)
    for name in sorted(os.listdir(out)):
        directory = os.path.join(out, name)
        if not os.path.isdir(directory):
            continue
        runs = read_runs(directory)
        for cell in read_cells(os.path.join(directory, 'cells.jsonl')):
            wait = 'busy-poll' if cell['busy_poll'] else ('poll()' if cell['poll'] else 'spin')
            run = runs.get((cell['benchmark'], cell['tool'], wait))
            if not cell['measured'] or run is None:
                continue
            frames, counts = run
            rate = cell.get('gen_rate', 0) if cell['benchmark'] != 'txpush' else 0
            cells[(cell['benchmark'], wait, rate, cell['tool'])].append({
                'mpps': cell['mpps'], 'offered': cell['offered_mpps'], 'frames': frames,
                'all': counts.get('raw', 0) / frames,
                'data': sum(counts.get(c, 0) for c in DATA_PATH) / frames,
                'each': {c: counts.get(c, 0) / frames for c in DATA_PATH}})
    return cells


def per_frame(value):
    if value == 0:
        return '0'
    return f'{value:.4f}' if value >= 0.001 else f'{value:.2e}'


def median(samples, field):
    return statistics.median(s[field] for s in samples)


def describe(samples):
    """'0.0114 (ppoll 0.0114)': the median wait/kick syscalls per frame and its largest parts."""
    data = median(samples, 'data')
    parts = [(c, statistics.median(s['each'][c] for s in samples)) for c in DATA_PATH]
    parts = [f'{c} {per_frame(v)}' for c, v in sorted(parts, key=lambda p: -p[1]) if v > 0]
    return per_frame(data) + (f' ({", ".join(parts)})' if parts else '')


def offered(ours, theirs):
    """gen's rate into the veth in our cell, then in xdpsock's (paced, when gen kept up: the same)."""
    text = f'{median(ours, "offered"):.2f}'
    return text + (f' / {median(theirs, "offered"):.2f}' if theirs else '')


def ratio(ours, theirs):
    """Ours over xdpsock's wait/kick syscalls per frame; xdpsock's set-up alone (under 1e-4 a
    frame) counts as none."""
    if not theirs:
        return ''
    mine, its = median(ours, 'data'), median(theirs, 'data')
    if its < 1e-4:
        return 'both ~0' if mine < 1e-4 else '**above**'
    return f'{mine / its:.2f}'


def rows(cells):
    """One row per cell: the full set of columns (HEADER)."""
    keys = sorted({k[:3] for k in cells},
                  key=lambda k: (BENCHMARKS.index(k[0]), k[2], WAITS.index(k[1])))
    for benchmark, wait, rate in keys:
        ours = cells.get((benchmark, wait, rate, 'afxdp'))
        theirs = cells.get((benchmark, wait, rate, 'xdpsock'))
        if not ours:
            continue
        yield {'benchmark': benchmark, 'wait': wait,
               'gen rate': f'{rate / 1e6:g} Mpps' if rate else 'unpaced',
               'offered Mpps (afxdp / xdpsock)': offered(ours, theirs) if rate else '-',
               'Mpps (afxdp / xdpsock)': f'{median(ours, "mpps"):.2f}' +
               (f' / {median(theirs, "mpps"):.2f}' if theirs else ''),
               'afxdp wait/kick syscalls per frame': describe(ours),
               'afxdp all': per_frame(median(ours, 'all')),
               'xdpsock wait/kick syscalls per frame': describe(theirs) if theirs else '-',
               'xdpsock all': per_frame(median(theirs, 'all')) if theirs else '-',
               'afxdp / xdpsock': ratio(ours, theirs), 'rounds': str(len(ours))}


HEADER = ['benchmark', 'wait', 'gen rate', 'offered Mpps (afxdp / xdpsock)', 'Mpps (afxdp / xdpsock)',
          'afxdp wait/kick syscalls per frame', 'afxdp all', 'xdpsock wait/kick syscalls per frame',
          'xdpsock all', 'afxdp / xdpsock', 'rounds']


def calls(samples):
    """The syscalls that make up at least a tenth of the wait/kick count, largest first."""
    if not samples:
        return '-'
    parts = [(c, statistics.median(s['each'][c] for s in samples)) for c in DATA_PATH]
    total = sum(v for _, v in parts)
    named = [c for c, v in sorted(parts, key=lambda p: -p[1]) if total and v >= total / 10]
    return ', '.join(named) if total >= 1e-4 else 'none'


def markdown(cells):
    """docs/benchmarks.md's table: a row per benchmark and wait, a column per rate with ours /
    xdpsock's wait/kick syscalls per frame and the ratio; the calls that make them up."""
    rates = sorted({k[2] for k in cells}, key=lambda r: (r == 0, r))  # txpush's (no source) last
    heads = []
    for rate in rates:
        got = [median(v, 'offered') for k, v in cells.items() if k[2] == rate]
        heads.append(f'{rate / 1e6:g} Mpps paced (offered {min(got):.2f}-{max(got):.2f})'
                     if rate else 'txpush, unpaced')
    lines = ['| benchmark | wait | ' + ' | '.join(heads) + ' | afxdp\'s calls; xdpsock\'s |',
             '|---|---|' + '---|' * len(rates) + '---|']
    for benchmark in BENCHMARKS:
        for wait in WAITS:
            row = [benchmark, wait]
            for rate in rates:
                ours = cells.get((benchmark, wait, rate, 'afxdp'))
                theirs = cells.get((benchmark, wait, rate, 'xdpsock'))
                row.append('-' if not ours else per_frame(median(ours, 'data')) + (
                    f' / {per_frame(median(theirs, "data"))} ({ratio(ours, theirs)})' if theirs
                    else ''))
            if all(cell == '-' for cell in row[2:]):
                continue
            some = next(r for r in rates if (benchmark, wait, r, 'afxdp') in cells)
            row.append(calls(cells.get((benchmark, wait, some, 'afxdp'))) + '; ' +
                       calls(cells.get((benchmark, wait, some, 'xdpsock'))))
            lines.append('| ' + ' | '.join(row) + ' |')
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('out')
    parser.add_argument('--markdown', action='store_true')
    parser.add_argument('--command', default='scripts/syscalls')
    options = parser.parse_args()
    cells = collect(options.out)
    table = list(rows(cells))
    if not table:
        sys.exit('syscalls: no cell was measured')
    machine = read_machine(os.path.join(options.out, 'machine'))
    if options.markdown:
        print(f'Machine: `{machine["model"]}`, {machine["cpus"]} CPUs, kernel `{machine["kernel"]}`, '
              f'{machine["date"]}; load {machine["load_before"]} before, '
              f'{machine["load_after"]} after.\n')
        print(f'```sh\n{options.command}\n```\n')
        print('\n'.join(markdown(cells)))
        return
    print('\t'.join(HEADER))
    for row in table:
        print('\t'.join(row[h] for h in HEADER))


if __name__ == '__main__':
    main()
