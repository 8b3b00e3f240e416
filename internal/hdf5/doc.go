// Package hdf5 reads and writes the subset of HDF5 that h5py and Keras use,
// in pure Go.
//
// # Reading
//
// [Decode] and [ReadFile] load a whole file into a tree of [Group] and
// [Dataset] values. They read what h5py 3 / HDF5 1.14 and 2.0 and older
// Keras and h5py versions write: superblock versions 0, 2 and 3; object header
// versions 1 and 2 (checksums checked); old-style groups (symbol tables)
// and new-style groups (link messages, dense storage in a fractal heap);
// contiguous, compact and chunked datasets with every chunk index (version
// 1 B-tree, single chunk, implicit, fixed array, extensible array, version
// 2 B-tree; layout messages 1 to 5, HDF5 2.0's), gzip, shuffle and
// fletcher32 filters, fill values (also of chunked datasets never
// written, as h5py reads them); integers
// of 1 to 8 bytes and IEEE floats of 2 (read as float32), 4 and 8 bytes in
// either byte order, fixed and variable-length strings and h5py's enum
// bool, Keras 3's bfloat16 (2-byte opaque data with the attribute
// dtype="bfloat16", read as float32); attributes compact and dense.
// Children come in h5py's order:
// creation order where the file tracks it, else name order. Attributes
// likewise.
//
// Input is not trusted: sizes are checked against the file and [Limits]
// before anything is allocated, no structure or data may lie in the
// superblock, object headers must hold a group, a dataset or a datatype
// (an empty one is an error, not a dataset left out), object cycles are
// refused, and soft links,
// external links, external storage and virtual datasets are errors naming
// the object, as Keras refuses them. Every error starts with the object's
// path: "hdf5: /model_weights/dense/dense/kernel:0: ...".
//
// # Writing
//
// [Encode] and [WriteFile] write a tree as a version 2 superblock with
// new-style groups that track creation order, so h5py lists children in
// the order given; datasets are contiguous; []string values are
// variable-length UTF-8 (h5py's str) unless FixedStrings asks for numpy's
// fixed-length byte strings, as legacy Keras' layer_names.
//
// # Not supported
//
// Compound, array, reference, opaque, bitfield and variable-length
// sequence types; filters other than gzip, shuffle and fletcher32 (lzf,
// szip, blosc); shared messages in the shared-message heap; user blocks
// are skipped when reading and never written.
package hdf5
