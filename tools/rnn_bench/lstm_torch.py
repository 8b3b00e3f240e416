"""Times PyTorch's LSTM and GRU on the shapes of gokeras'
BenchmarkLSTMForwardBackward / BenchmarkGRUForwardBackward
(keras/layers/lstm_bench_test.go): a forward pass returning every
timestep, then the gradients of sum(output) with respect to the input and
the weights. CPU, float32, batch-first.

    /usr/bin/python3 tools/rnn_bench/lstm_torch.py [--threads 2] [--iters 20] [--repeats 4]

Prints one line per shape: ms per forward+backward step, the fastest of
--repeats runs of --iters steps. Debian's python3-torch links the generic
reference BLAS (BLAS_INFO=generic, about 2 GFLOP/s); for a fair comparison
point the loader at OpenBLAS, e.g. the files of Debian's
libopenblas0-pthread unpacked with `apt-get download` and `dpkg -x`:

    LD_LIBRARY_PATH=<dir>/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
        /usr/bin/python3 tools/rnn_bench/lstm_torch.py --threads 1
"""

import argparse
import time

import torch

SHAPES = [(32, 7, 12, 128), (64, 50, 64, 128)]  # batch, steps, features, units


def bench(kind, batch, steps, features, units, iters, repeats, clock=time.perf_counter):
    torch.manual_seed(0)
    mod = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU}[kind](features, units, batch_first=True)
    x = torch.randn(batch, steps, features, requires_grad=True)

    def step():
        mod.zero_grad(set_to_none=True)
        x.grad = None
        y, _ = mod(x)
        y.sum().backward()

    for _ in range(3):
        step()
    best = float("inf")
    for _ in range(repeats):  # the fastest of a few runs: the machine is shared
        t0 = clock()
        for _ in range(iters):
            step()
        best = min(best, (clock() - t0) / iters * 1000)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--cpu-time", action="store_true",
                    help="CPU time of the process (all threads) instead of wall time: on a busy machine it is what the step costs")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(f"torch {torch.__version__}, {a.threads} threads")
    for kind in ("LSTM", "GRU"):
        for b, t, f, u in SHAPES:
            ms = bench(kind, b, t, f, u, a.iters, a.repeats, time.process_time if a.cpu_time else time.perf_counter)
            print(f"{kind} b{b}_t{t}_f{f}_u{u}: {ms:.3f} ms {'CPU' if a.cpu_time else 'wall'}/step")


if __name__ == "__main__":
    main()
