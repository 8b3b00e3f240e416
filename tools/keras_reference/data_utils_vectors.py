"""Keras vectors for gokeras' data utilities (keras/utils: image_dataset.go,
text_dataset.go, timeseries_dataset.go, image_utils.go; datasets/housing.go,
datasets/random_state.go).

Writes, deterministically, small inputs and what Keras makes of them:

- keras/utils/testdata/data_utils/images/: a folder of images in class
  sub-folders, a (PNGs of every colour type, one 16-bit, one declaring a
  gamma, one nested in a sub-folder, one named .PNG), b (BMPs of 24, 32
  and 8 bits, top-down and bottom-up, and a GIF) and c (JPEGs, 4:4:4 and
  4:2:0), plus files Keras skips (a hidden folder, a .txt). PNG, BMP and
  GIF are written here byte by byte (zlib level 0: the same bytes on any
  machine); JPEGs by tf.io.encode_jpeg.
- keras/utils/testdata/data_utils/texts/: .txt files in class folders.
- keras/utils/testdata/data_utils/expected.json: for image cases of
  keras.utils.image_dataset_from_directory the class names, the file paths
  (relative to the folder) in Keras' order (numpy's RandomState shuffle
  where a seed is given), and, unshuffled, the first batch (images and
  labels); for text_dataset_from_directory the class names, the file order
  of its index and the first batch; for timeseries_dataset_from_array every
  batch (as a set of windows where shuffled); for load_img + img_to_array
  and array_to_img the arrays; numpy RandomState permutations.
- datasets/testdata/housing/{boston,california}_housing.npz: files in
  Keras' format (x, y), and datasets/testdata/housing/expected.json: what
  keras.datasets.*.load_data returns for them (its get_file pointed at the
  file, as the real ones cannot be downloaded here).

load_img needs Pillow (pinned in requirements.txt).
Run from the repository root with the pinned environment, or through
run_all.py.
"""

import json
import os
import shutil
import struct
import sys
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

try:
    import PIL  # noqa: E402
except ImportError:
    sys.exit("data_utils_vectors.py: keras.utils.load_img needs Pillow; install the pinned requirements.txt")

OUT = "keras/utils/testdata/data_utils"
IMAGES = OUT + "/images"
TEXTS = OUT + "/texts"
HOUSING = "datasets/testdata/housing"


def manifest():
    return {
        "generator": "tools/keras_reference/data_utils_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "pillow": PIL.__version__,
        "python": sys.version.split()[0],
    }


# ---- image writers (deterministic bytes) ----

def png(a, palette=None, trns=None, gamma=None, bit_depth=None):
    """a: (h, w) or (h, w, c) uint8/uint16, or (h, w) indices with palette."""
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[..., None]
    h, w, c = a.shape
    ct = 3 if palette is not None else {1: 0, 2: 4, 3: 2, 4: 6}[c]
    bd = 16 if a.dtype == np.uint16 else 8
    rows = [a[y].astype(">u2" if bd == 16 else np.uint8).tobytes() for y in range(h)]

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bd, ct, 0, 0, 0))
    if gamma is not None:
        out += chunk(b"gAMA", struct.pack(">I", gamma))
    if palette is not None:
        out += chunk(b"PLTE", bytes(palette))
    if trns is not None:
        out += chunk(b"tRNS", bytes(trns))
    raw = b"".join(b"\x00" + r for r in rows)
    return out + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")


def bmp(a, top_down=False):
    """24-bit (3 channels), 32-bit BI_RGB with alpha (4) or 8-bit gray with a gray palette (2-D)."""
    a = np.asarray(a, dtype=np.uint8)
    gray = a.ndim == 2
    if gray:
        a = a[..., None]
    h, w, c = a.shape
    bpp = 8 * c
    rowb = (w * c + 3) // 4 * 4
    order = range(h) if top_down else range(h - 1, -1, -1)
    px = b""
    for y in order:
        row = a[y].tobytes() if gray else a[y][:, [2, 1, 0] + ([3] if c == 4 else [])].tobytes()
        px += row + b"\x00" * (rowb - len(row))
    pal = b"".join(bytes([i, i, i, 0]) for i in range(256)) if gray else b""
    off = 54 + len(pal)
    hdr = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(px), 2835, 2835, 256 if gray else 0, 0)
    return b"BM" + struct.pack("<IHHI", off + len(px), 0, 0, off) + hdr + pal + px


def gif(indices, palette):
    """One frame, 128 colours; a clear code before every 126 literals keeps LZW codes at 8 bits."""
    idx = np.asarray(indices, dtype=np.uint8)
    h, w = idx.shape
    pal = list(palette) + [0] * (3 * 128 - len(palette))
    out = b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF6, 0, 0) + bytes(pal)
    out += b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0)
    clear = 128
    codes = []
    flat = idx.ravel().tolist()
    for i in range(0, len(flat), 126):
        codes.append(clear)
        codes += flat[i:i + 126]
    codes.append(clear + 1)
    bits = nbits = 0
    data = bytearray()
    for c in codes:
        bits |= c << nbits
        nbits += 8
        while nbits >= 8:
            data.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8
    out += bytes([7])
    for i in range(0, len(data), 255):
        blk = data[i:i + 255]
        out += bytes([len(blk)]) + bytes(blk)
    return out + b"\x00\x3b"


def smooth(rng, h, w, c):
    """A smooth gradient plus noise: JPEG-friendly content."""
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 11 + y * 3) % 256, (y * 13 + 40) % 256, ((x + y) * 7 + 90) % 256], -1)[..., :c]
    return np.clip(base + rng.randint(-25, 26, base.shape), 0, 255).astype(np.uint8)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def make_images():
    if os.path.isdir(IMAGES):
        shutil.rmtree(IMAGES)
    rng = np.random.RandomState(31)
    u8 = lambda *s: rng.randint(0, 256, s).astype(np.uint8)  # noqa: E731
    write(f"{IMAGES}/a/rgb.png", png(u8(9, 12, 3)))
    write(f"{IMAGES}/a/gray.png", png(u8(7, 5)))
    write(f"{IMAGES}/a/rgba.png", png(u8(8, 8, 4)))
    pal = u8(16 * 3).tolist()
    write(f"{IMAGES}/a/pal.png", png(rng.randint(0, 16, (10, 6)), palette=pal, trns=u8(16).tolist()))
    write(f"{IMAGES}/a/deep.png", png(rng.randint(0, 65536, (6, 9, 3)).astype(np.uint16)))
    write(f"{IMAGES}/a/gamma.png", png(u8(5, 7, 3), gamma=45455))
    write(f"{IMAGES}/a/graya.png", png(u8(6, 6, 2)))
    write(f"{IMAGES}/a/sub/nested.png", png(u8(4, 13, 3)))
    write(f"{IMAGES}/a/UPPER.PNG", png(u8(12, 4, 3)))
    write(f"{IMAGES}/b/rgb24.bmp", bmp(u8(7, 11, 3)))
    write(f"{IMAGES}/b/rgba32.bmp", bmp(u8(10, 6, 4), top_down=True))
    write(f"{IMAGES}/b/gray8.bmp", bmp(u8(5, 9)))
    write(f"{IMAGES}/b/frame.gif", gif(rng.randint(0, 100, (9, 9)), u8(300).tolist()))
    write(f"{IMAGES}/c/photo444.jpg", tf.io.encode_jpeg(smooth(rng, 16, 20, 3), quality=90, chroma_downsampling=False).numpy())
    write(f"{IMAGES}/c/photo420.jpg", tf.io.encode_jpeg(smooth(rng, 15, 21, 3), quality=85).numpy())
    write(f"{IMAGES}/c/grayjpeg.jpeg", tf.io.encode_jpeg(smooth(rng, 11, 9, 1), quality=90).numpy())
    write(f"{IMAGES}/.hidden/skipped.png", png(u8(3, 3, 3)))
    write(f"{IMAGES}/a/notes.txt", b"not an image\n")


def make_texts():
    if os.path.isdir(TEXTS):
        shutil.rmtree(TEXTS)
    docs = {
        "neg/1.txt": "bad film, dull.\n",
        "neg/2.txt": "Worst ever",
        "neg/deep/3.txt": "nested négatif: très mauvais",
        "pos/10.txt": "great, loved it",
        "pos/9.txt": "A masterpiece. \u2605\u2605\u2605",
        "pos/b.txt": "",
        "pos/readme.md": "skipped",
    }
    for name, text in docs.items():
        write(f"{TEXTS}/{name}", text.encode("utf-8"))


def rel(paths, root):
    return [os.path.relpath(p, root).replace(os.sep, "/") for p in paths]


def flat(x):
    return [float(v) for v in np.asarray(x, dtype=np.float64).reshape(-1)]


def image_cases():
    cases = []
    base = dict(image_size=(5, 6), verbose=False)
    specs = [
        ("rgb_bilinear", dict(shuffle=False)),
        ("rgb_nearest_crop_categorical", dict(shuffle=False, interpolation="nearest", crop_to_aspect_ratio=True, label_mode="categorical")),
        ("rgb_bilinear_pad_binary", dict(shuffle=False, pad_to_aspect_ratio=True, label_mode="binary", class_names=["a", "b"])),
        ("gray_crop_classnames", dict(shuffle=False, color_mode="grayscale", class_names=["c", "a"], crop_to_aspect_ratio=True)),
        ("rgba_nearest", dict(shuffle=False, color_mode="rgba", class_names=["a"], interpolation="nearest")),
        ("rgb_nolabels", dict(shuffle=False, label_mode=None)),
        ("square_nearest_pad", dict(shuffle=False, image_size=(4, 4), interpolation="nearest", pad_to_aspect_ratio=True)),
        ("rgb_batch4_first", dict(shuffle=False, batch_size=4)),
    ]
    for name, kw in specs:
        args = {**base, **kw}
        ds = keras.utils.image_dataset_from_directory(IMAGES, **args)
        first = next(iter(ds))
        x, y = (first if isinstance(first, tuple) else (first, None))
        c = {"name": name, "args": jsonable(args), "class_names": ds.class_names,
             "file_paths": rel(ds.file_paths, IMAGES), "cardinality": int(ds.cardinality().numpy()),
             "x_shape": list(x.shape), "x_dtype": x.dtype.name, "x": flat(x)}
        if y is not None:
            c["y_shape"], c["y_dtype"], c["y"] = list(y.shape), y.dtype.name, flat(y)
        cases.append(c)
    # Explicit labels, in the sorted file order.
    # With labels given (or none) the whole folder is walked: the hidden
    # folder, skipped as a class, counts.
    n = len(keras.utils.image_dataset_from_directory(IMAGES, labels=None, shuffle=False, verbose=False).file_paths)
    labels = [(i * 7) % 4 for i in range(n)]
    ds = keras.utils.image_dataset_from_directory(IMAGES, labels=labels, label_mode="categorical", shuffle=False, batch_size=64, **base)
    _, y = next(iter(ds))
    cases.append({"name": "explicit_labels", "args": jsonable({**base, "labels": labels, "label_mode": "categorical", "shuffle": False, "batch_size": 64}),
                  "class_names": ds.class_names, "file_paths": rel(ds.file_paths, IMAGES),
                  "y_shape": list(y.shape), "y_dtype": y.dtype.name, "y": flat(y)})
    # Shuffled with a seed: numpy's order of the files, and the split.
    for seed in (1337, 7):
        for subset in ("training", "validation"):
            args = {**base, "seed": seed, "validation_split": 0.25, "subset": subset}
            ds = keras.utils.image_dataset_from_directory(IMAGES, **args)
            cases.append({"name": f"shuffled_{seed}_{subset}", "args": jsonable(args), "class_names": ds.class_names,
                          "file_paths": rel(ds.file_paths, IMAGES), "cardinality": int(ds.cardinality().numpy())})
    tr, va = keras.utils.image_dataset_from_directory(IMAGES, seed=5, validation_split=0.4, subset="both", **base)
    cases.append({"name": "both", "args": jsonable({**base, "seed": 5, "validation_split": 0.4, "subset": "both"}),
                  "class_names": tr.class_names, "file_paths": rel(tr.file_paths, IMAGES),
                  "validation_file_paths": rel(va.file_paths, IMAGES)})
    ds = keras.utils.image_dataset_from_directory(IMAGES, shuffle=False, batch_size=None, **base)
    x, y = next(iter(ds))
    cases.append({"name": "unbatched", "args": jsonable({**base, "shuffle": False, "batch_size": None}),
                  "x_shape": list(x.shape), "x_dtype": x.dtype.name, "x": flat(x), "y_shape": list(y.shape), "y": flat(y),
                  "file_paths": rel(ds.file_paths, IMAGES), "class_names": ds.class_names})
    return cases


def jsonable(d):
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}


def text_cases():
    from keras.src.utils import dataset_utils

    cases = []
    for name, kw in [("plain", dict(shuffle=False)), ("max_length", dict(shuffle=False, max_length=5, label_mode="categorical")),
                     ("nolabels", dict(shuffle=False, label_mode=None, batch_size=2))]:
        ds = keras.utils.text_dataset_from_directory(TEXTS, verbose=False, **kw)
        first = next(iter(ds))
        x, y = (first if isinstance(first, tuple) else (first, None))
        c = {"name": name, "args": kw, "class_names": ds.class_names,
             "texts": [v.decode("utf-8", "surrogateescape") for v in x.numpy()], "text_bytes": [list(v) for v in x.numpy()]}
        if y is not None:
            c["y_shape"], c["y"] = list(y.shape), flat(y)
        cases.append(c)
    for seed in (1337, 99):
        paths, labels, names = dataset_utils.index_directory(TEXTS, "inferred", formats=(".txt",), shuffle=True, seed=seed, verbose=False)
        cases.append({"name": f"index_{seed}", "seed": seed, "file_paths": rel(paths, TEXTS), "labels": [int(v) for v in labels], "class_names": names})
    return cases


def timeseries_cases():
    data = np.arange(40 * 2, dtype=np.float32).reshape(40, 2) * 0.5
    targets = np.arange(100, 140, dtype=np.int64)
    cases = []
    specs = [
        ("defaults", dict(sequence_length=5, batch_size=8), True),
        ("stride_rate_range", dict(sequence_length=3, sequence_stride=2, sampling_rate=3, batch_size=4, start_index=4, end_index=35), True),
        ("no_targets_unbatched", dict(sequence_length=4, sequence_stride=5, batch_size=None), False),
        ("shuffled", dict(sequence_length=6, batch_size=5, shuffle=True, seed=7), True),
    ]
    for name, kw, with_targets in specs:
        ds = keras.utils.timeseries_dataset_from_array(data, targets if with_targets else None, **kw)
        windows, tgts = [], []
        for e in ds:
            x, y = (e if isinstance(e, tuple) else (e, None))
            x = x.numpy()
            if kw.get("batch_size", 128) is None:
                x = x[None]
                y = None if y is None else y.numpy()[None]
            else:
                y = None if y is None else y.numpy()
            windows += [flat(w) for w in x]
            if y is not None:
                tgts += [int(v) for v in y]
        c = {"name": name, "args": kw, "targets_given": with_targets, "windows": windows, "targets": tgts}
        if kw.get("shuffle"):  # tf.data's shuffle: compare as a set
            order = sorted(range(len(windows)), key=lambda i: windows[i])
            c["windows"] = [windows[i] for i in order]
            c["targets"] = [tgts[i] for i in order]
            c["as_set"] = True
        cases.append(c)
    return {"data": flat(data), "data_shape": list(data.shape), "targets": [int(v) for v in targets], "cases": cases}


def load_img_cases():
    cases = []
    files = ["a/rgb.png", "a/gray.png", "a/rgba.png", "a/pal.png", "a/deep.png", "a/graya.png", "b/rgb24.bmp", "b/rgba32.bmp",
             "b/gray8.bmp", "b/frame.gif", "c/photo444.jpg", "c/photo420.jpg", "c/grayjpeg.jpeg"]
    for f in files:
        for mode in ("rgb", "grayscale", "rgba"):
            cases.append(load_case(f, dict(color_mode=mode)))
    for f in ("a/rgb.png", "a/rgba.png", "c/photo420.jpg", "a/gray.png"):
        for interp in ("nearest", "bilinear", "bicubic", "lanczos", "box", "hamming"):
            cases.append(load_case(f, dict(target_size=(5, 7), interpolation=interp)))
            cases.append(load_case(f, dict(target_size=(6, 3), interpolation=interp, keep_aspect_ratio=True,
                                           color_mode="rgba" if f == "a/rgba.png" else "rgb")))
    cases.append(load_case("a/rgb.png", dict(target_size=(20, 25))))
    cases.append(load_case("a/rgb.png", dict(target_size=(20, 25), interpolation="bilinear")))
    return cases


def load_case(f, kw):
    img = keras.utils.load_img(os.path.join(IMAGES, f), **kw)
    a = keras.utils.img_to_array(img)
    return {"file": f, "args": jsonable(kw), "mode": img.mode, "shape": list(a.shape), "x": [int(v) for v in a.reshape(-1)]}


def array_to_img_cases():
    rng = np.random.RandomState(5)
    cases = []
    for c in (1, 3, 4):
        x = rng.uniform(-3, 7, (3, 4, c)).astype(np.float32)
        img = keras.utils.array_to_img(x)
        cases.append({"x": flat(x), "shape": list(x.shape), "scale": True, "mode": img.mode,
                      "out": [int(v) for v in keras.utils.img_to_array(img).reshape(-1)]})
    x = rng.randint(0, 256, (2, 3, 3)).astype(np.float32)
    img = keras.utils.array_to_img(x, scale=False)
    cases.append({"x": flat(x), "shape": list(x.shape), "scale": False, "mode": img.mode,
                  "out": [int(v) for v in keras.utils.img_to_array(img).reshape(-1)]})
    return cases


def permutations():
    out = []
    for seed in (0, 1, 113, 1337, 2**32 - 1):
        for n in (1, 2, 10, 100):
            idx = np.arange(n)
            np.random.RandomState(seed).shuffle(idx)
            out.append({"seed": seed, "n": n, "perm": [int(v) for v in idx]})
    return out


def housing():
    import keras.src.datasets.boston_housing as bh
    import keras.src.datasets.california_housing as ch

    rng = np.random.RandomState(17)
    os.makedirs(HOUSING, exist_ok=True)
    # Column 0 holds the row's index, so that the order Keras returns reads off it.
    bx = rng.uniform(0, 100, (37, 13))
    bx[:, 0] = np.arange(37)
    by = rng.uniform(5, 50, 37)
    cx = rng.uniform(-3, 3, (620, 2)).astype(np.float32)
    cx[:, 0] = np.arange(620)
    cy = rng.uniform(1e4, 5e5, 620).astype(np.float32)
    files = {"boston": f"{HOUSING}/boston_housing.npz", "california": f"{HOUSING}/california_housing.npz"}
    np.savez(files["boston"], x=bx, y=by)
    np.savez(files["california"], x=cx, y=cy)
    cases = []
    for mod, name, kws in [(bh, "boston", [{}, {"test_split": 0.3, "seed": 7}, {"test_split": 0.0}]),
                           (ch, "california", [{}, {"version": "small"}, {"version": "small", "seed": 3, "test_split": 0.5}])]:
        saved = mod.get_file
        mod.get_file = lambda *a, _p=files[name], **k: _p
        try:
            for kw in kws:
                (xtr, ytr), (xte, yte) = mod.load_data(**kw)
                cases.append({"dataset": name, "args": kw, "x_train_dtype": xtr.dtype.name,
                              "x_train_shape": list(xtr.shape), "x_test_shape": list(xte.shape),
                              "train_rows": [int(v) for v in xtr[:, 0]], "test_rows": [int(v) for v in xte[:, 0]],
                              # California's 620 values as sums (its rows say the order).
                              "y_train": flat(ytr) if name == "boston" else None, "y_test": flat(yte) if name == "boston" else None,
                              "y_train_sum": float(np.asarray(ytr, np.float64).sum()), "y_test_sum": float(np.asarray(yte, np.float64).sum()),
                              "x_train_sum": float(np.asarray(xtr, np.float64).sum()), "x_test_sum": float(np.asarray(xte, np.float64).sum())})
        finally:
            mod.get_file = saved
    with open(f"{HOUSING}/expected.json", "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")


def main():
    make_images()
    make_texts()
    out = {"manifest": manifest(), "images": image_cases(), "texts": text_cases(), "timeseries": timeseries_cases(),
           "load_img": load_img_cases(), "array_to_img": array_to_img_cases(), "permutations": permutations()}
    with open(f"{OUT}/expected.json", "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    housing()


if __name__ == "__main__":
    main()
