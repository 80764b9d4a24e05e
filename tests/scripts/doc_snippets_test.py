#!/usr/bin/env python3
"""scripts/doc-snippets: what each ```cpp block becomes (program, test, unit, body, fragment),
a marker misplaced or unknown fails, the sources point at the Markdown, a block that goes takes
its source with it; and the blocks of README.md and docs/ are read without error.
usage: doc_snippets_test.py SOURCE_DIR"""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()).resolve()
TOOL = SOURCE / "scripts" / "doc-snippets"

DOC = """# A page

```cpp
int main() { return 0; }
```

```cpp
TEST(A, B) {}
```

  ```cpp
  int f();
  ```

<!-- snippet: body(int& n) -->
```cpp
++n;
```

<!-- snippet: fragment -->
```cpp
q.serve(...);
```

```sh
echo not c++
```
"""


def run(*args, cwd):
    return subprocess.run([sys.executable, str(TOOL), *args], cwd=cwd, capture_output=True,
                          text=True, check=False)


class Kinds(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)
        (self.root / "include" / "afxdp" / "detail").mkdir(parents=True)
        (self.root / "include" / "afxdp" / "port.hpp").write_text("")
        (self.root / "include" / "afxdp" / "detail" / "x.hpp").write_text("")
        (self.root / "page.md").write_text(DOC)

    def tearDown(self):
        self.dir.cleanup()

    def test_each_block_is_its_kind(self):
        r = run("--list", "--source-dir", str(self.root), "page.md", cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split("\n"), [
            "page.md:4 program", "page.md:8 test", "page.md:12 unit", "page.md:17 body",
            "page.md:22 fragment", ""])

    def test_sources_point_at_the_markdown_and_a_fragment_has_none(self):
        out = self.root / "out"
        r = run("--out", str(out), "--source-dir", str(self.root), "page.md", cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = sorted(p.name for p in out.glob("*.cpp"))
        self.assertEqual(names, ["doc_page_1.cpp", "doc_page_2.cpp", "doc_page_3.cpp",
                                 "doc_page_4.cpp"])
        body = (out / "doc_page_4.cpp").read_text()
        self.assertIn("#include <afxdp/port.hpp>\n", body)
        self.assertNotIn("detail/", body)
        self.assertIn('void doc_page_4(int& n) {\n#line 17 "page.md"\n++n;\n}\n', body)
        self.assertIn('#line 12 "page.md"\nint f();\n', (out / "doc_page_3.cpp").read_text())
        manifest = (out / "snippets.cmake").read_text()
        self.assertIn(f'"doc_page_2|test|{out.as_posix()}/doc_page_2.cpp"', manifest)
        self.assertNotIn("fragment", manifest)
        # The block gone, its source goes.
        (self.root / "page.md").write_text("```cpp\nint g();\n```\n")
        r = run("--out", str(out), "--source-dir", str(self.root), "page.md", cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(p.name for p in out.glob("*.cpp")), ["doc_page_1.cpp"])

    def test_a_marker_not_before_a_cpp_fence_fails(self):
        for text, why in [("<!-- snippet: fragment -->\n\n```cpp\nx\n```\n", "right before"),
                          ("<!-- snippet: fragment -->\n```sh\nx\n```\n", "right before"),
                          ("<!-- snippet: frag -->\n```cpp\nx\n```\n", "unknown snippet marker"),
                          ("```cpp\nx\n", "never closes")]:
            (self.root / "page.md").write_text(text)
            r = run("--list", "--source-dir", str(self.root), "page.md", cwd=self.root)
            self.assertNotEqual(r.returncode, 0, text)
            self.assertIn("page.md:", r.stderr)
            self.assertIn(why, r.stderr)


class TheDocs(unittest.TestCase):
    def test_every_block_is_classified(self):
        docs = ["README.md"] + sorted(str(p.relative_to(SOURCE)) for p in
                                      (SOURCE / "docs").glob("*.md"))
        r = run("--list", "--source-dir", str(SOURCE), *docs, cwd=SOURCE)
        self.assertEqual(r.returncode, 0, r.stderr)
        kinds = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines())
        # The README's one-liner (a braced PortConfig, once a -Wmaybe-uninitialized at -O3).
        self.assertIn("unit", [k for at, k in kinds.items() if at.startswith("README.md:")])
        self.assertIn("test", kinds.values())
        self.assertIn("program", kinds.values())


if __name__ == "__main__":
    unittest.main()
