"""Write the small HDF5 fixtures that internal/hdf5's tests read.

Run from the repository root with the reference virtualenv:

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/h5_fixtures.py

Each file exercises part of the format that h5py/HDF5 (and Keras through
them) write: old-style groups (symbol tables, libver="earliest"), new-style
groups (link messages, dense storage, libver="latest", track_order=True),
superblock versions 0, 2 and 3, contiguous / compact / chunked layouts with every
chunk index, gzip and shuffle, every numeric type in both byte orders,
float16, fixed and variable-length strings, h5py's bool, fill values, dense
attributes, soft and external links, and the Keras 3 (H5IOStore) and legacy
Keras 2 weight layouts. manifest.json records what h5py reads back from every
file, so the Go tests compare against h5py rather than against themselves.
"""

import json
import os
import sys

import h5py
import numpy as np

OUT = os.path.join("internal", "hdf5", "testdata")

NUMERIC = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"]


def values(dtype, shape, seed):
    """Deterministic values that fit dtype, distinct per element."""
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        v = rng.standard_normal(n) * 10
        if dt.itemsize == 2:
            v = np.round(v, 2)
    elif dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    else:
        info = np.iinfo(dt)
        lo = max(info.min, -(2**62))
        hi = min(info.max, 2**62)
        v = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if dt.kind == "i" else np.uint64)
        v[0] = info.max
        if n > 1:
            v[1] = info.min
    return np.asarray(v).astype(dt).reshape(shape)


def numeric_family(g, seed, **kw):
    """One dataset per numeric type, little- and big-endian, rank 0 to 4."""
    shapes = [(), (5,), (2, 3), (2, 3, 4), (2, 1, 3, 2)]
    for i, t in enumerate(NUMERIC):
        for order in "<>":
            shape = shapes[i % len(shapes)]
            g.create_dataset(f"{t}{'le' if order == '<' else 'be'}",
                             data=values(order + t, shape, seed + i), **kw)


def attrs_family(obj):
    """Attributes of every kind Keras and h5py users write."""
    obj.attrs["vlen_str"] = "héllo wörld"
    obj.attrs["vlen_str_array"] = ["a", "bc", "", "déf"]
    obj.attrs["fixed_bytes"] = np.array([b"dense", b"dense_1", b"x"])
    obj.attrs["fixed_scalar"] = np.bytes_(b"tensorflow")
    obj.attrs["int_scalar"] = np.int64(-42)
    obj.attrs["float_array"] = np.array([1.5, -2.25, 3.0], dtype="f4")
    obj.attrs["f8_matrix"] = values("f8", (2, 2), 7)
    obj.attrs["bool_scalar"] = True
    obj.attrs["bool_array"] = np.array([True, False, True])
    obj.attrs["u2_be"] = np.array([1, 65535], dtype=">u2")
    obj.attrs["f2"] = np.array([0.5, -1.25], dtype="f2")


def old_style(path):
    with h5py.File(path, "w", libver="earliest") as f:
        attrs_family(f)
        g = f.create_group("numeric")
        numeric_family(g, 1)
        attrs_family(g["f4le"])
        f.create_group("empty")
        many = f.create_group("many")  # B-tree with several SNOD leaves and a level-1 root
        for i in range(200):
            many.create_dataset(f"d{i:03d}", data=np.int32(i))
        s = f.create_group("strings")
        s["vlen"] = np.array(["x", "yz", "", "ünï"], dtype=h5py.string_dtype())
        s["vlen_scalar"] = "scalar vlen"
        s["fixed"] = np.array([b"ab", b"cde", b""])
        s["bools"] = np.array([[True, False], [False, True]])
        c = f.create_group("chunked")
        c.create_dataset("gzip_shuffle", data=values("f4", (20, 30), 3), chunks=(7, 8),
                         compression="gzip", compression_opts=6, shuffle=True)
        c.create_dataset("gzip", data=values("i8", (50,), 4), chunks=(16,), compression="gzip")
        c.create_dataset("auto", data=values("f8", (9, 5), 5), chunks=True)
        c.create_dataset("shuffle_only", data=values("u2", (33,), 6), chunks=(10,), shuffle=True)
        c.create_dataset("fletcher", data=values("i4", (12,), 8), chunks=(5,), fletcher32=True)
        part = c.create_dataset("partial", shape=(10, 10), chunks=(4, 4), dtype="i2", fillvalue=-7)
        part[0:4, 0:4] = values("i2", (4, 4), 9)
        big = c.create_dataset("many_chunks", data=values("f4", (300, 7), 10), chunks=(2, 7))
        del big
        f.create_dataset("unwritten", shape=(3, 4), dtype="f4")
        f.create_dataset("unwritten_fill", shape=(5,), dtype="i4", fillvalue=11)
        compact(f, "compact", values("i4", (3, 2), 11))


def compact(parent, name, data):
    """A compact-layout dataset through h5py's low-level API."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(data.shape)
    tid = h5py.h5t.py_create(data.dtype)
    ds = h5py.h5d.create(parent.id, name.encode(), tid, space, dcpl=dcpl)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data))


def new_style(path):
    with h5py.File(path, "w", libver="latest", track_order=True) as f:
        attrs_family(f)
        g = f.create_group("numeric", track_order=True)
        numeric_family(g, 21)
        # Creation order differs from name order.
        o = f.create_group("order", track_order=True)
        for n in ["zeta", "alpha", "mid", "beta"]:
            o.create_group(n)
        f.create_group("empty", track_order=True)
        dense = f.create_group("dense_links", track_order=True)
        for i in range(120):
            dense.create_dataset(f"link_with_a_longer_name_{119 - i:03d}", data=np.int16(i))
        dn = f.create_group("dense_names")  # dense, not tracking order
        for i in range(40):
            dn.create_group(f"g{(i * 7) % 40:02d}")
        da = f.create_group("dense_attrs", track_order=True)
        for i in range(30):
            da.attrs[f"attr_{29 - i:02d}"] = np.arange(i + 1, dtype="f8")
        da.attrs["big"] = np.arange(20000, dtype="i4")  # too large for a header message
        c = f.create_group("chunked", track_order=True)
        c.create_dataset("single", data=values("f4", (6, 5), 31), chunks=(6, 5), compression="gzip")
        c.create_dataset("fixed_array", data=values("f4", (40, 30), 32), chunks=(8, 7),
                         compression="gzip", shuffle=True)
        c.create_dataset("fixed_array_paged", data=values("i2", (2000,), 36), chunks=(1,))
        c.create_dataset("auto", data=values("f8", (9, 5), 33), chunks=True)
        ea = c.create_dataset("extensible", shape=(0, 3), maxshape=(None, 3), chunks=(4, 3), dtype="i4")
        ea.resize((50, 3))
        ea[...] = values("i4", (50, 3), 34)
        bt = c.create_dataset("btree2", shape=(0, 0), maxshape=(None, None), chunks=(3, 3), dtype="f8",
                              compression="gzip")
        bt.resize((10, 11))
        bt[...] = values("f8", (10, 11), 35)
        ea2 = c.create_dataset("extensible_big", shape=(0,), maxshape=(None,), chunks=(2,), dtype="u1")
        ea2.resize((1000,))
        ea2[...] = values("u1", (1000,), 37)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4, 4))
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
        space = h5py.h5s.create_simple((10, 9))
        im = h5py.h5d.create(c.id, b"implicit", h5py.h5t.NATIVE_INT32, space, dcpl=dcpl)
        im.write(h5py.h5s.ALL, h5py.h5s.ALL, values("i4", (10, 9), 38))
        part = c.create_dataset("partial", shape=(10, 10), chunks=(4, 4), dtype="i2", fillvalue=-7)
        part[4:8, 0:4] = values("i2", (4, 4), 39)
        s = f.create_group("strings")
        s["vlen"] = np.array(["x", "yz", "", "ünï" * 50], dtype=h5py.string_dtype())
        s["fixed"] = np.array([b"ab", b"cde", b""])
        compact(f, "compact", values("f8", (4,), 40))


def sb_version(path, version):
    """Superblock 2 (libver v108); h5py cannot ask for version 1."""
    with h5py.File(path, "w", libver=("v108", "v108")) as f:
        f.attrs["version"] = version
        g = f.create_group("g")
        g["x"] = values("f4", (3, 4), 50 + version)
        g.create_dataset("c", data=values("i8", (10,), 60 + version), chunks=(3,), compression="gzip")


def keras3_style(path):
    """model.weights.h5 as Keras 3's H5IOStore writes it."""
    with h5py.File(path, "w") as f:
        for layer, shapes in [("dense", [(4, 3), (3,)]), ("dense_1", [(3, 2), (2,)])]:
            v = f.create_group(f"layers/{layer}").create_group("vars")
            for i, s in enumerate(shapes):
                v[str(i)] = values("f4", s, 70 + i + len(layer))
        f.create_group("optimizer").create_group("vars")["0"] = np.int64(3)
        # bfloat16 as H5IOStore.__setitem__ stores it: opaque 2-byte data
        # marked by a dtype attribute.
        import ml_dtypes

        v = f.create_group("layers/dense_bf16").create_group("vars")
        bf = values("f4", (2, 3), 77).astype(ml_dtypes.bfloat16)
        v.create_dataset("0", data=bf).attrs["dtype"] = "bfloat16"
        f.create_group("vars")


def keras2_style(path):
    """A legacy Keras 2 .h5 model file (model.save("m.h5"))."""
    config = {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
        {"class_name": "Dense", "config": {"name": "dense", "units": 3}}]}}
    with h5py.File(path, "w") as f:
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = "2.15.0"
        f.attrs["model_config"] = json.dumps(config)
        mw = f.create_group("model_weights")
        mw.attrs["backend"] = "tensorflow"
        mw.attrs["keras_version"] = "2.15.0"
        mw.attrs["layer_names"] = np.array([b"dense", b"dropout"])
        d = mw.create_group("dense")
        d.attrs["weight_names"] = np.array([b"dense/kernel:0", b"dense/bias:0"])
        d.create_dataset("dense/kernel:0", data=values("f4", (4, 3), 80))
        d.create_dataset("dense/bias:0", data=values("f4", (3,), 81))
        mw.create_group("dropout").attrs["weight_names"] = np.array([], dtype="S1")


def real_keras(legacy_path, weights_path):
    """The same kind of files written by Keras itself (3.x): a legacy .h5
    model with optimizer weights, and a .weights.h5 (H5IOStore)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    keras.utils.set_random_seed(0)
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="dense"),
                          keras.layers.Dropout(0.1), keras.layers.Dense(2, name="out")])
    m.compile(optimizer="adam", loss="mse")
    m.fit(np.ones((8, 4)), np.ones((8, 2)), epochs=1, verbose=0)
    m.save(legacy_path)
    m.save_weights(weights_path)


def links(path_soft, path_ext):
    with h5py.File(path_soft, "w") as f:
        f["real"] = np.arange(3, dtype="f4")
        f["w/alias"] = h5py.SoftLink("/real")
    # The same soft link as a link message (new-style group).
    with h5py.File(path_soft.replace(".h5", "_new.h5"), "w", libver="latest") as f:
        f["real"] = np.arange(3, dtype="f4")
        f["w/alias"] = h5py.SoftLink("/real")
    with h5py.File(path_ext, "w") as f:
        f.create_group("w")
        f["w/outside"] = h5py.ExternalLink("other.h5", "/data")


def unsupported(out):
    """Files with what the Go reader refuses: an lzf-compressed dataset and
    a compound one."""
    with h5py.File(os.path.join(out, "unsupported_lzf.h5"), "w") as f:
        f.create_group("w").create_dataset("lzf", data=np.zeros(1000, dtype="f4"), compression="lzf")
    with h5py.File(os.path.join(out, "unsupported_compound.h5"), "w") as f:
        f.create_group("w")["pairs"] = np.zeros(3, dtype=[("a", "i4"), ("b", "f8")])


def describe(obj):
    """What h5py reads back: shape, dtype and values, in iteration order."""
    def val(v, dt):
        a = np.asarray(v)
        if dt.kind == "O" or h5py.check_string_dtype(dt) is not None and dt.kind != "S":
            return [x.decode() if isinstance(x, bytes) else str(x) for x in a.reshape(-1)]
        if dt.kind == "S":
            return [x.decode("latin-1") for x in a.reshape(-1)]
        if dt.kind == "b":
            return [bool(x) for x in a.reshape(-1)]
        if dt.kind == "f":
            return [float(x) for x in a.reshape(-1)]
        return [int(x) for x in a.reshape(-1)]

    def kind(dt):
        if dt.kind == "S":
            return "bytes"
        if dt.kind == "O":
            return "str"
        if dt.kind == "b":
            return "bool"
        return dt.newbyteorder("=").name

    def attrs(o):
        out = []
        for name in o.attrs:
            a = o.attrs.get_id(name)
            dt = a.dtype
            v = o.attrs[name]
            out.append({"name": name, "shape": list(a.shape), "dtype": kind(dt), "value": val(v, dt)})
        return out

    objs = []

    def visit(path, o):
        if isinstance(o, h5py.Group):
            names = []
            for n in o:
                if o.get(n, getlink=True).__class__ is h5py.HardLink:
                    names.append(n)
            objs.append({"path": path, "kind": "group", "children": names, "attrs": attrs(o)})
            for n in names:
                visit(path.rstrip("/") + "/" + n, o[n])
        elif o.dtype.kind == "V" and o.attrs.get("dtype") == "bfloat16":
            import ml_dtypes

            v = np.asarray(o[()]).view(ml_dtypes.bfloat16).astype(np.float32)
            objs.append({"path": path, "kind": "dataset", "shape": list(o.shape),
                         "dtype": "bfloat16", "value": val(v, v.dtype), "attrs": attrs(o)})
        else:
            objs.append({"path": path, "kind": "dataset", "shape": list(o.shape),
                         "dtype": kind(o.dtype), "value": val(o[()], o.dtype), "attrs": attrs(o)})

    visit("/", obj)
    return objs


def main():
    os.makedirs(OUT, exist_ok=True)
    makers = {
        "old_style.h5": old_style,
        "new_style.h5": new_style,
        "superblock2.h5": lambda p: sb_version(p, 2),
        "keras3_weights.h5": keras3_style,
        "keras2_model.h5": keras2_style,
    }
    makers["keras_real_legacy.h5"] = lambda p: real_keras(p, os.path.join(OUT, "keras_real.weights.h5"))
    makers["keras_real.weights.h5"] = lambda p: None  # written with the legacy file
    manifest = {}
    for name, make in makers.items():
        p = os.path.join(OUT, name)
        make(p)
        with h5py.File(p, "r") as f:
            manifest[name] = describe(f)
    links(os.path.join(OUT, "soft_link.h5"), os.path.join(OUT, "external_link.h5"))
    unsupported(OUT)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"h5py": h5py.version.version, "hdf5": h5py.version.hdf5_version,
                   "files": manifest}, f, indent=None, separators=(",", ":"))
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(os.path.join(OUT, name)), file=sys.stderr)


if __name__ == "__main__":
    main()
