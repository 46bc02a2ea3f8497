"""The report: each configuration's figures as it ends, and the summary table of them all."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from .measure import percentile
from .run import Result
from .settings import ACK_WAIT_S, NEXT_WAIT_S, SLOW_ACK_S


def ms(values: Sequence[float], q: float) -> str:
    return f"{1000 * percentile(values, q):.0f}" if values else "-"


def label(r: Result) -> str:
    """The platform, with the load balancing of Slack requests when there are two processes."""
    if r.platform == "slack" and r.processes > 1:
        return f"slack ({'sticky by learner' if r.balance == 'sticky' else 'round robin'})"
    return r.platform


def print_result(r: Result) -> None:
    t = r.tally
    acks = sorted(t.acks)
    over = sum(1 for a in acks if a > SLOW_ACK_S)
    where = "sandbox service (1 x 2 workers)" if r.sandbox == "service" else "local pool (2 workers per process)"
    print(f"\n== {label(r)}, {r.processes} bot process(es), {where}, {r.database}; code at {r.bot_root} ==", flush=True)
    print(f"  started {r.started_utc}; ran {r.seconds:.1f} s with {r.learners} learners; load average before "
          f"{'/'.join(f'{x:.2f}' for x in r.load_before)}, after {'/'.join(f'{x:.2f}' for x in r.load_after)}")  # fmt: skip
    print(f"  bot start-up to ready: {', '.join(f'{s:.1f} s' for s in r.startup_s)}")
    print(f"  answers sent {t.answers_sent} (code {t.code_answers}), acknowledged {len(acks)} "
          f"({len(acks) / r.seconds:.1f}/s); quizzes started {t.quizzes}; other requests {t.other_requests}")  # fmt: skip
    print(f"  ack latency ms: p50 {ms(acks, 0.5)}  p95 {ms(acks, 0.95)}  p99 {ms(acks, 0.99)}  max {ms(acks, 1.0)}"
          f"  (mean {1000 * statistics.fmean(acks) if acks else float('nan'):.0f})")  # fmt: skip
    if r.warmup_s:
        steady = r.steady_latencies()
        print(f"    after the first {r.warmup_s:g} s (every learner in, their first quiz starts made; n={len(steady)}): "
              f"p50 {ms(steady, 0.5)}  p95 {ms(steady, 0.95)}  p99 {ms(steady, 0.99)}  max {ms(steady, 1.0)}; "
              f"over 250 ms: {sum(a > 0.25 for a in steady)}")  # fmt: skip
    code = sorted(t.code_acks)
    print(f"    of which code answers (n={len(code)}): p50 {ms(code, 0.5)}  p99 {ms(code, 0.99)}; "
          f"the other answers' p99 {ms(sorted(t.other_acks), 0.99)}; acks over 250 ms: {sum(a > 0.25 for a in acks)} "
          f"({sum(a > 0.25 for a in code)} of them code)")  # fmt: skip
    print(f"  acks over {SLOW_ACK_S:.0f} s: {over}; not acknowledged within {ACK_WAIT_S:.0f} s: {t.lost}; "
          f"HTTP errors to learners: {t.http_errors}; platform API errors: {r.api_errors}; "
          f"learners left waiting {NEXT_WAIT_S:.0f} s for a next item: {t.stalls}")  # fmt: skip
    print(f"  answers acknowledged, then refused by the bot as \"already answered\" (a stale click): {t.refused}")
    print(f"  answered items posted again, graded (the process did not know the item's message yet): {t.reshown}")
    replies = sorted(t.replies)
    print(f"  answer to next item shown, ms: p50 {ms(replies, 0.5)}  p95 {ms(replies, 0.95)}  p99 {ms(replies, 0.99)}  "
          f"max {ms(replies, 1.0)}  (n={len(replies)})")  # fmt: skip
    for kind, count in sorted(t.problems.items()):
        print(f"  {kind}: {count}")
    print(f"  code answers acknowledged, then answered \"the sandbox is busy, try again\" (sent again): {t.busy}")
    print(f"  answers acknowledged, then answered with the bot's apology for an error (see its log; sent again): {t.failed}")
    flag = "equal" if r.attempts + r.unfinished + t.busy == len(acks) else "MISMATCH !!!"
    print(f"  attempts in the database {r.attempts} + code answers left ungraded at the stop {r.unfinished} "
          f"+ code answers the sandbox was too busy for {t.busy} vs answers acknowledged {len(acks)}: {flag}")  # fmt: skip
    if r.attempts + r.unfinished + t.busy != len(acks):
        print(f"    of the {len(acks) - r.attempts - r.unfinished - t.busy} acknowledged answers not stored (net), the bot told the learner "
              f"\"already answered\" for {t.refused} and apologised for an error for {t.failed}; {t.stalls} learners never saw a next item, {t.code_stalls} of them "
              f"after a code answer; {t.lost} answers had no ack within {ACK_WAIT_S:.0f} s (stored or not) (see the bot log)")  # fmt: skip
    for n in range(r.processes):
        print(f"  bot process {n}: RSS peak sampled {r.rss_peak_mb[n]:.0f} MB, VmHWM {r.hwm_mb[n]:.0f} MB, torch imported: "
              f"{'yes' if r.torch[n] else 'no'}, uvloop: {'yes' if r.uvloop[n] else 'no'}; its sandbox pool (PSS, all processes) peak {r.pool_mb[n]:.0f} MB; "
              f"exit code {r.exit_codes[n]}; CPU {r.bots_cpu_s[n]:.1f} s ({100 * r.bots_cpu_s[n] / r.seconds:.0f}% of one core), "
              f"runnable but waiting for a CPU {r.bots_wait_s[n]:.1f} s")  # fmt: skip
    for n, (errors, exceptions) in enumerate(r.log_errors):
        print(f"  bot process {n} log: {errors} ERROR lines")
        for text, count in sorted(exceptions.items(), key=lambda kv: -kv[1])[:3]:
            print(f"    {count} x {text}")
    if r.pg:
        print(f"  {r.pg}")
    print(f"  benchmark process (fakes + learners) CPU: {r.bench_cpu_s:.1f} s in {r.seconds:.1f} s "
          f"({100 * r.bench_cpu_s / r.seconds:.0f}% of one core); runnable but waiting for a CPU {r.bench_wait_s:.1f} s; "
          f"its loop woke late by p50 {ms(r.bench_lags, 0.5)} ms, p99 {ms(r.bench_lags, 0.99)} ms, max {ms(r.bench_lags, 1.0)} ms")  # fmt: skip
    acked = len(r.tally.acks)
    print(f"  sandbox CPU (the pools or services, every job's processes): {r.pools_cpu_s:.1f} s ({100 * r.pools_cpu_s / r.seconds:.0f}% of one core; "
          f"{1000 * r.pools_cpu_s / max(1, acked):.2f} ms per answer acknowledged); the host's CPUs busy {100 * r.host_busy:.0f}% "
          f"of the run, by anything")  # fmt: skip
    print(f"  {r.cpu_line()}")
    print(f"    ({r.steady_acks} answers after the first {r.warmup_s:g} s; over the whole run, the warm-up's quiz starts "
          f"included: {r.whole_run_cpu_per_answer_ms():.2f} ms)", flush=True)  # fmt: skip


def summary_table(results: list[Result]) -> None:
    print("\n| platform | bot processes | sandbox | database | code | bot CPU ms per answer | answers acked | acks/s | p50 ms | p95 ms | p99 ms | p99 after warm-up ms | max ms | acks > 3 s | HTTP errors | attempts in DB | bot RSS peak MB (torch) | pool PSS peak MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        acks = sorted(r.tally.acks)
        over = sum(1 for a in acks if a > SLOW_ACK_S)
        rss = " / ".join(f"{x:.0f} ({'torch' if t else 'no torch'})" for x, t in zip(r.hwm_mb, r.torch, strict=True))
        pool = " / ".join(f"{x:.0f}" for x in r.pool_mb) if r.sandbox == "local" else "(service)"
        mark = "" if r.attempts + r.unfinished + r.tally.busy == len(acks) else " MISMATCH"
        ungraded = (f" + {r.unfinished} ungraded" if r.unfinished else "") + (f" + {r.tally.busy} sandbox busy" if r.tally.busy else "")
        print(f"| {label(r)} | {r.processes} | {r.sandbox} | {r.database} | {r.bot_root} | {r.cpu_per_answer_ms():.2f} | {len(acks)} | {len(acks) / r.seconds:.0f} | {ms(acks, 0.5)} | "
              f"{ms(acks, 0.95)} | {ms(acks, 0.99)} | {ms(r.steady_latencies(), 0.99) if r.warmup_s else '-'} | {ms(acks, 1.0)} | {over} | {r.tally.http_errors + r.api_errors} | "
              f"{r.attempts}{ungraded}{mark} | {rss} | {pool} |")  # fmt: skip
