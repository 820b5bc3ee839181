"""The recording module's old name: scalestudy_record is scalestudy.record.

Scripts written for `import scalestudy_record as record` (with python/ on sys.path) keep
working; the code and the schema live in python/scalestudy/ (record.py, schema/run.sql).
This file is no copy: importing it imports scalestudy.record, standard library only.
"""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)

from scalestudy import record as _record  # noqa: E402

sys.modules[__name__] = _record
