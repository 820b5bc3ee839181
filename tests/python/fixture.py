"""CTest's fixture python_fixture_results: the tiny study's two campaigns, run afresh."""
import os
import sys
import time

import support

if __name__ == "__main__":
    path = sys.argv[1]
    started = time.monotonic()
    support.make_results(path)
    print("fixture: %s made in %.1f s" % (path, time.monotonic() - started))
    sys.exit(0 if os.path.exists(os.path.join(path, ".ready")) else 1)
