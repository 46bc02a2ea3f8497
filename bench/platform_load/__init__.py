"""Benchmark: simulated learners answering quizzes over the fake Slack and the fake Discord, against real bot processes.

Each configuration (platform x one or two `quizbot run` processes x sandbox local or as a service x
database) gets a fresh database, PostgreSQL on 127.0.0.1:5432 or a SQLite file (made here, dropped
afterwards), and fresh bot processes started as an operator would (`quizbot run`, pointed at the fake platforms with
SLACK_API_URL / DISCORD_API_URL). The fake servers (the tests' own, subclassed here to time and
route) and the learners run in this process; its CPU use is printed, to show whether it bounded
the figures, with how late its own loop woke from short sleeps (which every ack it times includes).
It runs on uvloop (`--loop asyncio` for asyncio's loop): about a tenth less of the host's CPU beside
the bots than on asyncio's loop.

- Slack learners send signed HTTP requests to the bots' /slack/events: `/quiz start bench
  count:20`, then a click on choice A of each item, or the code as a ```python block in the DM for
  the code item. With two processes the requests go round robin (per request, as a plain load
  balancer would) or, with `--balance sticky`, each learner always to the same process. The ack
  is the HTTP 200 (Bolt acknowledges before the work).
- Discord learners send INTERACTION_CREATE over the fake gateway (with two processes, two shards:
  DISCORD_SHARD_COUNT=2, DISCORD_SHARDS=0 / 1, each learner in a guild of one shard, as Discord
  routes them); the ack is the interaction callback POST reaching the fake Discord (the bot sends
  the reply itself when it is ready within 2 s, else it defers). Code goes through the item's
  Answer form.

Each learner answers, waits for the next item, answers again (flat out, or after reading it for
about `--think` seconds), for `--seconds`; a finished quiz is
followed by a new one. One item in 20 is code (5% of answers go to the sandbox). An answer the bot
refuses as "already answered" sends the learner to `/quiz current`. Afterwards the bots are
stopped with SIGTERM (they finish what is in flight) and the attempts stored in the database are
compared with the answers acknowledged. Counted apart (the learner was told, nothing is stored by
design): code acknowledged and then answered "the sandbox is busy, try again" (the learner sends it
again), and code still being graded at the stop (its row of unfinished work tells the learner
after a restart). An answer acknowledged and then met with the bot's apology for an error is
counted too, and still printed as a mismatch. Also printed: the time from an answer to the next item,
the code answers' acks apart from the others', each bot process's RSS (VmRSS sampled every 0.5 s, and VmHWM) and whether it mapped torch, its
sandbox pool's PSS, its CPU time, the database connections' states and (PostgreSQL) their backends' CPU per answer, the load average; and at
the end sandbox jobs/s through the bot's client with one and two services (the measure of
bench/sandbox_service_bench.py).

The figure to compare code by is the line `bot CPU per answer: <ms> ms (<platform>, <n> processes,
<database>)`: the user + system CPU time of the bot processes (all their threads, from
/proc/<pid>/stat) while the learners ran, divided by the answers acknowledged. The host's other
load moves it far less than it moves the rates. `--bot-root A,B` runs the bots from each checkout
in turn, configuration by configuration (A, B, A, B with `--repeat 2`), so two versions of the code
are measured by the same benchmark in one sitting.

    python bench/platform_bench.py [--seconds 60] [--learners 500] [--only slack,discord]
        [--processes 1,2] [--sandbox local,service] [--balance roundrobin,sticky] [--jobs 100] [--think 0]
        [--database postgresql,sqlite] [--bot-root PATH,...] [--repeat 1] [--loop uvloop|asyncio]

Prints figures; asserts nothing (a mismatch of attempts and acks is printed loudly).

The code, one idea a module (`python bench/platform_bench.py` runs `cli.main`; the package is not
named `platform`: a script run as `python bench/<name>.py` has bench/ first on sys.path, where
that name would hide the standard library's `platform` from aiohttp, discord.py and the rest):

    settings.py          this checkout, the admin database, the waits; --think and --log-level
    pack.py              the benchmark's pack: 19 choice items and one code item
    measure.py           the learners' tally, percentiles, the bot processes' /proc figures
    database.py          a fresh database per configuration: made, sampled, counted, dropped
    fakes.py             the tests' fake Slack and fake Discord, instrumented to time and route
    slack_learners.py    learners over the fake Slack: signed requests to the bots
    discord_learners.py  learners over the fake Discord: interactions through the gateway
    bots.py              one `quizbot run` process: started, waited for, stopped; its log's errors
    run.py               one configuration, from the fresh database to its Result
    report.py            a configuration's figures, and the summary table
    cli.py               the command line: the configurations in turn, then sandbox jobs/s
"""
