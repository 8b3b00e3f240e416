"""Keras vectors for gokeras' StringLookup and TextVectorization
(keras/layers/string_lookup.go, keras/layers/text_vectorization.go).

Writes keras/layers/testdata/keras/text.json: for each case Keras' layer
get_config() (after adapt, when the case adapts), the strings given to
adapt (a list of documents, or rows of tokens), the vocabulary Keras
learned (get_vocabulary()), the idf weights in tf_idf mode, an input and
Keras' output (ids or encodings, as float32, with their shape); for
invert, the ids given and the strings Keras returned.

Also writes keras/layers/testdata/keras/fingerprint.json: byte strings of
lengths 0 to 1000 and their FarmHash Fingerprint64 from tf.fingerprint
(the hash tf.strings.to_hash_bucket_fast, and so StringLookup's OOV
buckets, use), as decimal strings.

Run from the repository root with the pinned environment (requirements.txt),
or through run_all.py.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

SEED = 20261124
OUT = "keras/layers/testdata/keras/text.json"
FINGERPRINT_OUT = "keras/layers/testdata/keras/fingerprint.json"


def manifest():
    return {
        "generator": "tools/keras_reference/text_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
        "dtype": "float32",
    }


def arr(a):
    a = np.asarray(a, dtype=np.float32)
    return [float(v) for v in a.reshape(-1)]


def strs(a):
    a = np.asarray(a).reshape(-1)
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in a]


def case(name, layer, x, adapt=None, inverse=None):
    c = {"name": name, "class_name": layer.__class__.__name__}
    if adapt is not None:
        layer.adapt(adapt)
        c["adapt"] = adapt
    y = layer(tf.constant(x))
    c["config"] = json.loads(json.dumps(layer.get_config()))
    c["vocabulary"] = layer.get_vocabulary()
    lk = layer._lookup_layer if isinstance(layer, keras.layers.TextVectorization) else layer
    if lk.output_mode == "tf_idf":
        c["idf_weights"] = arr(lk.idf_weights_const.numpy())
    c["input"] = x
    c["output_shape"] = list(y.shape)
    c["output"] = arr(y)
    return c


def string_lookup_cases():
    SL = keras.layers.StringLookup
    tokens = ["b", "a", "c", "a", "b", "d", "e", "a", "c", "zz", "Z", "é", "é", "b"]
    query = ["a", "b", "x", "c", "", "é", "Z", "d"]
    rows = [["a", "b", "a", "x"], ["c", "", "c", "c"], ["zz", "é", "b", "q"]]
    docs = [["a", "b", "a", "b"], ["a", "c", "d", "a"], ["b", "b", "e", "zz"], ["é", "a", "c", "c"]]
    cases = [
        case("string_lookup_adapt", SL(), query, adapt=tokens),
        case("string_lookup_max_tokens_mask", SL(max_tokens=5, mask_token=""), query, adapt=tokens + ["", ""]),
        case("string_lookup_oov_token", SL(oov_token="<oov>", max_tokens=4), query, adapt=tokens),
        case("string_lookup_vocabulary", SL(vocabulary=["a", "b", "c", "d", "", "é", "Z"], num_oov_indices=0),
             ["a", "Z", "é", "c", ""]),
        case("string_lookup_vocabulary_special", SL(vocabulary=["", "[UNK]", "x", "y"], mask_token=""),
             ["y", "", "x", "z"]),
        case("string_lookup_one_hot", SL(output_mode="one_hot"), query, adapt=tokens),
        case("string_lookup_multi_hot", SL(output_mode="multi_hot"), rows, adapt=tokens),
        case("string_lookup_multi_hot_flat", SL(output_mode="multi_hot"), query, adapt=tokens),
        case("string_lookup_multi_hot_mask", SL(output_mode="multi_hot", mask_token=""), rows, adapt=tokens),
        case("string_lookup_count", SL(output_mode="count", max_tokens=6, pad_to_max_tokens=True), rows,
             adapt=tokens),
        case("string_lookup_count_pad", SL(output_mode="count", max_tokens=12, pad_to_max_tokens=True), rows,
             adapt=tokens),
        case("string_lookup_tf_idf", SL(output_mode="tf_idf"), rows, adapt=docs),
        case("string_lookup_tf_idf_flat_adapt", SL(output_mode="tf_idf", max_tokens=5), rows, adapt=tokens),
        case("string_lookup_tf_idf_vocabulary",
             SL(output_mode="tf_idf", vocabulary=["a", "b", "c"], idf_weights=[0.5, 1.25, 2.0]), rows),
        case("string_lookup_tf_idf_pad",
             SL(output_mode="tf_idf", max_tokens=8, pad_to_max_tokens=True), rows, adapt=docs),
    ]
    many = ["a", "b", "zz", "q", "", "unknown", "x" * 40, "y" * 70, "é", "Z"]
    cases += [
        case("string_lookup_oov3", SL(num_oov_indices=3), many, adapt=tokens),
        case("string_lookup_oov2_mask", SL(num_oov_indices=2, mask_token="", vocabulary=["a", "b"]), many),
        case("string_lookup_oov4_multi_hot", SL(num_oov_indices=4, output_mode="multi_hot"),
             [many[:5], many[5:]], adapt=tokens),
    ]
    inv = SL(invert=True, mask_token="")
    inv.set_vocabulary(["a", "b", "c"])
    ids = [0, 1, 2, 3, 4, 5, 9]
    out = inv(tf.constant(ids, tf.int64))
    cases.append({"name": "string_lookup_invert", "class_name": "StringLookup",
                  "config": json.loads(json.dumps(inv.get_config())), "vocabulary": inv.get_vocabulary(),
                  "set_vocabulary": ["a", "b", "c"], "inverse_input": ids, "inverse_output": strs(out)})
    inv2 = SL(invert=True, vocabulary=["x", "y"], oov_token="?")
    ids2 = [0, 1, 2, 3, 7]
    out2 = inv2(tf.constant(ids2, tf.int64))
    cases.append({"name": "string_lookup_invert_vocabulary", "class_name": "StringLookup",
                  "config": json.loads(json.dumps(inv2.get_config())), "vocabulary": inv2.get_vocabulary(),
                  "inverse_input": ids2, "inverse_output": strs(out2)})
    return cases


def text_vectorization_cases():
    TV = keras.layers.TextVectorization
    corpus = [
        "The quick brown fox, the LAZY dog!",
        "A dog's life: dogs and FOXES.",
        "Éclair éclair naïve café-au-lait  tabs\tand\nnewlines",
        "the the the end",
        "well...   (hello) [world] {x} 'quoted' \"double\" a_b c-d e+f",
    ]
    query = [
        "The dog and the fox.",
        "unknown words here, the END",
        "",
        "Éclair ÉCLAIR   brown\tfox",
    ]
    cases = [
        case("text_vectorization_default", TV(), query, adapt=corpus),
        case("text_vectorization_sequence_length", TV(output_sequence_length=4), query, adapt=corpus),
        case("text_vectorization_sequence_length_pad", TV(output_sequence_length=9, max_tokens=10), query,
             adapt=corpus),
        case("text_vectorization_lower", TV(standardize="lower"), query, adapt=corpus),
        case("text_vectorization_strip", TV(standardize="strip_punctuation"), query, adapt=corpus),
        case("text_vectorization_no_standardize", TV(standardize=None, max_tokens=15), query, adapt=corpus),
        case("text_vectorization_character", TV(split="character", output_sequence_length=12), query,
             adapt=corpus),
        case("text_vectorization_split_none", TV(split=None), ["the", "dog", "THE", "x y", ""],
             adapt=["the", "dog", "the", "x y", "cat", "dog", "the"]),
        case("text_vectorization_split_none_multi_hot", TV(split=None, output_mode="multi_hot"),
             ["the", "dog", "THE", "x y"], adapt=["the", "dog", "the", "x y", "cat", "dog", "the"]),
        case("text_vectorization_ngrams", TV(ngrams=2), query, adapt=corpus),
        case("text_vectorization_ngrams_tuple", TV(ngrams=(1, 3), max_tokens=30, output_mode="count"), query,
             adapt=corpus),
        case("text_vectorization_multi_hot", TV(output_mode="multi_hot", max_tokens=12), query, adapt=corpus),
        case("text_vectorization_one_hot_split_none", TV(output_mode="one_hot", split=None),
             ["the", "dog", "zzz"], adapt=["the", "dog", "the"]),
        case("text_vectorization_count_pad", TV(output_mode="count", max_tokens=40, pad_to_max_tokens=True), query,
             adapt=corpus),
        case("text_vectorization_tf_idf", TV(output_mode="tf_idf"), query, adapt=corpus),
        case("text_vectorization_tf_idf_max_tokens", TV(output_mode="tf_idf", max_tokens=9), query, adapt=corpus),
        case("text_vectorization_spaces", TV(standardize=None),
             ["a\u00a0b c\u2003d\ve\ff\rg\x1ch\x85i", "  lead and trail  "],
             adapt=["a\u00a0b c\u2003d\ve\ff\rg\x1ch\x85i"]),
        case("text_vectorization_vocabulary", TV(vocabulary=["dog", "the", "fox", "end"],
                                                 output_sequence_length=6), query),
        case("text_vectorization_tf_idf_vocabulary",
             TV(output_mode="tf_idf", vocabulary=["dog", "the", "fox"], idf_weights=[1.5, 0.25, 3.0]), query),
    ]
    return cases


def fingerprint_cases():
    rng = np.random.default_rng(SEED + 3)
    out = []
    for n in list(range(0, 70)) + [100, 127, 128, 129, 130, 191, 192, 193, 255, 256, 300, 1000]:
        b = bytes(rng.integers(0, 256, n, dtype=np.uint8))
        f = tf.fingerprint(tf.constant([b]), method="farmhash64").numpy()[0]
        out.append({"name": f"fingerprint_{n}", "hex": b.hex(), "fingerprint64": str(int.from_bytes(bytes(f), "little"))})
    return out


def main():
    fc = fingerprint_cases()
    os.makedirs(os.path.dirname(FINGERPRINT_OUT), exist_ok=True)
    with open(FINGERPRINT_OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": fc}, f, indent=1)
        f.write("\n")
    print(f"wrote {FINGERPRINT_OUT}: {len(fc)} cases")
    c = string_lookup_cases() + text_vectorization_cases()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": c}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {OUT}: {len(c)} cases")


if __name__ == "__main__":
    main()
