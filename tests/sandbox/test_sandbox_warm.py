"""What the warm template keeps: torch warmed, but neither the compiler nor the start-up pages."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.sandbox.sandbox_support import Pool

OPTIMIZER_JOB = """
import sys
import torch
torch.manual_seed(0)
layer = torch.nn.Linear(2, 1)
with torch.no_grad():
    layer.weight.fill_(1.0)
    layer.bias.fill_(0.0)
for opt in (torch.optim.SGD(layer.parameters(), lr=0.5), torch.optim.Adam(layer.parameters(), lr=0.1)):
    opt.zero_grad()
    layer(torch.ones(1, 2)).sum().backward()
    opt.step()
print([round(v, 4) for v in layer.weight.flatten().tolist()], "torch._dynamo.eval_frame" in sys.modules)
"""


def test_an_optimizer_job_runs_without_importing_the_compiler(clean_pool: Pool) -> None:
    result = clean_pool.run(OPTIMIZER_JOB)
    assert result.status == "passed", result.message
    # SGD: 1 - 0.5 * 1 = 0.5; Adam's first step moves each weight by its lr: 0.5 - 0.1 = 0.4
    assert result.stdout == "[0.4, 0.4] False\n"


def test_deterministic_algorithms_are_set_without_importing_the_compiler(clean_pool: Pool) -> None:
    # torch's own function imports the compiler (1.7 s in a job) only to copy the setting into it
    result = clean_pool.run(
        "import sys, torch\n"
        "torch.use_deterministic_algorithms(True)\n"
        "print(torch.are_deterministic_algorithms_enabled(), 'torch._dynamo.eval_frame' in sys.modules)\n"
    )
    assert (result.status, result.stdout) == ("passed", "True False\n")


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_spared_functions_switch_to_torchs_guard_once_the_compiler_is_loaded() -> None:
    out = _python(
        """
        import sys
        import torch
        from sandbox import _warm

        spared = _warm.spare_dynamo()
        layer = torch.nn.Linear(2, 1)
        torch.optim.SGD(layer.parameters(), lr=0.1).step()
        before = "torch._dynamo.eval_frame" in sys.modules
        guard = torch.optim.Optimizer.add_param_group.__wrapped__.__dynamo_disable
        built = [c.cell_contents for c in guard.__closure__ if isinstance(c.cell_contents, list)][0]
        torch.use_deterministic_algorithms(True)  # before the compiler is loaded: torch's flag only
        torch._dynamo.config  # anything but graph_break loads the real compiler
        torch.optim.Adam(layer.parameters()).step()
        import torch._inductor.config as inductor
        print(spared > 100, before, len(built), "/_dynamo/" in built[0].__code__.co_filename, "torch._dynamo.eval_frame" in sys.modules)
        print(torch.are_deterministic_algorithms_enabled(), inductor.deterministic)
        """
    )
    assert out == "True False 1 True True\nTrue True\n"


def test_file_pages_only_this_process_maps_are_given_back() -> None:
    # A file of its own (torch's libraries may be mapped by other processes here, whose pages stay)
    out = _python(
        """
        import mmap, os, tempfile
        from sandbox import _linux

        def rss_file_mb():
            for line in open("/proc/self/status"):
                if line.startswith("RssFile:"):
                    return int(line.split()[1]) // 1024

        with tempfile.NamedTemporaryFile() as fh:
            fh.write(os.urandom(32 << 20))
            fh.flush()
            os.fsync(fh.fileno())  # clean pages, as a library's are
            area = mmap.mmap(fh.fileno(), 32 << 20, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
            sum(area[i] for i in range(0, 32 << 20, mmap.PAGESIZE))
            before = rss_file_mb()
            advised = _linux.page_out_files()
            after = rss_file_mb()
            print(advised >= 32 << 20, before - after >= 24)
        """
    )
    assert out == "True True\n"
