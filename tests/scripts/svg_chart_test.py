#!/usr/bin/env python3
"""bench/svg_chart.py: the charts parse as SVG, name every cell (every latency row) of the tables
they are drawn from, carry the legend, the axis labels, the machine and the date, and the ones in
docs/ are what the tables in docs/benchmarks.md draw now.  usage: svg_chart_test.py SOURCE_DIR"""
import os
import sys
import unittest
import xml.etree.ElementTree as ET

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
sys.path.insert(0, os.path.join(SOURCE, 'bench'))
import svg_chart  # noqa: E402

NS = '{http://www.w3.org/2000/svg}'


def texts(svg):
    root = ET.fromstring(svg)
    return [''.join(e.itertext()) for e in root.iter() if e.tag in (NS + 'text', NS + 'title')]


def doc():
    with open(os.path.join(SOURCE, 'docs', 'benchmarks.md'), encoding='utf-8') as f:
        return f.read()


class MatrixChart(unittest.TestCase):
    def test_names_every_cell_of_the_doc(self):
        cells, machine, command = svg_chart.matrix_from_doc(doc())
        self.assertGreater(len(cells), 20)
        shown = texts(svg_chart.matrix_chart(cells, machine, command))
        for cell in cells:
            self.assertIn(svg_chart.cell_name(cell), shown)
        for label in ('afxdp', 'xdpsock', 'DPDK testpmd', 'Mpps'):
            self.assertIn(label, shown)
        self.assertTrue(any('2026-12-02' in t and 'AMD EPYC' in t for t in shown))
        self.assertTrue(any('scripts/benchmark' in t for t in shown))

    def test_a_cell_without_references(self):
        cells = [{'benchmark': 'rxdrop', 'wait': 'spin', 'mode': 'skb', 'cores': 2, 'queues': 1,
                  'source': 'full', 'tool': 'afxdp', 'mpps': 1.5}]
        shown = texts(svg_chart.matrix_chart(cells, 'm, 2000-01-01', 'cmd'))
        self.assertIn('rxdrop spin skb 2c 1q', shown)
        self.assertNotIn('xdpsock', shown)

    def test_docs_chart_is_current(self):
        with open(os.path.join(SOURCE, 'docs', 'benchmarks.svg'), encoding='utf-8') as f:
            self.assertEqual(f.read(), svg_chart.matrix_chart(*svg_chart.matrix_from_doc(doc())),
                             'docs/benchmarks.svg: bench/svg_chart.py matrix docs/benchmarks.md '
                             'docs/benchmarks.svg')


class LatencyChart(unittest.TestCase):
    def test_names_every_row_of_the_doc(self):
        rows, machine, command = svg_chart.latency_from_doc(doc())
        self.assertGreater(len(rows), 5)
        shown = texts(svg_chart.latency_chart(rows, machine, command))
        for row in rows:
            self.assertIn(row['row'], shown)
        for label in ('p50', 'p99', 'p99.9', 'max', 'percentile', 'round trip, µs'):
            self.assertIn(label, shown)
        self.assertTrue(any('2026-12-02 13:27' in t for t in shown))

    def test_docs_chart_is_current(self):
        with open(os.path.join(SOURCE, 'docs', 'latency.svg'), encoding='utf-8') as f:
            self.assertEqual(f.read(), svg_chart.latency_chart(*svg_chart.latency_from_doc(doc())),
                             'docs/latency.svg: bench/svg_chart.py latency docs/benchmarks.md '
                             'docs/latency.svg')


if __name__ == '__main__':
    unittest.main()
