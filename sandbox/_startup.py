"""Starting a pool's template, on the bot's side: the isolation a start needs and finds.

Before a start, whether the host can isolate jobs at all (:func:`refuse_without_isolation`); the
configuration a new template is sent (:func:`template_config`); and what its ready message says
about the pool's isolation, logged on every start (:func:`judge_ready`).
:class:`sandbox.runner.Sandbox` calls these when it starts or restarts its template.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from ._cgroup import CgroupSet
from ._messages import JobLimits
from ._seccomp import libseccomp_path
from .config import MIB, SandboxConfig
from .errors import IsolationUnavailable

log = logging.getLogger("sandbox")


def refuse_without_isolation(cfg: SandboxConfig) -> None:
    """Raise IsolationUnavailable when neither namespaces nor seccomp is possible and ``cfg`` needs one."""
    namespaces_possible = cfg.namespaces and os.geteuid() == 0
    if not namespaces_possible and not (cfg.seccomp and libseccomp_path()) and not cfg.allow_no_isolation:
        raise IsolationUnavailable(
            "no namespaces (they need root) and no seccomp (off, or libseccomp missing); set "
            "QUIZBOT_SANDBOX_ALLOW_NO_ISOLATION=true only if every submitter is trusted"
        )


def template_config(cfg: SandboxConfig, uid_base: int, cgroups: CgroupSet | None) -> dict[str, Any]:
    """Return what a new template is sent: job limits, the layers to use, what to hide, the slot cgroups."""
    cwd = os.getcwd()
    project = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hidden = [
        os.path.join(cwd, "quizbot.toml"),
        os.path.join(cwd, "data"),
        os.path.join(project, "bot"),
        os.path.join(project, "sandbox"),
        os.path.join(project, "pyproject.toml"),
    ]
    limits = JobLimits(
        wall_s=cfg.wall_s,
        cpu_s=cfg.cpu_s,
        memory_mb=cfg.memory_mb,
        output_bytes=cfg.output_bytes,
        file_bytes=cfg.file_bytes,
        open_files=cfg.open_files,
        pids=cfg.pids,
        data_bytes=None if cgroups is not None else cfg.memory_mb * MIB,
    )
    return {
        "limits": limits.to_wire(),
        "workers": cfg.workers,
        "nice": cfg.nice,
        "uid_base": uid_base,
        "namespaces": cfg.namespaces,
        "user_namespace": cfg.user_namespace,
        "seccomp": cfg.seccomp,
        "landlock": cfg.landlock,
        "preload": list(cfg.preload),
        "warm_optimizers": cfg.warm_optimizers,
        "hidden": hidden,
        "exclude_paths": [project],
        "cgroups": [s.to_wire() for s in cgroups.slots] if cgroups else None,
        "cgroup_layers": list(cgroups.layers) if cgroups else [],
    }


def judge_ready(
    ready: dict[str, Any],
    cfg: SandboxConfig,
    *,
    workers: int,
    layers: tuple[str, ...],
    cgroups: bool,
    start_seconds: float,
) -> bool:
    """Log the isolation a started template reports; return whether the pool runs degraded.

    Raise IsolationUnavailable when it has neither namespaces nor seccomp and ``cfg`` does not allow
    that (the caller then stops the template).
    """
    namespaces = bool(ready.get("namespaces"))
    seccomp = bool(ready.get("seccomp"))
    if ready.get("threads", 1) != 1:
        log.warning("sandbox template runs %s threads; forked jobs may hang", ready.get("threads"))
    if not namespaces and not seccomp:
        if not cfg.allow_no_isolation:
            raise IsolationUnavailable(
                "this host offers neither namespaces nor seccomp; set QUIZBOT_SANDBOX_ALLOW_NO_ISOLATION=true "
                "only if every submitter is trusted"
            )
        log.critical(
            "SANDBOX RUNS WITHOUT ISOLATION (QUIZBOT_SANDBOX_ALLOW_NO_ISOLATION is on): submitted code may read "
            "the bot's files and use the network. Never expose this bot to untrusted users."
        )
        return True
    if not namespaces or not cgroups:
        log.warning(
            "sandbox isolation is DEGRADED (%s): %d job(s) at a time; pool layers: %s",
            "no namespaces" if not namespaces else "no cgroups",
            workers,
            ", ".join(layers),
        )
        return True
    log.info("sandbox ready in %.1f s; isolation: %s", start_seconds, ", ".join(layers))
    return False
