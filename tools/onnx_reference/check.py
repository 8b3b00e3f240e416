"""Checks the ONNX models gokeras exports against onnx and onnxruntime.

    GOKERAS_ONNX_OUT=/tmp/onnx go test ./keras/ -run '^TestExportONNXForOnnxruntime$' -count=1
    ~/.cache/gokeras-onnx-ref/bin/python tools/onnx_reference/check.py /tmp/onnx

(tools/onnx_reference/check.sh does both.) For every <name>.json the Go
test wrote beside <name>.onnx (an input batch and gokeras' predictions on
it), it:

1. parses the file with onnx's own protobuf classes (generated from the
   full onnx.proto) and re-encodes it: the bytes must be the same, so
   every field gokeras wrote has onnx.proto's number and wire type and
   none is unknown to onnx;
2. runs onnx.checker.check_model(full_check=True) (the IR and opset
   versions, every node against its operator's schema, strict shape
   inference) and checks the opset (>= 17), that ir_version is the one
   onnx.helper pairs with that opset, and that every float tensor is
   float32;
3. checks that every input and output has the batch as a symbolic first
   dimension and the Keras shape after it;
4. runs the model in onnxruntime (CPU) on the batch: equal to gokeras'
   predictions within 1e-5 relative plus 1e-6 absolute;
5. runs it again on a batch of another size (the first row alone, and the
   batch twice over plus its first row): each row equal to gokeras'
   prediction for that row.

Exits non-zero on the first model that fails, naming it and what differs.
"""

import glob
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

RTOL, ATOL = 1e-5, 1e-6
MIN_OPSET = 17


def fail(name, msg):
    sys.exit(f"onnx_reference: {name}: {msg}")


def array(a, dtype):
    return np.asarray(a["Data"], dtype=np.float64).reshape(a["Shape"]).astype(dtype)


def compare(name, what, got, want):
    if got.shape != want.shape:
        fail(name, f"{what}: shape {got.shape}, gokeras {want.shape}")
    if not np.all(np.isfinite(got)):
        fail(name, f"{what}: onnxruntime gave non-finite values")
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bound = ATOL + RTOL * np.abs(want.astype(np.float64))
    if np.any(err > bound):
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        fail(name, f"{what}{list(i)} = {got[i]!r}, gokeras {want[i]!r} (difference {err[i]:.3g})")
    # The worst difference as a fraction of the bound it may reach.
    return float(err.max()) if err.size else 0.0, float(np.max(err / bound)) if err.size else 0.0


ORT_TYPES = {"tensor(float)": np.float32, "tensor(int32)": np.int32, "tensor(int64)": np.int64}


def check_case(path):
    case = json.load(open(path))
    name = case["Name"]
    onnx_path = os.path.join(os.path.dirname(path), case["File"])
    raw = open(onnx_path, "rb").read()

    # 1. The bytes round-trip through onnx's own message classes.
    model = onnx.ModelProto()
    model.ParseFromString(raw)
    if model.SerializeToString() != raw:
        fail(name, "onnx's ModelProto re-encodes the file differently (a field gokeras writes is unknown to onnx.proto or typed differently)")

    # 2. onnx's checker, the opset and IR version, float32 throughout.
    onnx.checker.check_model(model, full_check=True)
    opsets = {o.domain: o.version for o in model.opset_import}
    if set(opsets) != {""} or opsets[""] < MIN_OPSET:
        fail(name, f"opset_import {opsets}, want the default domain only at >= {MIN_OPSET}")
    want_ir = onnx.helper.find_min_ir_version_for([onnx.helper.make_opsetid("", opsets[""])])
    if model.ir_version != want_ir:
        fail(name, f"ir_version {model.ir_version}, onnx pairs opset {opsets['']} with {want_ir}")
    for t in model.graph.initializer:
        if t.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.INT64):
            fail(name, f"initializer {t.name} has data type {onnx.TensorProto.DataType.Name(t.data_type)}")
        if t.data_type == onnx.TensorProto.FLOAT and not t.raw_data:
            fail(name, f"initializer {t.name} is not stored as raw_data")

    # 3. Symbolic batch, Keras shapes.
    def check_ports(kind, ports, arrays):
        if [p.name for p in ports] != [a["Name"] for a in arrays]:
            fail(name, f"{kind} names {[p.name for p in ports]}, gokeras {[a['Name'] for a in arrays]}")
        for p, a in zip(ports, arrays):
            dims = p.type.tensor_type.shape.dim
            if not dims or not dims[0].dim_param or dims[0].HasField("dim_value"):
                fail(name, f"{kind} {p.name}: the first dimension is not symbolic: {dims}")
            fixed = [d.dim_value if d.HasField("dim_value") else None for d in dims[1:]]
            for d, s in zip(fixed, a["Shape"][1:]):
                if d is not None and d != s:
                    fail(name, f"{kind} {p.name}: shape {fixed}, Keras {a['Shape'][1:]}")
            if len(fixed) != len(a["Shape"]) - 1:
                fail(name, f"{kind} {p.name}: rank {len(dims)}, Keras {len(a['Shape'])}")
    check_ports("input", model.graph.input, case["Inputs"])
    check_ports("output", model.graph.output, case["Outputs"])

    # 4. onnxruntime on gokeras' batch.
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    sess = ort.InferenceSession(raw, sess_options=opts, providers=["CPUExecutionProvider"])
    types = {i.name: ORT_TYPES[i.type] for i in sess.get_inputs()}
    feeds = {a["Name"]: array(a, types[a["Name"]]) for a in case["Inputs"]}
    wants = [array(a, np.float32) for a in case["Outputs"]]
    outs = sess.run([a["Name"] for a in case["Outputs"]], feeds)
    worst_abs, worst_frac = 0.0, 0.0
    for a, got, want in zip(case["Outputs"], outs, wants):
        e, f = compare(name, f"output {a['Name']}", got, want)
        worst_abs, worst_frac = max(worst_abs, e), max(worst_frac, f)

    # 5. Other batch sizes: one row, and 2n+1 rows.
    n = next(iter(feeds.values())).shape[0]
    for rows in ([0], list(range(n)) * 2 + [0]):
        sub = {k: v[rows] for k, v in feeds.items()}
        for a, got, want in zip(case["Outputs"], sess.run([a["Name"] for a in case["Outputs"]], sub), wants):
            compare(name, f"output {a['Name']} (batch of {len(rows)})", got, want[rows])
    ops = sorted({nd.op_type for nd in model.graph.node})
    print(f"onnx_reference: {name}: {len(model.graph.node)} nodes ({', '.join(ops)}), batch {n}, 1 and {2 * n + 1}: "
          f"worst difference {worst_abs:.3g} ({100 * worst_frac:.0f}% of the bound)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check.py DIR (written by GOKERAS_ONNX_OUT=DIR go test ./keras/ -run '^TestExportONNXForOnnxruntime$')")
    cases = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
    if not cases:
        sys.exit(f"onnx_reference: no cases in {sys.argv[1]}")
    for path in cases:
        check_case(path)
    print(f"onnx_reference: {len(cases)} models checked with onnx {onnx.__version__}, onnxruntime {ort.__version__}")


if __name__ == "__main__":
    main()
