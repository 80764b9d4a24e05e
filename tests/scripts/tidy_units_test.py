#!/usr/bin/env python3
"""scripts/tidy-units: the units scripts/lint's clang-tidy reads, in a throw-away git tree."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.abspath(sys.argv[1]), "scripts", "tidy-units")
UNITS = ["src/a.cpp", "src/b.cpp", "tests/c.cpp"]


def run(*args, cwd, env=None):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=True)


class TidyUnits(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        for path in UNITS + ["include/afxdp/x.hpp", "src/local.hpp", "README.md"]:
            self.write(path, "// " + path + "\n")
        # b.cpp includes src/local.hpp, as its depfile says (paths relative to the target folder).
        self.write("build/dev/src/CMakeFiles/t.dir/b.cpp.o.d",
                   "src/CMakeFiles/t.dir/b.cpp.o: ../../../src/b.cpp \\\n ../../../src/local.hpp\n")
        self.write("build/dev/src/CMakeFiles/t.dir/a.cpp.o.d",
                   "src/CMakeFiles/t.dir/a.cpp.o: ../../../src/a.cpp \\\n"
                   " ../../../include/afxdp/x.hpp\n")
        self.write(".gitignore", "build/\n")
        self.git("init", "-q", "-b", "main")
        self.commit("first")
        self.write("README.md", "changed\n")
        self.commit("second: no unit")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, text):
        full = os.path.join(self.top, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def git(self, *args):
        run("git", "-c", "user.name=t", "-c", "user.email=t@t", *args, cwd=self.top)

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def units(self, **env):
        # The caller's own AFXDP_TIDY_* (a whole-tree CI run exports AFXDP_TIDY_ALL) are not the case's.
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("AFXDP_TIDY_")}
        done = run(SCRIPT, "build/dev", *UNITS, cwd=self.top, env={**inherited, **env})
        return done.stdout.split()

    def test_on_the_default_branch_the_last_commit_counts(self):
        self.assertEqual(self.units(), [])
        self.write("src/a.cpp", "// changed\n")
        self.commit("third: a.cpp")
        self.assertEqual(self.units(), ["src/a.cpp"])

    def test_a_branch_counts_every_commit_since_the_merge_base(self):
        self.git("checkout", "-q", "-b", "topic")
        self.write("tests/c.cpp", "// changed\n")
        self.commit("c.cpp")
        self.write("README.md", "again\n")
        self.commit("no unit")
        self.assertEqual(self.units(), ["tests/c.cpp"])

    def test_uncommitted_changes_count(self):
        self.write("src/a.cpp", "// not committed\n")
        self.assertEqual(self.units(), ["src/a.cpp"])

    def test_a_header_outside_include_brings_its_includers(self):
        self.git("checkout", "-q", "-b", "topic")
        self.write("src/local.hpp", "// changed\n")
        self.commit("local.hpp")
        self.assertEqual(self.units(), ["src/b.cpp"])

    def test_a_folders_cmake_brings_the_units_under_it(self):
        self.git("checkout", "-q", "-b", "topic")
        self.write("src/CMakeLists.txt", "# changed\n")
        self.commit("src/CMakeLists.txt")
        self.assertEqual(self.units(), ["src/a.cpp", "src/b.cpp"])

    def test_a_public_header_brings_its_includers_only(self):
        self.git("checkout", "-q", "-b", "topic")
        self.write("include/afxdp/x.hpp", "// changed\n")
        self.commit("x.hpp")
        self.assertEqual(self.units(), ["src/a.cpp"])

    def test_a_header_template_and_clang_tidy_and_cmake_reach_every_unit(self):
        for path in ("include/afxdp/v.hpp.in", "tests/.clang-tidy", "CMakeLists.txt",
                     "cmake/x.cmake"):
            self.git("checkout", "-q", "-B", "topic", "main")
            self.write(path, "# changed\n")
            self.commit(path)
            self.assertEqual(self.units(), UNITS, path)

    def test_no_base_means_every_unit(self):
        self.assertEqual(self.units(AFXDP_TIDY_ALL="1"), UNITS)
        self.git("checkout", "-q", "--orphan", "alone")
        self.commit("no parent")
        self.git("branch", "-q", "-D", "main")
        self.assertEqual(self.units(), UNITS)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
