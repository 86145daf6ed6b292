from __future__ import annotations

import math

from target_dit4dit.smoke.checks import check_eval, check_exit, check_steps, parse_steps

LOG = """\
11/29 [20:45:47] INFO | >> [Exp: smoke] Step 1, Loss: {'action_dit_loss': 1.59, \
'future_video_loss': 1.60, 'total_loss': 3.20, 'mse_score': np.float64(1.61), \
'data_time': 0.24, 'epoch': 0.02})     train.py:347
noise between the lines
11/29 [20:45:50] INFO | >> [Exp: smoke] Step 2, Loss: {'action_dit_loss': 1.47, \
'total_loss': 2.9e-01, 'epoch': 0.04})     train.py:347
"""


def test_parse_reads_plain_and_numpy_floats() -> None:
    records = parse_steps(LOG)
    assert [r.step for r in records] == [1, 2]
    assert records[0].metrics == {
        "total_loss": 3.20,
        "action_dit_loss": 1.59,
        "future_video_loss": 1.60,
        "mse_score": 1.61,
    }
    assert records[1].metrics["total_loss"] == 0.29


def test_steps_pass_when_every_step_has_a_finite_loss() -> None:
    assert check_steps(parse_steps(LOG), 2).passed
    result = check_steps(parse_steps(LOG), 3)
    assert not result.passed
    assert "[3]" in result.detail


def test_nan_loss_fails_the_step() -> None:
    log = LOG.replace("'total_loss': 2.9e-01", "'total_loss': nan")
    records = parse_steps(log)
    assert math.isnan(records[1].metrics["total_loss"])
    assert not check_steps(records, 2).passed


def test_eval_needs_a_finite_mse_score() -> None:
    assert check_eval(parse_steps(LOG)).passed
    assert not check_eval(parse_steps(LOG.replace("'mse_score': np.float64(1.61), ", ""))).passed
    assert not check_eval(parse_steps(LOG.replace("np.float64(1.61)", "np.float32(inf)"))).passed


def test_exit_check() -> None:
    assert check_exit(0, timed_out=False).passed
    assert not check_exit(1, timed_out=False).passed
    assert not check_exit(None, timed_out=True).passed
