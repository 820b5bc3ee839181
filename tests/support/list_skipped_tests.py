#!/usr/bin/env python3
"""Lists what a CTest run skipped, from its JUnit files (ctest --output-junit): every test
CTest counted as skipped, and every "skipped: <reason>" line a test printed (a doctest suite
that skipped some of its cases still passes; tests/support/skip.hpp). Prints nothing but a
count line when nothing skipped.

    list_skipped_tests.py JUNIT.xml [JUNIT.xml ...]
"""
import re
import sys
import xml.etree.ElementTree as ElementTree

SKIP_LINE = re.compile(r"skipped: (.*)")


def skips_of(junit_path):
    """(test name, counted as skipped, [reasons]) for each test that skipped anything."""
    found = []
    for case in ElementTree.parse(junit_path).getroot().iter("testcase"):
        output = case.findtext("system-out") or ""
        reasons = []
        for line in output.splitlines():
            match = SKIP_LINE.search(line)
            if match and match.group(1) not in reasons:
                reasons.append(match.group(1))
        counted = case.find("skipped") is not None
        if counted or reasons:
            found.append((case.get("name"), counted, reasons))
    return found


def main(paths):
    found = [skip for path in paths for skip in skips_of(path)]
    counted = sum(1 for _, was_counted, _ in found if was_counted)
    print(f"skips: {counted} test(s) counted as skipped by CTest, "
          f"{len(found) - counted} passed test(s) that skipped some cases")
    for name, was_counted, reasons in found:
        print(f"  {name}: {'skipped' if was_counted else 'passed, some cases skipped'}")
        for reason in reasons or ["(no reason printed)"]:
            print(f"      {reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
