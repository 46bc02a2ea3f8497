"""Item analysis, class progress and the gradebook: what the organiser of a study server asks first.

- `model.py`     the aggregates storage hands in (`ReportSource`, a port) and the report values
- `analysis.py`  facility, discrimination, options chosen, flags: pure arithmetic on the aggregates
- `render.py`    the chat summary, the CSV table and the facility/discrimination chart
- `grades.py`    the gradebook: one row per learner, one column per item or topic
- `service.py`   the admin's `/quiz report` and the CLI's `quizbot report` / `quizbot grades export`
"""

from .analysis import MIN_LEARNERS, analyse
from .model import Filters, ItemStats, LearnerProgress, Report, ReportSource
from .render import chart_png, report_csv, summary_text

__all__ = [
    "MIN_LEARNERS",
    "Filters",
    "ItemStats",
    "LearnerProgress",
    "Report",
    "ReportSource",
    "analyse",
    "chart_png",
    "report_csv",
    "summary_text",
]
