"""Settings of the sandbox: limits, pool size and isolation switches (env prefix ``QUIZBOT_SANDBOX_``)."""

from __future__ import annotations

import os
from collections.abc import Callable

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "QUIZBOT_SANDBOX_"
MIB = 1024 * 1024
# Jobs that may wait, per worker: cheap jobs queue deep (a graded click is ~40 ms of a worker), slow
# ones are bounded by max_wait_s instead.
QUEUE_PER_WORKER = 8


def _cores() -> int:
    return os.cpu_count() or 1


class SandboxConfig(BaseSettings):
    """Limits, pool size and isolation switches of the sandbox.

    Every field can be set from the environment as ``QUIZBOT_SANDBOX_<FIELD>`` (upper case), e.g.
    ``QUIZBOT_SANDBOX_WALL_S=5``. Isolation switches default to "use when the host supports it";
    turning one off is for diagnosis, never for production.
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", frozen=True)

    # Limits per job.
    wall_s: float = Field(
        10.0, gt=0, le=600, allow_inf_nan=False, description="Wall-clock time limit of one job, in seconds."
    )
    cpu_s: float = Field(10.0, gt=0, le=600, allow_inf_nan=False, description="CPU time limit of one job, in seconds.")
    memory_mb: int = Field(
        768,
        ge=64,
        le=65536,
        description="Memory limit of one job in MB (RAM plus swap, files in tmpfs count).",
    )
    pids: int = Field(64, ge=8, le=4096, description="Most processes and threads one job may have at once.")
    output_bytes: int = Field(
        65536,
        ge=1024,
        le=16 * MIB,
        description="Most bytes of stdout and stderr together; more ends the job.",
    )
    file_bytes: int = Field(
        16 * MIB,
        ge=MIB,
        le=1024 * MIB,
        description="Size of the job's private tmpfs (work dir, /tmp, /dev/shm).",
    )
    code_bytes: int = Field(
        65536, ge=1024, le=MIB, description="Longest accepted submission, in UTF-8 bytes."
    )
    open_files: int = Field(256, ge=64, le=65536, description="Most open file descriptors per job process.")

    # Pool.
    workers: int = Field(
        default_factory=_cores, ge=1, le=256, description="Jobs that run at once (default: one per CPU core)."
    )
    queue: int | None = Field(
        None,
        ge=0,
        le=10000,
        description=(
            "Most jobs that may wait for a worker (default: 8 x workers); fewer when they would wait "
            "longer than max_wait_s. A job beyond is answered 'busy, try again in N s'."
        ),
    )
    max_wait_s: float = Field(
        10.0,
        gt=0,
        le=600,
        allow_inf_nan=False,
        description=(
            "A job is turned away when the jobs ahead of it would take longer than this to start, "
            "by the average time of recent jobs."
        ),
    )
    start_timeout_s: float = Field(
        120.0,
        gt=0,
        le=3600,
        allow_inf_nan=False,
        description="How long the warm template may take to start (it imports torch).",
    )

    # Isolation switches.
    allow_no_isolation: bool = Field(
        False,
        description=(
            "Run even when the host offers no usable isolation (no namespaces and no seccomp). "
            "Unsafe for untrusted code; logged loudly at every start."
        ),
    )
    namespaces: bool = Field(
        True, description="Use user/pid/mount/ipc/uts/net namespaces when the host allows."
    )
    user_namespace: bool = Field(True, description="Map the job's uid inside a user namespace of its own.")
    cgroups: bool = Field(True, description="Use a cgroup per worker slot for memory, processes and CPU.")
    cgroup_parent: str | None = Field(
        None,
        description=(
            "Cgroup (path below the hierarchy root, e.g. /quizbot) under which slot cgroups are made; "
            "default: a child of the bot's own cgroup."
        ),
    )
    seccomp: bool = Field(True, description="Install the seccomp filter when libseccomp is available.")
    landlock: bool = Field(
        True, description="Confine file access, TCP, abstract sockets and signals with Landlock."
    )
    uid_base: int = Field(
        300000,
        ge=1000,
        le=2**31 - 70000,
        description=(
            "Start of the host uids pools take ranges of 1024 from; each pool claims the first free "
            "range with a lock file in uid_lock_dir, so pools on one host never share a uid."
        ),
    )
    uid_lock_dir: str = Field(
        "/run/quizbot-sandbox", description="Folder of the lock files by which pools claim their uid ranges."
    )
    cpu_cores_per_job: float = Field(
        1.0, gt=0, le=256, allow_inf_nan=False, description="CPU bandwidth of one job, in cores (cgroup quota)."
    )
    nice: int = Field(
        0,
        ge=0,
        le=19,
        description=(
            "How far the sandbox's processes (template, supervisors, jobs) stand back for the bot when "
            "the CPU is short: added to their niceness, and the slot cgroups' CPU weight to match. "
            "0 (default): the bot's priority. 10 halved ack p50 on a busy host, but flat out, code "
            "answers were turned away as busy (docs/reference/measured.md)."
        ),
    )
    env_allowlist: tuple[str, ...] = Field(
        (), description="Names of bot environment variables copied into jobs (never tokens or settings)."
    )
    warm_optimizers: bool = Field(
        True,
        description=(
            "Build and step torch optimizers in the template, so jobs do not each pay their "
            "first-use set-up."
        ),
    )
    preload: tuple[str, ...] = Field(
        (
            "torch",
            "torch.nn",
            "torch.nn.functional",
            "torch.optim",
            "torch.utils.data",
            "numpy",
            "unittest",
            "math",
            "random",
            "fractions",
            "decimal",
            "statistics",
            "dataclasses",
            "collections",
            "itertools",
            "functools",
            "json",
            "re",
            "io",
            "importlib",
        ),
        description="Modules the warm template imports before forking jobs.",
    )

    @property
    def queue_length(self) -> int:
        """Return the bound of the waiting queue."""
        return self.queue if self.queue is not None else QUEUE_PER_WORKER * self.workers


def describe_invalid(
    exc: ValidationError, name: Callable[[str], str] | None = None, *, unknown: str = "not a sandbox setting"
) -> str:
    """One line for bad settings: ``QUIZBOT_SANDBOX_WALL_S: what is wrong; ...``, never the value.

    `name` turns a field into what the operator set (by default its ``QUIZBOT_SANDBOX_`` variable);
    only pydantic's message is shown, never the input: a value given for a token could be the token.
    The bot's settings are described by this too (``bot.settings``).
    """
    problems = []
    for error in exc.errors(include_url=False, include_input=False, include_context=False):
        key, *inner = error["loc"] or ("?",)
        item = f" (item {inner[0] + 1})" if inner and isinstance(inner[0], int) else ""
        message = unknown if error["type"] == "extra_forbidden" else error["msg"]
        shown = name(str(key)) if name is not None else f"{ENV_PREFIX}{str(key).upper()}"
        problems.append(f"{shown}{item}: {message}")
    return "; ".join(problems)
