"""Runs every vector script of tools/keras_reference in one Python process.

Usage, from the repository root, with the pinned environment:

    python tools/keras_reference/run_all.py [--out DIR] [--only NAME ...]

A vector script is tools/keras_reference/*vectors.py (or one of EXTRA,
older scripts named otherwise) that writes its files by paths relative to
the current directory when run as a program; the runner runs each as
"python script.py" would (runpy, __name__ == "__main__", no arguments). The runner
changes into DIR (default: the repository root, which rewrites the
committed vectors; check.sh passes a scratch folder, in which the runner
first makes every testdata folder of the repository, and then compare.py)
and, before each script, clears Keras' session (layer names restart at
"dense", "dense_1", ...) and sets Keras' seed, so that a script writes the
same files here as when run alone. TensorFlow is imported once, which is
most of a script's start-up time.
"""

import argparse
import glob
import runpy
import os
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SEED = 20261124


# Scripts that write testdata but whose names do not end in vectors.py.
EXTRA = ["h5_fixtures.py", "interop_bad_files.py"]


def scripts(only):
    found = sorted(glob.glob(os.path.join(HERE, "*vectors.py")))
    found += [os.path.join(HERE, n) for n in EXTRA if os.path.exists(os.path.join(HERE, n))]
    if only:
        names = {os.path.basename(p) for p in found}
        missing = [o for o in only if o not in names]
        if missing:
            sys.exit(f"run_all.py: no script {missing} in {HERE} (have {sorted(names)})")
        found = [p for p in found if os.path.basename(p) in only]
    return found


def skeleton(out):
    """Makes under out every testdata folder of the repository (empty), so
    that a script that writes into its existing testdata folder without
    creating it works in a scratch folder as in the repository."""
    for dirpath, dirnames, _ in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = os.path.relpath(dirpath, ROOT)
        if "testdata" in rel.split(os.sep):
            os.makedirs(os.path.join(out, rel), exist_ok=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=ROOT, help="folder the scripts write into (default: the repository root)")
    ap.add_argument("--only", nargs="*", default=[], help="script file names to run (default: all)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    import keras  # noqa: F401  (imports TensorFlow once for all scripts)
    print(f"run_all.py: imported Keras {keras.__version__} in {time.time() - t0:.1f}s", flush=True)
    sys.path.insert(0, HERE)
    failed = []
    if out != ROOT:
        skeleton(out)
    for path in scripts(args.only):
        name = os.path.basename(path)
        keras.backend.clear_session()
        keras.utils.set_random_seed(SEED)
        t = time.time()
        cwd, argv = os.getcwd(), sys.argv
        os.chdir(out)
        sys.argv = [path]
        try:
            # As "python script.py" runs it: its main guard runs.
            runpy.run_path(path, run_name="__main__")
        except SystemExit as e:  # a script may end with sys.exit(0)
            if e.code not in (None, 0):
                print(f"run_all.py: {name} exited with {e.code}", flush=True)
                failed.append(name)
                continue
        except Exception:  # the others still run; the exit status fails
            traceback.print_exc()
            failed.append(name)
            print(f"run_all.py: {name} FAILED", flush=True)
            continue
        finally:
            os.chdir(cwd)
            sys.argv = argv
        print(f"run_all.py: {name} in {time.time() - t:.1f}s", flush=True)
    print(f"run_all.py: all in {time.time() - t0:.1f}s", flush=True)
    if failed:
        sys.exit(f"run_all.py: {len(failed)} script(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
