"""examples/notebooks/scaling.ipynb executed by nbclient on a real Jupyter kernel (the
venv's ipykernel), on the tests' study and its two campaigns: every cell must run (a
failing cell fails the test), and it writes its efficiency plot."""

import os
import shutil
import tempfile
import time
import unittest

import nbformat
from nbclient import NotebookClient

import support

NOTEBOOK = os.path.join(support.SOURCE_DIR, "examples", "notebooks", "scaling.ipynb")


class NotebookTest(unittest.TestCase):
    def test_the_notebook_runs_and_writes_its_efficiency_plot(self):
        out_dir = tempfile.mkdtemp(prefix="scalestudy-notebook-")
        self.addCleanup(shutil.rmtree, out_dir, True)
        os.environ.update(SCALESTUDY_RESULTS=support.results_dir(),
                          SCALESTUDY_NOTEBOOK_STUDY=support.STUDY,
                          SCALESTUDY_NOTEBOOK_OUT=out_dir, SCALESTUDY_CLI=support.cli())
        os.environ.pop("MPLBACKEND", None)  # the kernel's own inline backend
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        started = time.monotonic()
        NotebookClient(notebook, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}}).execute()
        print("notebook ran in %.1f s" % (time.monotonic() - started))
        outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
        self.assertFalse([o for o in outputs if o.output_type == "error"])
        with open(os.path.join(out_dir, "efficiency.png"), "rb") as png:
            self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "campaigns.png")))
        text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                       for o in outputs)
        self.assertIn("change_pct", text)  # the two campaigns side by side
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        self.assertEqual(len(images), 2)


if __name__ == "__main__":
    unittest.main()
