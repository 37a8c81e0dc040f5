"""bench/hypar_bench.py's timing (time_runs): calls shorter than SHORT_CALL_SECONDS are timed in
looped samples of about SAMPLE_SECONDS (as timeit's autorange), longer ones one call a sample as
before, and no kept sample (a loop or one call) includes one of the planner's trial calls. A fake
clock that each call advances by its own seconds makes the times exact."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import hypar_bench


class Fake:
    """A call taking ``seconds`` (a number, or a function of the call's index) on a fake clock;
    ``trials``: the indices of the calls that are planner trials (their result says so)."""

    def __init__(self, seconds, trials=()):
        self.now, self.calls, self.seconds, self.trials = 0.0, 0, seconds, set(trials)

    def clock(self):
        return self.now

    def __call__(self):
        i = self.calls
        self.calls += 1
        self.now += self.seconds(i) if callable(self.seconds) else self.seconds
        return ("trial" if i in self.trials else "settled", i)


def is_trial(result):
    return result[0] == "trial"


def test_long_calls_are_one_call_a_sample_as_before():
    f = Fake(0.05)
    t = hypar_bench.time_runs(f, 3, clock=f.clock)
    assert t.calls_per_sample == 1 and t.samples_redone == 0
    assert f.calls == 4                                   # one warm-up, three timed calls
    assert t.all_seconds == pytest.approx([0.05] * 3) and t.seconds == pytest.approx(0.05)
    assert t.result == ("settled", 3) and t.first_result == ("settled", 0) and t.trials == []


def test_short_calls_loop_until_a_sample_lasts_sample_seconds():
    f = Fake(0.001)
    t = hypar_bench.time_runs(f, 3, clock=f.clock)
    assert t.calls_per_sample == hypar_bench.calls_for(0.001) == 200
    assert len(t.all_seconds) == 3 and t.seconds == pytest.approx(0.001)
    assert all(s * t.calls_per_sample >= hypar_bench.SAMPLE_SECONDS * 0.999 for s in t.all_seconds)
    assert f.calls == 1 + 1 + 50 + 3 * 200                # warm-up, probe, sizing loop, samples


def test_a_slow_probe_does_not_shorten_the_samples():
    # the first timed call (index 1) is slowed by the host: the sizing loop sets the calls anyway
    f = Fake(lambda i: 0.01 if i == 1 else 0.0005)
    t = hypar_bench.time_runs(f, 3, clock=f.clock)
    assert t.calls_per_sample == 400 and t.seconds == pytest.approx(0.0005)


def test_loop_false_keeps_one_call_a_sample():
    f = Fake(0.001)
    t = hypar_bench.time_runs(f, 3, loop=False, clock=f.clock)
    assert t.calls_per_sample == 1 and f.calls == 4 and t.seconds == pytest.approx(0.001)


def test_cold_runs_time_their_first_call():
    f = Fake(lambda i: 0.5 if i == 0 else 0.05)           # the first call pays the calibration
    t = hypar_bench.time_runs(f, 3, big=True, clock=f.clock)
    assert f.calls == 3 and t.first == pytest.approx(0.5) and t.calls_per_sample == 1
    assert t.seconds == pytest.approx(0.05)


def test_warm_up_goes_on_while_the_planner_tries():
    # calls 1 and 2 are trials (the first call plans from predictions), call 3 is settled
    f = Fake(lambda i: 0.003 if i in (1, 2) else 0.001, trials={1, 2})
    t = hypar_bench.time_runs(f, 3, trial=is_trial, clock=f.clock)
    assert t.trials == pytest.approx([0.003, 0.003, 0.001])
    assert t.calls_per_sample == 200 and t.samples_redone == 0 and t.seconds == pytest.approx(0.001)


def test_a_sample_with_a_trial_in_it_is_run_again():
    # the trial (ten times slower) lands in the first looped sample: calls 0 warm-up, 1 settled,
    # 2 probe, 3..52 sizing, 53..252 the first sample
    f = Fake(lambda i: 0.01 if i == 100 else 0.001, trials={100})
    t = hypar_bench.time_runs(f, 3, trial=is_trial, clock=f.clock)
    assert t.samples_redone == 1 and len(t.all_seconds) == 3
    assert t.all_seconds == pytest.approx([0.001] * 3)    # no kept sample has the trial's seconds
    assert f.calls == 3 + 50 + 4 * 200


def test_a_trial_among_one_call_samples_is_run_again():
    # the planner may run a rival again after the warm-up's settled call: calls 0 and 1 warm up,
    # 2 and 3 are timed, 4 is a trial (timed again as 5)
    f = Fake(lambda i: 0.5 if i == 4 else 0.05, trials={4})
    t = hypar_bench.time_runs(f, 3, trial=is_trial, clock=f.clock)
    assert t.calls_per_sample == 1 and t.samples_redone == 1 and t.all_seconds == pytest.approx([0.05] * 3)
    assert f.calls == 6 and t.result == ("settled", 5)


def test_a_trial_in_the_sizing_loop_sizes_again():
    # calls 0 warm-up, 1 settled, 2 probe, 3..52 the sizing loop with a trial at 10: sized again
    f = Fake(lambda i: 0.01 if i == 10 else 0.001, trials={10})
    t = hypar_bench.time_runs(f, 3, trial=is_trial, clock=f.clock)
    assert t.samples_redone == 1 and t.calls_per_sample == 200 and t.seconds == pytest.approx(0.001)
