"""Children die with the process that started them, even when it is SIGKILLed (Linux: PR_SET_PDEATHSIG)."""

import json
import signal
import subprocess
import sys

import pytest

from tests.killed_runs import run_killed, still_alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")

# the child starts a long `sleep` the way the crawl starts pip and npm, records it, and is killed
_STARTS_A_COMMAND = """
import subprocess
from ecoagent.runtime.processes import tied_command

subprocess.Popen(tied_command(["sleep", "120"]))
import time; time.sleep(0.5)  # the launcher has exec'd into sleep
die(sys.argv[1])
"""


def test_a_command_started_through_tied_command_dies_with_its_parent(tmp_path):
    run_killed(_STARTS_A_COMMAND, tmp_path / "pids.json")
    assert len(json.loads((tmp_path / "pids.json").read_text())) == 1
    assert still_alive(tmp_path / "pids.json", within_s=5) == []


def test_a_child_whose_parent_is_already_gone_exits_at_once():
    # the parent id passed down is not the actual parent: the parent died before the child could ask
    code = "import os; from ecoagent.runtime.processes import exit_with_parent; exit_with_parent(os.getppid() + 10**6)"
    proc = subprocess.run([sys.executable, "-c", code + "; import time; time.sleep(30)"], timeout=20)
    assert proc.returncode == -signal.SIGTERM
