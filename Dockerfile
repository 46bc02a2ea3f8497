# QuizBot: one image for every front end. No Docker engine runs on the project's build machines,
# so this file is kept conventional; see docs/operators/deploy.md.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    QUIZBOT_DATABASE_URL=sqlite+aiosqlite:////app/data/quizbot.db

# libseccomp2: the sandbox's system-call filter.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libseccomp2 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# CPU build of torch first, from PyTorch's CPU index, so the default index never pulls CUDA.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY sandbox ./sandbox
COPY content ./content
RUN pip install .

RUN useradd --create-home --uid 10001 quizbot \
    && mkdir -p /app/data \
    && chown quizbot:quizbot /app/data
USER quizbot
VOLUME ["/app/data"]
EXPOSE 3000

CMD ["quizbot", "run"]
