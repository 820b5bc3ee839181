"""One schema: the run and study databases' tables are defined once, in
python/scalestudy/schema/*.sql, which the C++ build embeds (cmake/ScalestudySchema.cmake)
and the Python package reads. This test fails when the two sides disagree: the columns
the Python package writes (scalestudy.record) and reads (scalestudy.results) against the
files; the C++ side's embedded statements (the generated headers of the build under test)
and its column lists (harness/core/run_schema.hpp's kTables, which tests/core pins to the
statements) against the same files. And it shows that a column added on one side only is
caught."""

import os
import re
import sqlite3
import unittest

import support
from scalestudy import record, results, schema

BUILD_DIR = os.environ.get("SCALESTUDY_BUILD_DIR")


def cpp_column_lists():
    """{table: [columns]} of run_schema.hpp's kTables (kRun lists run's columns after
    run_id and rank, which it keys every copied row with)."""
    with open(os.path.join(support.SOURCE_DIR, "harness", "core", "run_schema.hpp")) as f:
        header = f.read()
    tables = {}
    for match in re.finditer(r'inline constexpr Table k\w+ = \{\s*"(\w+)",((?:\s*"[^"]*")+)\s*\}',
                             header):
        columns = "".join(re.findall(r'"([^"]*)"', match.group(2)))
        tables[match.group(1)] = [c.strip() for c in columns.split(",")]
    tables["run"] = ["run_id", "rank"] + tables["run"]
    return tables


def embedded_sections(header_path):
    """{constant: SQL} of a generated header, as the C++ compiler sees it."""
    with open(header_path) as f:
        header = f.read()
    return dict(re.findall(r'inline constexpr const char\* (\w+) = R"sql\(\n?(.*?)\)sql";',
                           header, re.S))


def normalised(sql):
    return re.sub(r"\s+", " ", re.sub(r"--[^\n]*", "", sql)).strip()


class SchemaAgreementTest(unittest.TestCase):
    def test_the_recording_module_writes_every_column_of_the_tables_it_writes(self):
        self.assertEqual(schema.disagreements(schema.RUN, record.WRITTEN_COLUMNS), [])

    def test_the_reader_reads_every_column_of_the_tables_it_reads(self):
        self.assertEqual(schema.disagreements(schema.RUN, results.READ_RUN_COLUMNS), [])
        self.assertEqual(
            schema.disagreements(schema.MEASUREMENTS, results.READ_MEASUREMENT_COLUMNS), [])

    def test_the_cpp_column_lists_are_the_schema_files(self):
        lists = cpp_column_lists()
        self.assertEqual(sorted(lists), sorted(schema.tables(schema.RUN)))
        self.assertEqual(schema.disagreements(schema.RUN, lists), [])
        # The measurement tables copy each run table with (run_id, rank) in front.
        measured = schema.tables(schema.MEASUREMENTS)
        for table, columns in lists.items():
            if table == "run":
                self.assertEqual(measured["m_run"], columns)
            elif table != "collectives" or "m_collectives" in measured:
                expected = ["run_id", "rank"] + columns
                self.assertEqual(measured["m_" + table], expected, table)

    @unittest.skipUnless(BUILD_DIR, "SCALESTUDY_BUILD_DIR unset: no C++ build to compare")
    def test_the_cpp_build_embeds_the_schema_files(self):
        generated = os.path.join(BUILD_DIR, "generated", "scalestudy_schema")
        for sql_file, header in ((schema.RUN, "run_sql.hpp"),
                                 (schema.MEASUREMENTS, "measurements_sql.hpp"),
                                 (schema.STUDY_STATE, "study_state_sql.hpp")):
            embedded = embedded_sections(os.path.join(generated, header))
            python = schema.sections(sql_file)
            self.assertEqual(sorted(embedded), sorted(python), header)
            for name in python:
                self.assertEqual(normalised(embedded[name]), normalised(python[name]), name)

    def test_the_recording_module_creates_its_tables_from_the_file(self):
        db = sqlite3.connect(":memory:")
        db.executescript(record.SCHEMA_SQL)
        created = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.assertEqual(created, set(schema.tables(schema.RUN)))
        self.assertEqual(record.SCHEMA_SQL, schema.text(schema.RUN))

    def test_a_column_added_to_the_schema_alone_is_caught(self):
        text = schema.text(schema.RUN).replace("  loss             REAL\n",
                                               "  loss             REAL,\n  grad_norm REAL\n")
        self.assertNotEqual(text, schema.text(schema.RUN))
        problems = schema.disagreements(schema.RUN, record.WRITTEN_COLUMNS, text)
        self.assertEqual(problems, ["run.sql: steps: columns grad_norm are in the schema but "
                                    "not used"])
        self.assertTrue(schema.disagreements(schema.RUN, cpp_column_lists(), text))
        with self.assertRaisesRegex(RuntimeError, "grad_norm"):
            schema.check(schema.RUN, results.READ_RUN_COLUMNS, text)

    def test_a_column_added_to_the_code_alone_is_caught(self):
        written = dict(record.WRITTEN_COLUMNS, epochs=record.EPOCH_COLUMNS + ("grad_norm",))
        self.assertEqual(schema.disagreements(schema.RUN, written),
                         ["run.sql: epochs: columns grad_norm are used but not in the schema"])
        lists = cpp_column_lists()
        lists["steps"] = lists["steps"] + ["grad_norm"]
        self.assertTrue(schema.disagreements(schema.RUN, lists))


if __name__ == "__main__":
    unittest.main()
