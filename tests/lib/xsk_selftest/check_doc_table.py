#!/usr/bin/env python3
"""docs/conformance.md's case table against the conformance tests, so neither drifts.

Fails (exit 1, one line per fault) when the table's rows are not the kernel's 36 cases in the
kernel's order, when a kernel case's row does not name its test `Conformance.<CASE>`, when the
doc names a test that the sources do not define, when a test the sources define is named in no
table of the doc, when the doc's count of ctest entries is wrong, or when a row's Loopback cell
does not match the sources: "pass..." exactly for the cases conformance_loopback_test compiles
(CMakeLists.txt's AFXDP_CONFORMANCE_SHARED), "not run..." for the others, and the doc's count of
cases on the Loopback right; and when a row's verdict (the first word of its "strict, or why
not" cell: strict, variant, partial or n.a.) is not the one case_table.cpp's case_verdicts()
declares for it, or the doc's sum of verdicts is wrong.

Usage: check_doc_table.py DOC SOURCE_DIR
"""
import pathlib
import re
import sys

# tests[] then ci_skip_tests[] of tools/testing/selftests/bpf/prog_tests/test_xsk.h (torvalds/linux
# a55f7f5f), the list the doc says it follows.
KERNEL_CASES = """
SEND_RECEIVE SEND_RECEIVE_2K_FRAME SEND_RECEIVE_SINGLE_PKT POLL_RX POLL_TX POLL_RXQ_FULL
POLL_TXQ_FULL ALIGNED_INV_DESC ALIGNED_INV_DESC_2K_FRAME_SIZE UMEM_HEADROOM BIDIRECTIONAL
STAT_RX_DROPPED STAT_TX_INVALID STAT_RX_FULL STAT_FILL_EMPTY XDP_PROG_CLEANUP XDP_DROP_HALF
XDP_SHARED_UMEM XDP_METADATA_COPY XDP_METADATA_COPY_MULTI_BUFF ALIGNED_INV_DESC_MULTI_BUFF
TOO_MANY_FRAGS XDP_ADJUST_TAIL_SHRINK TX_QUEUE_CONSUMER
XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF XDP_ADJUST_TAIL_GROW XDP_ADJUST_TAIL_GROW_MULTI_BUFF
SEND_RECEIVE_9K_PACKETS SEND_RECEIVE_UNALIGNED UNALIGNED_INV_DESC
UNALIGNED_INV_DESC_4001_FRAME_SIZE SEND_RECEIVE_UNALIGNED_9K_PACKETS UNALIGNED_INV_DESC_MULTI_BUFF
HW_SW_MIN_RING_SIZE HW_SW_MAX_RING_SIZE TEARDOWN
""".split()

TEST_NAME = re.compile(r"`([A-Z]\w*\.\w+)`")  # Suite.Name, as GoogleTest lists them


def source_tests(source_dir):
    """(parameterised, plain, modes): the GoogleTest names the sources define."""
    parameterised, plain = set(), set()
    for path in sorted(source_dir.glob("*.cpp")):
        text = path.read_text()
        parameterised |= {f"Conformance.{n}" for n in
                          re.findall(r"TEST_P\(\s*Conformance\s*,\s*(\w+)\s*\)", text)}
        plain |= {f"{s}.{n}" for s, n in re.findall(r"\bTEST\(\s*(\w+)\s*,\s*(\w+)\s*\)", text)}
    harness = (source_dir / "harness.cpp").read_text()
    body = re.search(r"std::vector<Mode> all_modes\(\) \{(.*?)\n\}", harness, re.S)
    modes = len(re.findall(r'\{"\w+"', body.group(1))) if body else 0
    return parameterised, plain, modes


def loopback_tests(source_dir):
    """The Conformance cases in the sources conformance_loopback_test compiles."""
    cmake = (source_dir / "CMakeLists.txt").read_text()
    shared = re.search(r"set\(AFXDP_CONFORMANCE_SHARED\s+(.*?)\)", cmake, re.S)
    names = set()
    for source in (shared.group(1).split() if shared else []):
        names |= set(re.findall(r"TEST_P\(\s*Conformance\s*,\s*(\w+)\s*\)",
                                (source_dir / source).read_text()))
    return names


VERDICT_WORDS = {"strict": "strict", "variant": "variant", "partial": "partial",
                 "not_applicable": "n.a."}
CELL_VERDICT = re.compile(r"^(strict|variant|partial|n\.a\.)(?=$|[\s:;,(])")


def declared_verdicts(source_dir):
    """[(case, verdict word)] from case_table.cpp's case_verdicts(), in its order."""
    text = (source_dir / "case_table.cpp").read_text()
    return [(name, VERDICT_WORDS.get(v, v))
            for name, v in re.findall(r'\{"(\w+)",\s*Verdict::(\w+)', text)]


def check_verdicts(doc, case_rows, source_dir):
    faults = []
    declared = declared_verdicts(source_dir)
    if [name for name, _ in declared] != KERNEL_CASES:
        faults.append("case_table.cpp's case_verdicts() is not the kernel's 36 cases in order")
    by_name = dict(declared)
    for row in case_rows:
        cell = row[3] if len(row) > 3 else ""
        m = CELL_VERDICT.match(cell)
        if not m:
            faults.append(f"row {row[0]}: its verdict cell does not start with strict, variant, "
                          f"partial or n.a.: '{cell[:40]}'")
            continue
        want = by_name.get(row[0])
        if want is not None and m.group(1) != want:
            faults.append(f"row {row[0]}: the doc says '{m.group(1)}', the test code "
                          f"(case_table.cpp) declares '{want}'")
    counts = {w: sum(1 for _, v in declared if v == w) for w in VERDICT_WORDS.values()}
    summary = re.search(r"In sum, of the 36: (\d+) strict, (\d+) variant, (\d+) partial, "
                        r"(\d+) n\.a\.", doc)
    if not summary:
        faults.append("the doc does not sum the verdicts ('In sum, of the 36: N strict, N variant, "
                      "N partial, N n.a.')")
    else:
        for word, n in zip(("strict", "variant", "partial", "n.a."), summary.groups()):
            if int(n) != counts[word]:
                faults.append(f"the doc sums {n} {word}; case_table.cpp declares {counts[word]}")
    return faults


def table_rows(doc):
    """Rows of the first table under '## The cases', and of every other table: lists of cells."""
    cases, others, section = [], [], None
    in_table = False
    for line in doc.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        if not line.startswith("|"):
            in_table = False
            continue
        if not in_table:
            in_table = True
            first_of_section = section == "The cases" and not cases
            current = cases if first_of_section else others
        if re.match(r"^\|[-| ]+\|$", line):
            continue
        current.append([c.strip() for c in line.strip().strip("|").split("|")])
    return cases, others


def check(doc_path, source_dir):
    doc = doc_path.read_text()
    parameterised, plain, modes = source_tests(source_dir)
    defined = parameterised | plain
    cases, others = table_rows(doc)
    faults = []
    header, case_rows = cases[0] if cases else [], cases[1:]
    if not header or header[0] != "kernel case":
        faults.append("no case table (first column 'kernel case') under '## The cases'")
    names = [row[0] for row in case_rows]
    if names != KERNEL_CASES:
        missing = [n for n in KERNEL_CASES if n not in names]
        extra = [n for n in names if n not in KERNEL_CASES]
        faults.append(f"case rows are not the kernel's 36 cases in order: missing {missing}, "
                      f"not kernel cases {extra}, rows {len(names)}")
    faults += check_verdicts(doc, case_rows, source_dir)
    on_loopback = loopback_tests(source_dir)
    if len(header) < 6 or header[5] != "Loopback":
        faults.append("the case table has no sixth column 'Loopback'")
    for name in sorted(on_loopback - set(KERNEL_CASES)):
        faults.append(f"{name} runs on the Loopback but is not a kernel case with a Loopback cell")
    for row in case_rows:
        cell = row[5] if len(row) > 5 else ""
        if row[0] in on_loopback and not cell.startswith("pass"):
            faults.append(f"row {row[0]}: runs on the Loopback, but its cell says '{cell[:40]}'")
        if row[0] not in on_loopback and not cell.startswith("not run"):
            faults.append(f"row {row[0]}: not run on the Loopback, but its cell says '{cell[:40]}'")
    claimed_loopback = re.findall(r"(\d+) cases run on the Loopback", doc)
    if not claimed_loopback:
        faults.append("the doc does not say how many cases run on the Loopback")
    for n in claimed_loopback:
        if int(n) != len(on_loopback):
            faults.append(f"the doc says {n} cases run on the Loopback; the sources make "
                          f"{len(on_loopback)}")
    named = set()
    for row in case_rows:
        tests = set(TEST_NAME.findall(row[2])) if len(row) > 2 else set()
        if f"Conformance.{row[0]}" not in tests:
            faults.append(f"row {row[0]}: its test is not named Conformance.{row[0]}")
        named |= tests
    # Elsewhere in the doc only names of the suites the sources define are test names.
    suites = {t.split(".")[0] for t in defined}
    for row in others:
        named |= {n for n in TEST_NAME.findall(" ".join(row)) if n.split(".")[0] in suites}
    for name in sorted(named - defined):
        faults.append(f"the doc names {name}, which no test source defines")
    for name in sorted(defined - named):
        faults.append(f"{name} is defined but named in no table of the doc")
    entries = len(parameterised) * modes + len(plain)
    claimed = re.findall(r"(\d+) ctest entries", doc)
    if not claimed:
        faults.append("the doc does not say how many ctest entries there are")
    for n in claimed:
        if int(n) != entries:
            faults.append(f"the doc says {n} ctest entries; the sources make {entries} "
                          f"({len(parameterised)} cases x {modes} modes + {len(plain)})")
    return faults


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    faults = check(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))
    for fault in faults:
        print(f"{sys.argv[1]}: {fault}", file=sys.stderr)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
