#!/usr/bin/env python3
"""What scripts/benchmark and scripts/ab share: the cells of `afxdp demo --json` and the machine note.

As a module: read_cells(), cell_key(), sort_key(), read_machine().
As a program: `bench/demo_cells.py machine` prints the note (model, cpus, kernel, date, load_before)
as key=value lines for read_machine(); the caller appends load_after= when it is done.
"""
import datetime
import json
import os
import subprocess
import sys

BENCHMARKS = ['xdp-drop', 'rxdrop', 'txpush', 'l2fwd']
WAITS = ['spin', 'poll()', 'busy-poll']
TOOLS = ['afxdp', 'xdpsock', 'dpdk']  # ours, then the references in the order the demo runs them


def wait_name(cell):
    return 'busy-poll' if cell['busy_poll'] else ('poll()' if cell['poll'] else 'spin')


def cell_key(cell):
    """(benchmark, wait, mode, cores, queues, gen_rate, tool): one cell of the matrix."""
    return (cell['benchmark'], wait_name(cell), cell['mode'], cell['cores'], cell['queues'],
            cell.get('gen_rate', 0), cell.get('tool', 'afxdp'))


def read_cells(path):
    """The JSON objects of one demo run's output, one a line (a missing file: none)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def sort_key(key):
    """The order of the tables: benchmark, source, wait, mode, queues, cores, tool."""
    return (BENCHMARKS.index(key[0]), key[5], WAITS.index(key[1]), key[2], key[4], key[3],
            TOOLS.index(key[6]) if key[6] in TOOLS else len(TOOLS))


def read_machine(path):
    with open(path) as f:
        return dict(line.strip().split('=', 1) for line in f if '=' in line)


def load_average():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def machine_note():
    model = ''
    for line in subprocess.run(['lscpu'], capture_output=True, text=True).stdout.splitlines():
        if line.startswith('Model name:'):
            model = line.split(':', 1)[1].strip()
            break
    return {'model': model, 'cpus': str(len(os.sched_getaffinity(0))), 'kernel': os.uname().release,
            'date': datetime.date.today().isoformat(), 'load_before': load_average()}


if __name__ == '__main__':
    if sys.argv[1:] != ['machine']:
        sys.exit('usage: bench/demo_cells.py machine')
    for name, value in machine_note().items():
        print(f'{name}={value}')
