"""Files keras.utils.save_img (PIL) writes, for gokeras' SaveImg to match.

Run from the repository root with the pinned environment (requirements.txt,
Pillow included), or through run_all.py:

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/save_img_vectors.py

It writes keras/utils/testdata/save_img/: for each case an image file that
Keras' save_img wrote (PNG in grayscale, RGB and RGBA, scaled and not; BMP
in grayscale and RGB; JPEG at PIL's default quality and at 95, of an RGB
array and of an RGBA one, whose alpha save_img drops) and cases.json with
each case's array (float32, seeded), arguments and file, and the pixels
PIL reads back from that file (Image.open + numpy: the file's own
levels, with no conversion). keras/utils/save_img_keras_test.go saves the
same arrays with SaveImg and compares what Go's decoders read from both
files: PNG and BMP equal to the level, JPEG within the encoders' rounding.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import keras  # noqa: E402

try:
    import PIL  # noqa: E402
    from PIL import Image  # noqa: E402
except ImportError:
    sys.exit("save_img_vectors.py: keras.utils.save_img needs Pillow; install the pinned requirements.txt")

OUT = "keras/utils/testdata/save_img"
SEED = 20261203


def smooth(rng, h, w, c, lo, hi):
    """A smooth random image (JPEG's blocks then differ by rounding only)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    out = np.empty((h, w, c), np.float32)
    for k in range(c):
        a, b, p = rng.uniform(0.1, 0.5, 3)
        out[..., k] = np.sin(a * yy + p) * np.cos(b * xx) + rng.uniform(-0.05, 0.05, (h, w))
    out = (out - out.min()) / (out.max() - out.min())
    return (lo + (hi - lo) * out).astype(np.float32)


def main():
    rng = np.random.RandomState(SEED)
    os.makedirs(OUT, exist_ok=True)
    cases = []

    def case(name, x, **kw):
        path = os.path.join(OUT, name)
        keras.utils.save_img(path, x, **kw)
        back = np.asarray(Image.open(path))
        cases.append({"file": name, "shape": list(x.shape), "x": [float(v) for v in x.reshape(-1)],
                      "scale": kw.get("scale", True), "quality": kw.get("quality", 0),
                      "mode": Image.open(path).mode, "read_shape": list(back.shape),
                      "read": [int(v) for v in back.reshape(-1)]})

    # Scaled (save_img's default): any range, mapped to 0..255 as array_to_img does.
    case("gray_scaled.png", rng.uniform(-2, 5, (7, 9, 1)).astype(np.float32))
    case("rgb_scaled.png", rng.uniform(0, 1, (6, 5, 3)).astype(np.float32))
    case("rgba_scaled.png", rng.uniform(-1, 1, (5, 6, 4)).astype(np.float32))
    # Unscaled: the levels as given (truncated to integers).
    case("rgb_levels.png", rng.uniform(0, 255.9, (4, 7, 3)).astype(np.float32), scale=False)
    case("gray_levels.bmp", rng.randint(0, 256, (5, 3, 1)).astype(np.float32), scale=False)
    case("rgb_levels.bmp", rng.randint(0, 256, (3, 5, 3)).astype(np.float32), scale=False)
    # JPEG: PIL's default quality (75) and 95; an RGBA array loses its alpha.
    case("rgb_q75.jpg", smooth(rng, 24, 32, 3, 0, 255), scale=False)
    case("rgb_q95.jpg", smooth(rng, 16, 24, 3, 0, 255), scale=False, quality=95)
    case("rgba.jpg", smooth(rng, 16, 16, 4, 0, 255), scale=False)

    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"generator": "tools/keras_reference/save_img_vectors.py", "keras": keras.__version__,
                   "pillow": PIL.__version__, "numpy": np.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
