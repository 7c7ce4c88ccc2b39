"""What tests/test_cli.py and tests/test_cli_sched.py share: the CLI run in a clean
environment, its answers checked, `export` lines parsed, and the test runner.

The build directory is the test script's first argument (default: build)."""
import json
import os
import shlex
import subprocess
import sys

BIN_DIR = sys.argv[1] if len(sys.argv) > 1 else "build"
CLI = os.path.join(BIN_DIR, "cluster-resolve")


def run(args, env=None, tf_config=None):
    """Runs the CLI with a clean environment (plus env); returns (code, stdout, stderr)."""
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            e[k] = os.environ[k]
    if tf_config is not None:
        e["TF_CONFIG"] = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    e.update(env or {})
    p = subprocess.run([CLI] + args, env=e, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def ok(args, env=None, tf_config=None):
    """stdout of a run that must succeed and print nothing on stderr."""
    code, out, err = run(args, env, tf_config)
    assert code == 0, f"{args}: exit {code}: {err}"
    assert err == "", err
    return out


def expect_fail(args, code, words, env=None, tf_config=None):
    """stderr of a run that must exit `code` with one line holding every word, stdout empty."""
    got, out, err = run(args, env, tf_config)
    assert got == code, f"{args}: exit {got}, want {code}: {err}"
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("cluster-resolve: "), err
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"
    return err


def exports(text):
    """Parses `export NAME=value` lines the way a shell would."""
    out = {}
    for line in text.splitlines():
        words = shlex.split(line)
        assert words[0] == "export", line
        name, _, value = words[1].partition("=")
        out[name] = value
    return out


def run_tests(scope):
    """Runs every test_* function of `scope` (a module's globals()) in name order, reports
    each failure, then returns the exit status."""
    tests = [(n, f) for n, f in sorted(scope.items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok   {name}")
        except Exception as e:  # report every failure, then fail the run
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0
