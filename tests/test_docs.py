"""The documentation site builds with `mkdocs build --strict`, and the README's links lead somewhere.

Strict mode (with the `validation` settings in mkdocs.yml) turns every warning into a failure: a
link to a page or an anchor that does not exist, a picture that is missing, a page left out of the
navigation.
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\((?!https?://|#)(?P<target>[^)#\s]+)(?:#[^)\s]*)?\)")


def test_the_site_builds_strictly_with_every_page_in_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (site / "index.html").is_file()
    for page in ("learners/daily", "admins/daily-question", "operators/monitoring", "reference/commands"):
        assert (site / page / "index.html").is_file(), page
    for picture in ("discord-quiz.png", "slack-quiz.png"):
        assert (site / "images" / picture).is_file(), picture


def test_every_relative_link_in_the_readme_names_a_file_that_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [m["target"] for m in LINK.finditer(readme)]
    assert targets, "the README links to the documentation"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_readme_keeps_the_two_commands_short() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run" in readme and "make test" in readme
    assert len(readme.splitlines()) <= 120, "the README stays short: put the rest in docs/"


def test_the_pictures_of_a_quiz_item_are_drawn_from_the_renderers(tmp_path: Path) -> None:
    """docs/draw_pictures.py still runs against the core and both renderers (the README shows its PNGs)."""
    script = runpy.run_path(str(ROOT / "docs" / "draw_pictures.py"), run_name="draw_pictures")
    script["draw"](tmp_path)
    for name in ("discord-quiz.png", "slack-quiz.png"):
        with Image.open(tmp_path / name) as drawn, Image.open(ROOT / "docs" / "images" / name) as shipped:
            assert drawn.format == "PNG" and drawn.width == shipped.width
            assert abs(drawn.height - shipped.height) <= shipped.height // 4, "redraw them: python docs/draw_pictures.py"
