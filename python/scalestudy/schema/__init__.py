"""The databases' schema, defined once: the .sql files beside this module.

run.sql (each rank's run database), study_state.sql and measurements.sql (the study
database's state and measurement tables) are the one definition of every table: the C++
build embeds them (cmake/ScalestudySchema.cmake) and this package reads them. A line
`-- @constant NAME` starts a section (the C++ side's string constant NAME).

Standard library only, so that scalestudy.record can use it on a node without pandas.
"""

import os
import re
import sqlite3

RUN = "run.sql"
STUDY_STATE = "study_state.sql"
MEASUREMENTS = "measurements.sql"

_DIR = os.path.dirname(os.path.abspath(__file__))
_MARKER = re.compile(r"^-- @constant (\w+)[ \t]*$", re.M)


def path(name):
    """The schema file `name` (RUN, STUDY_STATE or MEASUREMENTS)."""
    return os.path.join(_DIR, name)


def text(name):
    """The file's text, every section (what creates all its tables in a new database)."""
    with open(path(name), encoding="utf-8") as f:
        return f.read()


def sections(name, schema_text=None):
    """{constant name: its SQL}, in file order."""
    source = text(name) if schema_text is None else schema_text
    marks = list(_MARKER.finditer(source))
    if not marks:
        raise ValueError("%s: no '-- @constant NAME' line" % name)
    return {mark.group(1): source[mark.end():marks[i + 1].start() if i + 1 < len(marks) else None]
            for i, mark in enumerate(marks)}


def column_types(name):
    """{table: {column: declared type ("TEXT", "INTEGER", "REAL")}} of the file's tables."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(text(name))
        names = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
        return {table: {row[1]: row[2].upper() for row in db.execute(
            "SELECT * FROM pragma_table_info(?)", (table,))} for table in names}
    finally:
        db.close()


def tables(name, schema_text=None):
    """{table: [columns in CREATE order]} of the tables the file (or `schema_text`) makes,
    as SQLite itself reads the statements."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(text(name) if schema_text is None else schema_text)
        names = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
        return {table: [row[1] for row in db.execute("SELECT * FROM pragma_table_info(?)",
                                                     (table,))]
                for table in names}
    finally:
        db.close()


def disagreements(name, used, schema_text=None):
    """What `used` ({table: columns some code writes or reads}) says that the schema does
    not: each a line naming the table and the columns one side has and the other lacks.
    `used` must name every column of a table it writes whole (`exact` tables) -- see
    check(); here a table's columns must equal the schema's."""
    schema = tables(name, schema_text)
    problems = []
    for table, columns in used.items():
        if table not in schema:
            problems.append("%s: table %s is not in the schema" % (name, table))
            continue
        only_code = [c for c in columns if c not in schema[table]]
        only_schema = [c for c in schema[table] if c not in columns]
        if only_code:
            problems.append("%s: %s: columns %s are used but not in the schema"
                            % (name, table, ", ".join(only_code)))
        if only_schema:
            problems.append("%s: %s: columns %s are in the schema but not used"
                            % (name, table, ", ".join(only_schema)))
    return problems


def check(name, used, schema_text=None):
    """Raises RuntimeError naming every disagreement between `used` and the schema."""
    problems = disagreements(name, used, schema_text)
    if problems:
        raise RuntimeError("the Python package disagrees with the database schema:\n  "
                           + "\n  ".join(problems))
